/**
 * A replica process of the crash test: one incarnation of one replica's sink (impl/replica-process.ts)
 * on the shared shard in PostgreSQL and the blob directory, its trace written line by line as it
 * happens (protocol.ts), so that a SIGKILL leaves a whole prefix. Started by the supervisor
 * (supervisor.ts) with `node --import tsx`, configured through the environment (CHILD_ENV), talking
 * over the fork's IPC channel. Exits 0 once its sink finished and its writer is retired, 1 on an error.
 *
 * The input is paced like a real sink's (one frontier step per batch interval, `intervalMs`): it is
 * the one place that waits on a timer, in the scheduler seam, which otherwise passes through (real
 * concurrency, production mode).
 */
import { openSync, writeSync } from 'node:fs';
import type { TraceEvent } from '../../vocab/index.ts';
import { openConsensus } from '../../impl/persist/backends.ts';
import { FileBlob } from '../../impl/persist/file-blob.ts';
import { runIncarnation } from '../../impl/replica-process.ts';
import type { Scheduler } from '../../impl/seams.ts';
import { generateUpdates } from '../workload.ts';
import { CHILD_ENV, wallMs, type ChildConfig, type ChildMessage, type ParentMessage, type TraceLine } from './protocol.ts';

/** Passes every point at once, except the input's frontier step: at most one per `intervalMs`. */
export function pacedScheduler(intervalMs: number): Scheduler {
  let next = 0;
  return {
    point(site) {
      if (site.label !== 'input.advance') return Promise.resolve();
      const now = performance.now();
      const wait = next - now;
      next = Math.max(now, next) + intervalMs;
      return wait > 0 ? new Promise((resolve) => setTimeout(resolve, wait)) : Promise.resolve();
    },
  };
}

/**
 * Freezes this process for good (a test's hold): the event loop stops, nothing more is written or sent;
 * only a kill ends it. The `held` message is written to the IPC channel first (a short message on an
 * idle channel leaves in the call).
 */
function freeze(what: string): never {
  process.send?.({ type: 'held', what } satisfies ChildMessage);
  for (;;) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
}

/** The incarnation's lower reached K with this event: it appends nothing more. */
export function seals(e: TraceEvent, intervals: number): boolean {
  if (e.kind === 'append') return e.result.ok ? e.upper >= intervals : e.result.current >= intervals;
  return e.kind === 'restart' && e.lower >= intervals;
}

async function main(): Promise<number> {
  const raw = process.env[CHILD_ENV];
  if (raw === undefined) throw new Error(`${CHILD_ENV} is not set: this process is started by sbkit crash-test`);
  const config = JSON.parse(raw) as ChildConfig;
  const fd = openSync(config.traceFile, 'a');
  const line = (l: TraceLine): void => void writeSync(fd, `${JSON.stringify(l)}\n`);
  const send = (m: ChildMessage): void => void process.send?.(m);
  const told = (type: ParentMessage['type']): Promise<void> => new Promise((resolve) => process.on('message', (m: ParentMessage) => m.type === type && resolve()));
  const claim = told('claim');
  const start = told('start');
  try {
    const consensus = await openConsensus(config.consensus, { applicationName: config.applicationName, poolSize: 4 });
    const blob = await FileBlob.open(config.blobDir);
    const updates = generateUpdates({ intervals: config.intervals, rows: config.rows, rowBytes: config.rowBytes, seed: config.seed });
    let sealed = false;
    if (config.hold?.at === 'load') freeze(`replica ${config.replica} incarnation ${config.incarnation} held before it loaded`);
    send({ type: 'loaded' });
    await claim;
    const result = await runIncarnation({
      variant: config.variant,
      replicas: config.replicas,
      processes: config.processes,
      workersPerProcess: config.workersPerProcess,
      intervals: config.intervals,
      updates,
      maxBytes: config.threshold,
      bugs: config.bugs,
      scheduler: pacedScheduler(config.intervalMs),
      consensus: consensus.store,
      blob: blob,
      shardId: config.shardId,
      replica: config.replica,
      restarted: config.incarnation > 0,
      observer: {
        event(e) {
          if (config.hold?.at === 'commit' && e.kind === 'append' && e.result.ok && e.upper === config.hold.upper) {
            freeze(`replica ${config.replica} incarnation ${config.incarnation} held after its commit of [${e.lower}, ${e.upper}), before its trace has the append`);
          }
          line({ t: wallMs(), e });
          if (e.kind === 'append' && e.result.ok) send({ type: 'upper', upper: e.upper });
          if (!sealed && seals(e, config.intervals)) {
            sealed = true;
            send({ type: 'sealed' });
          }
        },
      },
      beforeStart: async (writer) => {
        line({ start: { writer: writer.id, pid: process.pid, replica: config.replica, incarnation: config.incarnation } });
        send({ type: 'claimed', writer: writer.id });
        if (config.incarnation === 0) await start;
      },
      onStart: ({ upper }) => send({ type: 'started', upper }),
    });
    const m = result.metrics;
    line({ end: { appends: m.appends, blobPuts: m.blobPuts, mismatches: m.mismatches } });
    await consensus.close();
    send({ type: 'done' });
    return 0;
  } catch (e) {
    const message = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    line({ error: message });
    send({ type: 'error', message });
    return 1;
  }
}

// Run only as a process of its own (tests import the helpers above).
if (process.env[CHILD_ENV] !== undefined) {
  const code = await main();
  process.disconnect?.();
  process.exit(code);
}
