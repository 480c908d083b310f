/** Test helpers: small configs and a driver that scripts traces through the model's own predictions. */
import type { TraceEvent, Variant } from '../../vocab/index.ts';
import type { ModelConfig, Update } from '../config.ts';
import { enabledActions, initialState, predict, step, successors, type Successor, type SystemState } from '../system.ts';
import { xorshift32 } from '../../random/prng.ts';

export const persist = { blobTargetSize: 64, inlineSingleMaxBytes: 32, inlineTotalMaxBytes: 1 << 20 };

export function config(over: Partial<ModelConfig> & { variant: Variant }): ModelConfig {
  return {
    replicas: 1,
    processes: 1,
    workersPerProcess: 2,
    intervals: 1,
    updates: [
      { id: 0, time: 0, worker: 0, size: 10 },
      { id: 1, time: 0, worker: 1, size: 100 },
    ],
    persist,
    maxBytesChoices: [50, 1000],
    ...over,
  };
}

/** The pinned tiny configuration: 2 workers, 1 process, 1 interval. */
export const tiny = (variant: Variant): ModelConfig => config({ variant });

export const u = (id: number, time: number, worker: number, size: number): Update => ({ id, time, worker, size });

/** W workers of one process, one update each: 10 B for even workers, 100 B for odd (`sbkit model --check`'s workload). */
export const alternating = (variant: Variant, workers: number, over: Partial<ModelConfig> = {}): ModelConfig =>
  config({
    variant,
    workersPerProcess: workers,
    updates: Array.from({ length: workers }, (_, w) => u(w, 0, w, w % 2 === 0 ? 10 : 100)),
    maxBytesChoices: [0, 50, 1000],
    ...over,
  });

/** Two replicas of two workers, one 10 B update each, every worker sharing. */
export const twoReplicas = (variant: Variant): ModelConfig =>
  config({ variant, replicas: 2, workersPerProcess: 2, updates: [u(0, 0, 0, 10), u(1, 0, 1, 10)], maxBytesChoices: [1000] });

/**
 * Two replicas × two processes × two workers over two intervals, one update per worker plus `extra`:
 * the configuration the random walks use.
 */
export const wide = (over: Partial<ModelConfig> & { variant: Variant }, ...extra: Update[]): ModelConfig =>
  config({
    replicas: 2,
    processes: 2,
    workersPerProcess: 2,
    intervals: 2,
    updates: [u(0, 0, 0, 10), u(1, 0, 1, 40), u(2, 1, 2, 70), u(3, 1, 3, 5), ...extra],
    ...over,
  });

const none = { hollow: 0, inline: 0 };
type Kind = TraceEvent['kind'];

/** Placeholder events: actor and inputs given, predicted fields filled by the model. */
export const ev = {
  frontier: (replica = 0): TraceEvent => ({ kind: 'frontier', replica, upper: 0 }),
  mint: (maxBytes: number, replica = 0): TraceEvent => ({
    kind: 'mint',
    replica,
    desc: { lower: 0, upper: 0, appendWorker: 0, sharedId: 0, maxBytes, barrier: false },
  }),
  stage: (worker: number, process = 0, replica = 0): TraceEvent => ({
    kind: 'stage', replica, process, worker, sharedId: 0, updates: [], bytes: 0, route: 'none',
  }),
  open: (worker: number, process = 0, replica = 0): TraceEvent => ({ kind: 'open', replica, process, worker, sharedId: 0, created: false, participants: null }),
  push: (worker: number, updates: number[], process = 0, replica = 0): TraceEvent => ({
    kind: 'push', replica, process, worker, sharedId: 0, updates,
  }),
  finishBegin: (worker: number, process = 0, replica = 0): TraceEvent => ({
    kind: 'finish-begin', replica, process, worker, sharedId: 0, last: false,
  }),
  finishEnd: (worker: number, process = 0, replica = 0): TraceEvent => ({
    kind: 'finish-end', replica, process, worker, sharedId: 0, received: null,
  }),
  skip: (worker: number, process = 0, replica = 0): TraceEvent => ({ kind: 'skip', replica, process, worker, sharedId: 0, early: false }),
  ownBatch: (worker: number, process = 0, replica = 0): TraceEvent => ({
    kind: 'own-batch', replica, process, worker, sharedId: 0, batch: { updates: [], parts: none, partBytes: [] },
  }),
  hand: (worker: number, process = 0, replica = 0): TraceEvent => ({ kind: 'hand', replica, process, worker, sharedId: 0, batches: [] }),
  append: (replica = 0): TraceEvent => ({
    kind: 'append', replica, lower: 0, upper: 0, batches: 0, parts: none, runs: 0, updates: [], result: { ok: true },
  }),
  delete: (replica = 0): TraceEvent => ({ kind: 'delete', replica, lower: 0, batches: 0, reason: 'mismatch' }),
  backpressure: (replica = 0): TraceEvent => ({ kind: 'backpressure', replica, lower: 0, inlineBytes: 0, adding: 0, flushed: 0 }),
  bump: (replica = 0): TraceEvent => ({ kind: 'bump', replica, from: 0, to: 0 }),
  /** The sweep of `worker`'s builder() call (predicted: what it removes, which entry it visits). */
  sweep: (worker: number, process = 0, replica = 0): TraceEvent => ({ kind: 'sweep', replica, process, worker, removed: [] }),
  sweepHold: (worker: number, process = 0, replica = 0): TraceEvent => ({ kind: 'sweep-hold', replica, process, worker, sharedId: 0 }),
  sweepRelease: (worker: number, process = 0, replica = 0): TraceEvent => ({
    kind: 'sweep-release', replica, process, worker, sharedId: 0, closed: false,
  }),
};

