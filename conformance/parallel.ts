/**
 * Spreading `sbkit check` over cores (`--jobs N`, worker threads) and machines (`--shard i/n`).
 *
 * - A shard is a disjoint slice of the budget: shard i of n runs the full `runs` per variant from its own
 *   seed stream, so a CI matrix of n machines covers n × the budget. Shard 0 of 1 uses the seed itself.
 * - Jobs split one shard's runs: job k runs its share from its own seed (job 0 of shard 0: the seed itself,
 *   so `--jobs 1` is the plain single-threaded check). Every seed is a function of (seed, shard, job), so
 *   the same flags run the same workloads and schedules; a failure replays on one machine from its token.
 * - The first job to fail raises a shared stop flag; the others skip their remaining runs (and report what
 *   they executed), then the failing job shrinks and minimizes its counterexample.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { checkVariant, type VariantHooks, type VariantOutcome, type VariantTask } from './check-variant.ts';

export interface Shard {
  readonly index: number;
  readonly count: number;
}

export const WHOLE: Shard = { index: 0, count: 1 };

/**
 * The default for `--jobs`: half the machine's cores (at least 1). One job alone already keeps about one
 * and a half cores busy — V8 compiles and collects garbage on threads of its own, and a check is heavy on
 * both — so a job per core only made them compete: on 2 cores `--jobs 2` took 5.2 s for the default
 * budget against 4.4 s with one job, and 11.9 s against 11.8 s for 2,000 runs per variant.
 */
export const defaultJobs = (): number => Math.max(1, Math.floor(availableParallelism() / 2));

/** A 31-bit seed for (seed, shard, job), distinct for distinct shards and jobs (a murmur3 finalizer). */
export function seedFor(seed: number, shard: number, job: number): number {
  if (shard === 0 && job === 0) return seed;
  let h = (seed ^ Math.imul(shard + 1, 0x9e3779b1) ^ Math.imul(job + 1, 0x85ebca77)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) & 0x7fffffff;
}

/** `runs` split over `jobs`: the first `runs mod jobs` shares get one more. */
export function shares(runs: number, jobs: number): number[] {
  return Array.from({ length: jobs }, (_, k) => Math.floor(runs / jobs) + (k < runs % jobs ? 1 : 0)).filter((n) => n > 0);
}

/** Sums what several jobs of one variant saw; the failing job (if any) supplies the counterexample. */
export function mergeOutcomes(parts: readonly VariantOutcome[]): VariantOutcome {
  const first = parts[0];
  if (first === undefined) throw new Error('mergeOutcomes: no outcomes');
  const add = (pick: (o: VariantOutcome) => Readonly<Record<string, number>>) => {
    const out: Record<string, number> = {};
    for (const o of parts) for (const [k, n] of Object.entries(pick(o))) out[k] = (out[k] ?? 0) + n;
    return out;
  };
  const failed = parts.find((o) => o.failed);
  const runs = parts.reduce((n, o) => n + o.runs, 0);
  const sum = (pick: (t: VariantOutcome['faults']) => number) => parts.reduce((n, o) => n + pick(o.faults), 0);
  const faults = {
    injected: add((o) => o.faults.injected),
    aborts: sum((t) => t.aborts),
    restarts: sum((t) => t.restarts),
    leaked: sum((t) => t.leaked),
    collected: sum((t) => t.collected),
  };
  const streams = parts.some((o) => o.streams !== undefined) ? { streams: add((o) => o.streams ?? {}) } : {};
  return { ...(failed ?? first), runs, witnessed: add((o) => o.witnessed), reached: add((o) => o.reached), faults, ...streams };
}

/**
 * The jobs of a `sbkit check --jobs N`: job 0 runs on this thread, jobs 1 … N − 1 on worker threads
 * (check-worker.ts) kept for the whole check, so that their start-up (the TypeScript loader, the
 * modules, a cold JIT: ~0.5 s and more) is paid once and while this thread already checks. (With every
 * job on a worker, this thread only waited: on 2 cores `--jobs 2` was slower than `--jobs 1` at the
 * default budget.)
 *
 * SUBTLE: this thread's job yields to the event loop only at its rare full turns, so a worker's messages
 * wait until it ends; the stop flag and the run counters are shared memory for that reason: a failing
 * worker raises the flag itself, and this thread's own ticks report every job's progress.
 */
export class CheckPool {
  readonly #workers: Worker[];

  constructor(readonly size: number) {
    this.#workers = Array.from({ length: size - 1 }, () => new Worker(new URL('./check-worker.mjs', import.meta.url)));
  }

  /** Runs one variant's jobs (task 0 here, task k on worker k − 1), calling `tick` once per executed run. */
  async run(tasks: readonly VariantTask[], tick: () => void): Promise<VariantOutcome> {
    if (tasks.length > this.size) throw new Error(`CheckPool.run: ${tasks.length} tasks for ${this.size} jobs`);
    const stop = new Int32Array(new SharedArrayBuffer(4));
    const done = new Int32Array(new SharedArrayBuffer(4 * tasks.length));
    let reported = 0;
    const poll = () => {
      let total = 0;
      for (let k = 0; k < tasks.length; k++) total += Atomics.load(done, k);
      for (; reported < total; reported++) tick();
    };
    const timer = setInterval(poll, 100);
    try {
      const here = async (): Promise<VariantOutcome> => {
        const outcome = await checkVariant(tasks[0] as VariantTask, {
          tick: () => {
            Atomics.add(done, 0, 1);
            poll();
          },
          stopped: () => Atomics.load(stop, 0) === 1,
        });
        if (outcome.failed) Atomics.store(stop, 0, 1);
        return outcome;
      };
      const outcomes = await Promise.all([
        here(),
        ...tasks.slice(1).map((task, i) => {
          const job = i + 1;
          const worker = this.#workers[i] as Worker;
          return new Promise<VariantOutcome>((resolve, reject) => {
            const onError = (e: unknown) => reject(e instanceof Error ? e : new Error(String(e)));
            const onExit = (code: number) => reject(new Error(`check job ${job} exited with code ${code}`));
            worker.once('message', (m: { outcome: VariantOutcome }) => {
              worker.off('error', onError);
              worker.off('exit', onExit);
              resolve(m.outcome);
            });
            worker.once('error', onError);
            worker.once('exit', onExit);
            worker.postMessage({ task, job, stop: stop.buffer, done: done.buffer });
          });
        }),
      ]);
      poll();
      return mergeOutcomes(outcomes);
    } finally {
      clearInterval(timer);
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.#workers.map((w) => w.terminate()));
  }
}

/** One variant's jobs: in this thread when there is one, else on the pool. */
export function checkJobs(tasks: readonly VariantTask[], hooks: VariantHooks, pool: CheckPool | undefined): Promise<VariantOutcome> {
  if (tasks.length === 1 || pool === undefined) {
    if (tasks.length !== 1) throw new Error('checkJobs: several jobs need a pool');
    return checkVariant(tasks[0] as VariantTask, hooks);
  }
  if (hooks.onRun !== undefined) throw new Error('checkJobs: a run callback cannot see runs in worker threads');
  return pool.run(tasks, hooks.tick);
}
