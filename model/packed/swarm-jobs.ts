/**
 * A swarm (swarm.ts) of many searches, spread over threads: thread j runs searches j, j + J, j + 2J …
 * until its share of the budget is spent — a number of searches, states, and a wall-clock deadline.
 * With a number of searches and no other limit that ends them early, the swarm is the same whatever
 * the threads: each search is a function of its seed alone.
 */
import { Worker } from 'node:worker_threads';
import type { Property } from '../../spec/properties.ts';
import type { ModelConfig } from '../config.ts';
import { Swarm, shortestFinds, type SwarmFind, type SwarmRun, type SwarmShape } from './swarm.ts';

export interface SwarmOptions extends SwarmShape {
  readonly properties: readonly Property[];
  readonly seed: number;
  /** How many searches (null: until the states or the time run out). */
  readonly searches: number | null;
  /** States over every search together. */
  readonly maxStates: number;
  /** Wall-clock budget in ms, and the clock (epoch ms). */
  readonly maxMillis?: number;
  readonly jobs: number;
}

/** What one thread is asked to run. */
export interface ShareRequest extends SwarmShape {
  readonly cfg: ModelConfig;
  readonly properties: readonly string[];
  readonly seed: number;
  readonly first: number;
  readonly step: number;
  readonly searches: number | null;
  readonly maxStates: number;
  readonly deadline: number | null;
}

/** Runs searches first, first + step … of the swarm in this thread, within the budget. */
export function runShare(r: ShareRequest, properties: readonly Property[]): SwarmRun {
  const swarm = new Swarm(r.cfg, properties, r);
  let searches = 0;
  let states = 0;
  let deepest = 0;
  const finds: SwarmFind[] = [];
  for (let k = r.first; r.searches === null || k < r.searches; k += r.step) {
    if (states >= r.maxStates || (r.deadline !== null && Date.now() >= r.deadline)) break;
    const one = swarm.search(k, r.seed + k);
    searches += 1;
    states += one.states;
    deepest = Math.max(deepest, one.deepest);
    finds.push(...one.finds);
  }
  return { searches, states, deepest, finds: shortestFinds(finds) };
}

/** The swarm over `opts.jobs` threads (1: this thread). */
export async function runSwarm(cfg: ModelConfig, opts: SwarmOptions): Promise<SwarmRun> {
  const J = opts.jobs;
  if (!Number.isInteger(J) || J < 1) throw new RangeError(`swarm: jobs must be a positive integer, got ${J}`);
  if (opts.searches === null && opts.maxMillis === undefined && !Number.isFinite(opts.maxStates)) {
    throw new RangeError('swarm: give it a budget (a number of searches, states or seconds)');
  }
  const share = (j: number): ShareRequest => ({
    cfg,
    properties: opts.properties.map((p) => p.name),
    seed: opts.seed,
    first: j,
    step: J,
    searches: opts.searches,
    maxStates: Math.ceil(opts.maxStates / J),
    deadline: opts.maxMillis === undefined ? null : Date.now() + opts.maxMillis,
    depth: opts.depth,
    statesPerSearch: opts.statesPerSearch,
    symmetry: opts.symmetry,
    por: opts.por,
  });
  if (J === 1) return runShare(share(0), opts.properties);
  const runs = await Promise.all(
    Array.from({ length: J }, (_, j) => {
      const worker = new Worker(new URL('./swarm-worker.mjs', import.meta.url));
      return new Promise<SwarmRun>((resolve, reject) => {
        worker.once('message', (m: SwarmRun) => resolve(m));
        worker.once('error', reject);
        worker.once('exit', (code) => {
          if (code !== 0) reject(new Error(`swarm: thread ${j} exited with code ${code}`));
        });
        worker.postMessage(share(j));
      }).finally(() => void worker.terminate());
    }),
  );
  return {
    searches: runs.reduce((n, r) => n + r.searches, 0),
    states: runs.reduce((n, r) => n + r.states, 0),
    deepest: Math.max(0, ...runs.map((r) => r.deepest)),
    finds: shortestFinds(runs.flatMap((r) => r.finds)),
  };
}
