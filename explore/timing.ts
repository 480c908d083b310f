/**
 * A seeded virtual-time scheduler implementing impl's `Scheduler` seam.
 *
 * Every scheduling point resumes at `now + delay(site)` of a virtual clock; `drive(run)` repeatedly lets
 * the microtask queue drain, then resumes the earliest pending point (ties: first come, first served by
 * sequence number). Nothing waits on real time, so a run is fast and one seed reproduces it exactly.
 *
 * Invariants:
 * - `now` never decreases: a point is always scheduled at `now + delay` with `delay ≥ 0`.
 * - Exactly one point resumes per step, and only after every task has reached a point or finished
 *   (one `setImmediate` turn drains all microtasks), so the order of resumption alone decides the run.
 * - If the run has not settled and no point is pending, every task waits on something no point will
 *   ever release: `drive` throws `DeadlockError` instead of hanging.
 */
import type { PointSite, RunControl, Scheduler } from '../impl/seams.ts';
import type { POINT_LABELS, PointLabel } from '../vocab/index.ts';
import { type Rng, STREAM, streamFor, unitAt } from './prng.ts';

/** Decides how long (virtual milliseconds) the step after a point takes. */
export interface TimingModel {
  delay(site: PointSite): number;
}

interface Pending {
  readonly at: number;
  readonly seq: number;
  readonly site: PointSite;
  readonly resume: () => void;
}

export class DeadlockError extends Error {
  constructor(
    readonly now: number,
    readonly resumed: number,
    readonly lastSites: readonly PointSite[],
  ) {
    super(
      `deadlock: the run has not finished but no scheduling point is pending ` +
        `(virtual time ${now.toFixed(3)} ms, ${resumed} points resumed; last: ` +
        `${lastSites.map(describeSite).join(' → ') || 'none'})`,
    );
    this.name = 'DeadlockError';
  }
}

function describeSite(site: PointSite): string {
  const who = site.worker === undefined ? `r${site.replica}` : `r${site.replica}w${site.worker}`;
  return site.bytes === undefined ? `${site.label}@${who}` : `${site.label}@${who}(${site.bytes}B)`;
}

/** How many of the last resumed sites a DeadlockError reports. */
const DEADLOCK_TAIL = 6;

export class VirtualTimeScheduler implements Scheduler {
  private clock = 0;
  private seq = 0;
  private resumedCount = 0;
  private readonly heap: Pending[] = [];
  private readonly tail: PointSite[] = [];

  private control: RunControl | undefined;
  private abortIndex = 0;

  /** `aborts`: replicas torn down at these virtual times (ascending), through the run's control. */
  constructor(
    private readonly model: TimingModel,
    private readonly aborts: readonly { readonly at: number; readonly replica: number }[] = [],
  ) {}

  attach(control: RunControl): void {
    this.control = control;
  }

  /** Points of aborted incarnations are dropped, never resumed (impl/seams.ts). */
  readonly honorsOwners = true;

  /** The virtual time in milliseconds. */
  get now(): number {
    return this.clock;
  }

  /** How many points have resumed so far. */
  get resumed(): number {
    return this.resumedCount;
  }

  get pending(): number {
    return this.heap.length;
  }

  point(site: PointSite): Promise<void> {
    const d = this.model.delay(site);
    const delay = Number.isFinite(d) && d > 0 ? d : 0;
    return new Promise<void>((resolve) => {
      this.push({ at: this.clock + delay, seq: this.seq++, site, resume: resolve });
    });
  }

  /** Runs the virtual clock until `run` settles; returns its value or rethrows its error. */
  async drive<T>(run: Promise<T>, onStep?: (resumed: number) => void): Promise<T> {
    const box: { outcome: Outcome<T> } = { outcome: { settled: false } };
    run.then(
      (value) => {
        box.outcome = { settled: true, ok: true, value };
      },
      (error: unknown) => {
        box.outcome = { settled: true, ok: false, error };
      },
    );
    for (;;) {
      await drainMicrotasks();
      const s = box.outcome;
      if (s.settled) {
        if (s.ok) return s.value;
        throw s.error;
      }
      let next = this.pop();
      while (next !== undefined && next.site.owner?.alive === false) next = this.pop();
      if (next === undefined) throw new DeadlockError(this.clock, this.resumedCount, [...this.tail]);
      let aborted = false;
      for (let a = this.aborts[this.abortIndex]; a !== undefined && a.at <= next.at; a = this.aborts[++this.abortIndex]) {
        this.control?.abort(a.replica, `crash at ${a.at.toFixed(1)} ms (--faults)`);
        aborted = true;
      }
      // SUBTLE: the crash may have killed the very incarnation `next` belongs to: then it is dropped too
      // (resuming it would run a dead incarnation's step after its abort event).
      if (aborted && next.site.owner?.alive === false) continue;
      this.clock = next.at;
      this.resumedCount++;
      this.tail.push(next.site);
      if (this.tail.length > DEADLOCK_TAIL) this.tail.shift();
      next.resume();
      onStep?.(this.resumedCount);
    }
  }