/** Scripts a run: each `do` fills the predicted fields (and the live sharedId) and steps the model. */
export class Driver {
  state: SystemState;
  readonly trace: TraceEvent[] = [];
  constructor(readonly cfg: ModelConfig) {
    this.state = initialState(cfg);
  }
  do(placeholder: TraceEvent): TraceEvent {
    const live = this.state.replicas[placeholder.replica]?.mint.context.live;
    const e = 'sharedId' in placeholder && 'worker' in placeholder && live ? { ...placeholder, sharedId: live.sharedId } : placeholder;
    // An open is the end of a builder() call: the clean sweep the call owes first (if any) comes with it.
    if (e.kind === 'open' && !predict(this.cfg, this.state, e).ok && predict(this.cfg, this.state, ev.sweep(e.worker, e.process, e.replica)).ok) {
      this.do(ev.sweep(e.worker, e.process, e.replica));
    }
    const p = predict(this.cfg, this.state, e);
    if (!p.ok) throw new Error(`not enabled: ${p.reason}`);
    const r = step(this.cfg, this.state, p.expected);
    if (!r.ok) throw new Error(r.reason);
    this.state = r.state;
    this.trace.push(p.expected);
    return p.expected;
  }
  all(...events: TraceEvent[]): TraceEvent[] {
    return events.map((e) => this.do(e));
  }
  /** Takes the first enabled action of that kind (and worker). */
  take(kind: Kind, worker?: number): TraceEvent {
    const e = enabledActions(this.cfg, this.state).find(
      (x) => x.kind === kind && (worker === undefined || ('worker' in x && x.worker === worker)),
    );
    if (e === undefined) throw new Error(`no enabled ${kind}${worker === undefined ? '' : ` for worker ${worker}`}`);
    return this.do(e);
  }
  /** Runs enabled actions, always the first one, until none is enabled. */
  drain(limit = 10_000): void {
    for (let i = 0; i < limit; i++) {
      const e = enabledActions(this.cfg, this.state)[0];
      if (e === undefined) return;
      this.do(e);
    }
    throw new Error('drain: no end');
  }
}

/**
 * Walks from the initial state, taking a `pick`ed enabled action, until none is enabled. `visit` sees each
 * non-final state with its successors before the pick.
 */
export function randomWalk(
  cfg: ModelConfig,
  pick: (n: number) => number,
  visit: (state: SystemState, next: readonly Successor[]) => void = () => {},
): { readonly trace: readonly TraceEvent[]; readonly state: SystemState } {
  const trace: TraceEvent[] = [];
  let state = initialState(cfg);
  for (let next = successors(cfg, state); next.length > 0; next = successors(cfg, state)) {
    visit(state, next);
    const chosen = next[pick(next.length)] as Successor;
    trace.push(chosen.event);
    state = chosen.next;
  }
  return { trace, state };
}

/** Seeded xorshift for random walks (tests only). */
export function rng(seed: number): (n: number) => number {
  const next = xorshift32(seed);
  return (n) => next() % n;
}
