/**
 * The fault part of a schedule (`sbkit check --faults [RATE]`): which storage calls fail and how, which
 * replicas are aborted at which scheduling step, and when the run heals. One shrinkable value, so a
 * counterexample shrinks to the few faults that matter; it is part of the replay token.
 *
 * A run has two phases (TigerBeetle's VOPR): a safety phase, up to scheduling step `heal`, in which
 * storage calls fail and replicas are aborted as the lists say and every `always` property must hold;
 * then a liveness phase with no faults, in which the run must converge (every replica finishes; the
 * shard holds exactly the desired collection) or the check reports what is still pending.
 *
 * Rates, from RATE (default 0.1), per fault site:
 * - in half the schedules every storage rate below is HOT (4·RATE, at most 0.4) instead of RATE (swarm
 *   testing: failures pile up in some runs rather than thinning out evenly over all);
 * - a storage call fails transiently with probability RATE;
 * - it ends indeterminate with RATE/4 (half applied, half not; on reads, which cannot apply, it is a
 *   transient failure);
 * - it fails permanently with RATE/20 (the replica goes down as a crash would, and restarts);
 * - a third of the schedules override their first compare-and-sets (indeterminate-applied at 3·RATE),
 *   and half their first blob deletes (at the hot rates): both are rare calls by index;
 * - a run aborts a replica (teardown or crash) at one or two scheduling steps with probability
 *   min(1, 4·RATE) (0.4 at the default); each step is drawn at one of three scales (≤ 40, ≤ 150,
 *   ≤ 600), since runs take from a dozen steps (small workloads, the common case) to hundreds.
 */
import fc from 'fast-check';
import type { StorageFault, StorageOp, TraceEvent } from '../vocab/index.ts';
import type { FaultPlan } from '../impl/seams.ts';

export interface AbortAt {
  readonly step: number;
  readonly replica: number;
}

export interface FaultSchedule {
  /** Outcome codes of the storage calls in the order they are made (FAULT_CODES); ok past the list. */
  readonly storage: readonly number[];
  /** Replicas aborted at scheduling steps (before `heal`). */
  readonly aborts: readonly AbortAt[];
  /** The first scheduling step of the liveness phase: from here on nothing fails. */
  readonly heal: number;
  /** Outcome codes of the first compare-and-sets (FAULT_CODES), overriding `storage` for those calls:
   * a writer's claim, the first appends, an as-of bump. Empty in most schedules. */
  readonly cas?: readonly number[];
  /** Outcome codes of the first blob deletes (FAULT_CODES), overriding `storage` for those calls: the
   * deletes of a losing append's batches, of a superseded description's batches, of leaked blobs. Empty
   * in most schedules. */
  readonly deletes?: readonly number[];
}

/** Storage outcome codes: 0 is ok (what everything shrinks to). */
export const FAULT_CODES = ['ok', 'transient', 'indeterminate-applied', 'indeterminate-lost', 'permanent'] as const;
export type FaultCode = (typeof FAULT_CODES)[number];

export const DEFAULT_FAULT_RATE = 0.1;

/** Storage calls and scheduling steps a fault schedule covers (runs rarely take more). */
export const FAULT_HORIZON = 600;
/** How much hotter a hot schedule's storage calls fail (see faultScheduleArb). */
const HOT_STORAGE = 4;
/** The compare-and-sets a hot schedule covers (see faultScheduleArb). */
const HOT_CAS = 4;
/** The blob deletes a hot-delete schedule covers (see faultScheduleArb). */
const HOT_DELETES = 8;

/** Weights (per mille) of each code at RATE. */
export function faultWeights(rate: number): Record<FaultCode, number> {
  const w = (p: number) => Math.round(1000 * p);
  const transient = w(rate);
  const applied = w(rate / 8);
  const lost = w(rate / 8);
  const permanent = w(rate / 20);
  return { ok: Math.max(0, 1000 - transient - applied - lost - permanent), transient, 'indeterminate-applied': applied, 'indeterminate-lost': lost, permanent };
}

