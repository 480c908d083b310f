/** A `sbkit check --jobs N` worker thread (parallel.ts `CheckPool`): runs each task it is sent, posts its outcome. */
import { parentPort } from 'node:worker_threads';
import { checkVariant, type VariantTask } from './check-variant.ts';

interface Job {
  readonly task: VariantTask;
  readonly job: number;
  readonly stop: SharedArrayBuffer;
  readonly done: SharedArrayBuffer;
}

parentPort?.on('message', (m: Job) => {
  const stopFlag = new Int32Array(m.stop);
  const counts = new Int32Array(m.done);
  void checkVariant(m.task, {
    tick: () => Atomics.add(counts, m.job, 1),
    stopped: () => Atomics.load(stopFlag, 0) === 1,
  }).then(
    (outcome) => {
      // Raised here, not by the main thread on this message: the main thread's own job may not read its
      // messages until it ends (parallel.ts).
      if (outcome.failed) Atomics.store(stopFlag, 0, 1);
      parentPort?.postMessage({ outcome });
    },
    (e: unknown) => {
      // A job that broke stops the others too (they would otherwise run their whole budget before the
      // main thread, busy with its own job, sees this thread's 'error'); then the error goes up as before.
      Atomics.store(stopFlag, 0, 1);
      throw e;
    },
  );
});