  private push(p: Pending): void {
    const h = this.heap;
    h.push(p);
    let i = h.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const pp = h[parent];
      if (pp === undefined || !before(p, pp)) break;
      h[i] = pp;
      i = parent;
    }
    h[i] = p;
  }

  private pop(): Pending | undefined {
    const h = this.heap;
    const top = h[0];
    const last = h.pop();
    if (top === undefined || last === undefined || h.length === 0) return top;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      let best = last;
      const lp = h[l];
      if (lp !== undefined && before(lp, best)) {
        m = l;
        best = lp;
      }
      const rp = h[r];
      if (rp !== undefined && before(rp, best)) {
        m = r;
        best = rp;
      }
      if (m === i) break;
      h[i] = best;
      i = m;
    }
    h[i] = last;
    return top;
  }
}

type Outcome<T> =
  | { readonly settled: false }
  | { readonly settled: true; readonly ok: true; readonly value: T }
  | { readonly settled: true; readonly ok: false; readonly error: unknown };

const before = (a: Pending, b: Pending): boolean => a.at < b.at || (a.at === b.at && a.seq < b.seq);

/** One macrotask turn: Node runs every queued microtask (and nextTick) before a setImmediate callback. */
const drainMicrotasks = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));

// ---------------------------------------------------------------------------------------------------
// The seeded timing model

/**
 * Parameters of the default timing model, in virtual milliseconds and bytes per millisecond.
 *
 * What each cost stands for (the figures are round numbers of the right order, not measurements):
 * - a blob PUT is one S3-like request: a fixed latency plus its bytes over one connection's bandwidth;
 * - a consensus command is one compare-and-set round trip to Postgres/CockroachDB;
 * - encoding turns updates into part bytes on the CPU of whoever builds the part: a shared batch's
 *   bytes are encoded as they are pushed (on the pushing worker), an own batch's when it is flushed;
 * - a *straggler* is a worker that, for one description, is much slower: busy with other operators,
 *   descheduled, on a loaded core: it becomes ready late. See `stragglerProbability`.
 */
export interface TimingParams {
  /** Length of one batch interval: the delay before the desired frontier advances. */
  readonly intervalMs: number;
  /** Workers become ready for a description at `readinessMeanMs · Exp(1)` after it is minted (capped). */
  readonly readinessMeanMs: number;
  /** Upper bound on a worker's readiness delay. */
  readonly readinessCapMs: number;
  /** Fixed latency of one blob PUT. */
  readonly blobBaseMs: number;
  /** Blob upload bandwidth of one connection. */
  readonly blobBytesPerMs: number;
  /** Fixed latency of one consensus command (a round trip). */
  readonly consensusBaseMs: number;
  /** Encoding throughput: shared pushes (on the pushing worker) and own batches' blob parts (on their worker). */
  readonly encodeBytesPerMs: number;
  /** Every step costs up to this much extra, uniformly. */
  readonly jitterMs: number;
  /**
   * Each worker is, independently for each description (per replica, worker and n-th description, drawn
   * from the seed alone, so every variant meets the same stragglers), a straggler with this probability.
   * 0 = none (the default).
   */
  readonly stragglerProbability: number;
  /**
   * A straggler gets to that description this many times later: its readiness delay is
   * `slowdown · min(Exp(mean readinessMeanMs), readinessCapMs)` instead of the same draw unscaled (its
   * thread was busy elsewhere; the draw itself is the one it would have had). What it does once ready
   * costs what it costs every worker. 1 = no effect.
   */
  readonly stragglerSlowdown: number;
}

export const DEFAULT_TIMING: TimingParams = {
  intervalMs: 1000,
  readinessMeanMs: 0.25,
  readinessCapMs: 5,
  blobBaseMs: 8,
  blobBytesPerMs: 50_000,
  consensusBaseMs: 4,
  encodeBytesPerMs: 50_000,
  jitterMs: 0.05,
  stragglerProbability: 0,
  stragglerSlowdown: 1,
};

/** The straggler setting `--stragglers P,SLOWDOWN` gives when only P is swept. */
export const DEFAULT_STRAGGLER_SLOWDOWN = 100;

/** The timing a setup runs under: its own (or the default), with its stragglers (if any) applied. */
export function timingOf(s: { readonly timing?: TimingParams | undefined; readonly stragglers?: { readonly probability: number; readonly slowdown: number } | undefined }): TimingParams {
  const t = s.timing ?? DEFAULT_TIMING;
  return s.stragglers === undefined ? t : { ...t, stragglerProbability: s.stragglers.probability, stragglerSlowdown: s.stragglers.slowdown };
}