export function faultScheduleArb(rate: number, maxReplicas: number): fc.Arbitrary<FaultSchedule> {
  const weights = faultWeights(rate);
  const codeAt = (w: Record<FaultCode, number>) => fc.oneof(...FAULT_CODES.map((c, i) => ({ weight: w[c], arbitrary: fc.constant(i) })).filter((x) => x.weight > 0));
  const code = codeAt(weights);
  // Swarm-style (swarm.ts): half the schedules fail storage calls at HOT_STORAGE times the rate (at
  // most 0.4, never below the rate), so that retries, mismatches after failures and permanent crashes
  // (restarts) pile up in some runs instead of thinning out evenly over all of them.
  const hotStorage = codeAt(faultWeights(Math.max(rate, Math.min(0.4, HOT_STORAGE * rate))));
  // A run's length is not known when its schedule is drawn (from a dozen steps to hundreds): abort steps
  // at three scales, so that short runs, the most common, are aborted too, mid-run rather than after.
  const step = fc.oneof(fc.nat({ max: 40 }), fc.nat({ max: 150 }), fc.nat({ max: FAULT_HORIZON }));
  // Replica 0 in half the aborts: every workload has it, and most have no other (swarm.ts), where an
  // abort of a missing replica does nothing.
  const replica = fc.oneof(fc.constant(0), fc.nat({ max: maxReplicas - 1 }));
  const abort = fc.record({ step, replica });
  const pAbort = Math.min(1, 4 * rate);
  const aborts = fc.oneof(
    { weight: Math.round(1000 * (1 - pAbort)), arbitrary: fc.constant([] as AbortAt[]) },
    { weight: Math.round(1000 * pAbort), arbitrary: fc.array(abort, { minLength: 1, maxLength: 2 }) },
  );
  // A third of the schedules start hot: each of their first HOT_CAS compare-and-sets (a writer's claim,
  // the first appends, an as-of bump) ends indeterminate-applied with probability 3·RATE, so an
  // indeterminate bump, rare by call index alone, is not left to chance.
  const applied = Math.round(3000 * rate);
  const hotWeights = { ...weights, 'indeterminate-applied': applied, ok: Math.max(0, weights.ok - (applied - weights['indeterminate-applied'])) };
  const hot = fc.oneof(...FAULT_CODES.map((c, i) => ({ weight: hotWeights[c], arbitrary: fc.constant(i) })).filter((x) => x.weight > 0));
  const cas = fc.oneof({ weight: 2, arbitrary: fc.constant([] as number[]) }, { weight: 1, arbitrary: fc.array(hot, { minLength: HOT_CAS, maxLength: HOT_CAS }) });
  // Deletes are few among a run's storage calls (a lost append's batches, a superseded description's,
  // leaked blobs), so faults by call index rarely land on one: half the schedules fail each of
  // their first HOT_DELETES deletes at the hot rate, so that the error paths of cleanup (a delete that
  // fails and must be retried or reported, never swallowed) are tried often.
  const deletes = fc.oneof({ weight: 1, arbitrary: fc.constant([] as number[]) }, { weight: 1, arbitrary: fc.array(hotStorage, { minLength: HOT_DELETES, maxLength: HOT_DELETES }) });
  return fc
    .record({
      storage: fc.oneof(fc.array(code, { maxLength: FAULT_HORIZON, size: 'max' }), fc.array(hotStorage, { maxLength: FAULT_HORIZON, size: 'max' })),
      cas,
      deletes,
      aborts,
      heal: fc.integer({ min: 0, max: FAULT_HORIZON }),
    })
    .map(({ cas: first, deletes: dels, ...rest }): FaultSchedule => ({
      ...rest,
      ...(first.length === 0 ? {} : { cas: first }),
      ...(dels.length === 0 ? {} : { deletes: dels }),
    }));
}

const WRITES: ReadonlySet<StorageOp> = new Set<StorageOp>(['consensus.cas', 'blob.set', 'blob.delete']);

/**
 * The impl's FaultPlan for a fault schedule: the n-th storage call gets code n, unless the run reached
 * its liveness phase (`step()` ≥ heal). Counts what it injected.
 */
export class SchedulePlan implements FaultPlan {
  #next = 0;
  #cas = 0;
  #deletes = 0;
  readonly injected: Record<string, number> = {};

  constructor(
    private readonly schedule: FaultSchedule,
    private readonly step: () => number,
  ) {}