/** What kind of step a point label is, for the timing model. */
export type StepKind = 'frontier' | 'readiness' | 'blob' | 'consensus' | 'encode' | 'retry' | 'restart' | 'other';

/** Backoff before a retried storage call (persist's retry_external starts in the tens of ms). */
export const RETRY_BACKOFF_MS = 16;
/** A replica process restarting after a crash or teardown, before its sink runs again. */
export const RESTART_MS = 500;

/**
 * Each label's step kind, spelled out (a `Record` over vocab's POINT_LABELS: a new label is a compile
 * error here until it has a cost). `other` costs only jitter: scheduling points that are not I/O or
 * encoding (the barrier's wait is the peers' time; a compare-and-set's send is charged as its call).
 * A site that carries a delay (PointSite `delay`) is a timer whatever its label: it costs exactly that
 * delay, no jitter (it fires when it is due), and draws nothing from the jitter stream.
 */
const STEP_KINDS: Readonly<Record<(typeof POINT_LABELS)[number], StepKind>> = {
  'input.advance': 'frontier',
  mint: 'other',
  'mint.poll': 'other',
  'write.stage': 'readiness',
  'write.hand': 'other',
  'write.own': 'other',
  'shared.open': 'encode',
  'shared.push': 'encode',
  'shared.finish': 'encode',
  'shared.finish.end': 'encode',
  'shared.drop': 'encode',
  'builder.recv': 'encode',
  'barrier.skip': 'other',
  'barrier.register': 'other',
  'barrier.wake': 'other',
  // a timer: its site carries the deadline, which is all it costs
  'barrier.timeout': 'other',
  sweep: 'other',
  'sweep.release': 'other',
  append: 'other',
  'append.delete': 'other',
  'blob.set': 'blob',
  'blob.delete': 'blob',
  'blob.list': 'blob',
  'consensus.head': 'consensus',
  'consensus.cas': 'consensus',
  'cas.send': 'other',
  'cleanup.writers': 'consensus',
  'cleanup.state': 'consensus',
  'replica.restart': 'restart',
  'writer.retire': 'other',
  'cleanup.retry': 'consensus',
};

export function stepKind(label: PointLabel): StepKind {
  return label.startsWith('retry.') ? 'retry' : STEP_KINDS[label as (typeof POINT_LABELS)[number]];
}

/** Whether worker `worker` of `replica` straggles on its n-th description (a pure function of the seed). */
export function isStraggler(seed: number, params: TimingParams, replica: number, worker: number, n: number): boolean {
  return params.stragglerProbability > 0 && unitAt(seed, STREAM.straggler, replica, worker, n) < params.stragglerProbability;
}

/**
 * The default timing model. Readiness and stragglers are drawn per (replica, worker, n-th description of
 * that worker) from the seed alone, so every variant sees the same readiness pattern; jitter comes from
 * one seeded stream in the order points occur.
 *
 * A blob PUT on behalf of a worker
 * (`site.worker` set) is that worker's own batch (impl/: a shared builder writes on behalf of its
 * process), so its bytes are encoded there too; a shared batch's bytes were encoded when pushed.
 */
export function seededTiming(seed: number, params: TimingParams = DEFAULT_TIMING): TimingModel {
  const jitter: Rng = streamFor(seed, STREAM.jitter);
  const stageCount = new Map<string, number>();
  return {
    delay(site: PointSite): number {
      if (site.delay !== undefined) return site.delay;
      const j = jitter.next() * params.jitterMs;
      const bytes = site.bytes ?? 0;
      const key = `${site.replica}/${site.worker ?? -1}`;
      switch (stepKind(site.label)) {
        case 'frontier':
          return params.intervalMs;
        case 'readiness': {
          const n = stageCount.get(key) ?? 0;
          stageCount.set(key, n + 1);
          const straggles = site.worker !== undefined && isStraggler(seed, params, site.replica, site.worker, n);
          const s = straggles ? params.stragglerSlowdown : 1;
          const u = unitAt(seed, STREAM.readiness, site.replica, site.worker ?? -1, n);
          const d = -Math.log(1 - u) * params.readinessMeanMs;
          return s * Math.min(d, params.readinessCapMs) + j;
        }
        case 'blob': {
          const ownEncode = site.label === 'blob.set' && site.worker !== undefined ? bytes / params.encodeBytesPerMs : 0;
          return ownEncode + params.blobBaseMs + bytes / params.blobBytesPerMs + j;
        }
        case 'consensus':
          return params.consensusBaseMs + j;
        case 'encode':
          return bytes / params.encodeBytesPerMs + j;
        case 'retry':
          return RETRY_BACKOFF_MS + j;
        case 'restart':
          return RESTART_MS + j;
        case 'other':
          return j;
      }
    },
  };
}