  decide(op: StorageOp): StorageFault | 'ok' {
    if (this.step() >= this.schedule.heal) return 'ok';
    const listed = this.schedule.storage[this.#next++] ?? 0;
    const override = op === 'consensus.cas' ? this.schedule.cas?.[this.#cas++] : op === 'blob.delete' ? this.schedule.deletes?.[this.#deletes++] : undefined;
    const code = FAULT_CODES[override ?? listed] ?? 'ok';
    if (code === 'ok') return 'ok';
    const outcome: StorageFault = (code === 'indeterminate-applied' || code === 'indeterminate-lost') && !WRITES.has(op) ? 'transient' : code;
    this.injected[outcome] = (this.injected[outcome] ?? 0) + 1;
    return outcome;
  }
}

export function describeFaults(f: FaultSchedule): string {
  const faulted = f.storage.flatMap((c, i) => (c === 0 ? [] : [`#${i} ${FAULT_CODES[c] ?? '?'}`]));
  // The overrides in full: an ok there is no fault, but it replaces the storage code of that call.
  const overrides = (what: string, list: readonly number[] | undefined): string =>
    list === undefined || list.length === 0 ? '' : `; first ${what} (over the storage codes of those calls) [${list.map((c) => FAULT_CODES[c] ?? '?').join(', ')}]`;
  const aborts = f.aborts.map((a) => `r${a.replica} at step ${a.step}`);
  return `faults until step ${f.heal}: storage calls [${faulted.join(', ')}]${overrides('compare-and-sets', f.cas)}${overrides('deletes', f.deletes)}; aborts [${aborts.join(', ')}]`;
}

/** Parses `--faults [RATE]`: a probability in [0, 1]; throws naming the flag otherwise. */
export function parseFaultRate(raw: number): number {
  if (typeof raw !== 'number' || Number.isNaN(raw) || raw < 0 || raw > 1) {
    throw new RangeError(`--faults: expected a rate in [0, 1], got ${String(raw)}`);
  }
  return raw;
}

/**
 * `permanent-failure-downs-replica`: a permanent storage failure that a replica's incarnation saw takes
 * that incarnation down (persist: a call that retrying cannot help is an error of the process, not
 * something to retry). So every permanent `fault` not seen by a supervisor step (`by: 'supervisor'`: a
 * restart, retirement or cleanup starts over instead) is followed by an `abort` of its replica before the
 * replica's next `restart`, or comes from an incarnation that is already down (its tasks end at their
 * next point). A retry of such a call is invisible everywhere else: the fault plan's permanent failure is
 * one-shot, so the retried call succeeds and the run ends as a clean one would (Stryker: retry.ts's
 * `retryable` made always true survived every other check). Undefined when it holds, else why not.
 */
export function permanentFailuresUnheeded(trace: readonly TraceEvent[], settled: boolean): string | undefined {
  /** Per replica: down (aborted, not restarted yet), and the permanent faults still waiting for an abort. */
  const down = new Map<number, boolean>();
  const waiting = new Map<number, number[]>();
  const unheeded = (r: number, i: number, until: string): string => {
    const e = trace[i] as Extract<TraceEvent, { kind: 'fault' }>;
    return `replica ${r}'s incarnation saw a permanent storage failure (event #${i}: ${e.op}) and went on: no abort of replica ${r} followed ${until}`;
  };
  for (let i = 0; i < trace.length; i++) {
    const e = trace[i] as TraceEvent;
    if (e.kind === 'abort') {
      down.set(e.replica, true);
      waiting.delete(e.replica);
    } else if (e.kind === 'restart') {
      // A restart with a fault still waiting: that incarnation went on. Reported now, so that a later
      // abort of the new incarnation cannot count for it.
      const open = waiting.get(e.replica);
      if (open !== undefined && open.length > 0) return unheeded(e.replica, open[0] as number, 'before its next restart');
      down.set(e.replica, false);
    } else if (e.kind === 'fault' && e.fault === 'permanent' && e.by === undefined && down.get(e.replica) !== true) {
      waiting.set(e.replica, [...(waiting.get(e.replica) ?? []), i]);
    }
  }
  // A fault still waiting at the end is unheeded if the run settled (an unsettled run may have stopped
  // before the abort).
  if (!settled) return undefined;
  for (const [r, open] of waiting) if (open.length > 0) return unheeded(r, open[0] as number, 'before the run ended');
  return undefined;
}
