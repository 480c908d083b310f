/**
 * Minimization after fast-check's shrinking.
 *
 * fast-check shrinks each field towards its own minimum, which leaves local minima a person would not:
 * a failing boundary load in the second interval cannot move to the first (that needs two changes at
 * once), a replica or a process that plays no part stays. These passes try structural simplifications
 * — drop an interval, any replica, a process, a worker; empty a load; reset a tunable; move a fault
 * earlier; drop schedule choices — and keep each one after which the same failure (`sameFailure`)
 * still shows. Greedy,
 * to a fixed point, with a bounded number of runs; each pass goes on from the neighbour it kept. Every such neighbour keeps the interleaving that
 * failed, which may reach the failure late: then fresh schedules on the workload reached, the shortest
 * failing one kept, and the greedy passes again; last, once more with the reorders (another pending
 * point picked at a step or two, kept only when shorter). Shorter means fewer events, or as many and an
 * earlier divergence (the events a reader follows to where the implementation went wrong).
 */
import type { BugName } from '../vocab/index.ts';
import { sharesAtAll, variantMeta } from '../impl/variants/index.ts';
import { defaultBarrier } from '../model/variants/index.ts';
import { runOnce, type Failure, type RunReport } from './harness.ts';
import { PCT_HORIZON, PCT_SHORT_HORIZON, type Schedule } from './schedule.ts';
import { DEFAULT_NO_DATA, DEFAULT_SINK, INLINE_SINGLE_MAX, THRESHOLD, type LoadClass, type Workload } from './workload.ts';
import { xorshift32 } from '../random/prng.ts';
import { FAULT_CODES } from './faults.ts';

export interface Candidate {
  readonly workload: Workload;
  readonly schedule: Schedule;
  /** The shape changed (an interval, replica, process or worker fewer): the old choices index
   * different points now, so fresh schedules are tried too. */
  readonly reshaped?: boolean;
  /** Kept only when strictly shorter (a neighbour that is no simpler, only another interleaving). */
  readonly strict?: boolean;
}

/** Fresh schedules tried for a reshaped candidate whose old schedule no longer fails. */
const RESCHEDULES = 25;

export interface Minimized {
  readonly report: RunReport;
  /** Simplifications kept, and runs spent looking for them. */
  readonly kept: number;
  readonly tried: number;
}

/** Where a counterexample goes wrong: the events up to and including the first where the model
 * diverged (the whole trace when only a property, the audit or liveness failed). */
export function divergenceOf(r: Pick<RunReport, 'trace' | 'failures'>): number {
  const at = r.failures.find((f) => f.at !== undefined)?.at;
  return at === undefined ? r.trace.length : Math.min(at + 1, r.trace.length);
}

/** `f` is the failure `target` was, for a shorter counterexample: the same check; or, for a cost check,
 * the model refusing the trace (harness.ts judges cost only on a trace the model accepted, from the
 * model's prediction: where a shorter run shows the same fault as a refused event, no cost is judged). */
export function sameFailure(target: Pick<Failure, 'check' | 'kind'>, f: Pick<Failure, 'check' | 'kind'>): boolean {
  return f.check === target.check || (target.kind === 'cost' && f.kind === 'refinement');
}

/** `a` is no longer than `b`: fewer events, or as many and a divergence no later. */
export function noLonger(a: RunReport, b: RunReport): boolean {
  return a.trace.length < b.trace.length || (a.trace.length === b.trace.length && divergenceOf(a) <= divergenceOf(b));
}

/** `a` is shorter than `b`: fewer events, or as many and an earlier divergence. */
export function shorter(a: RunReport, b: RunReport): boolean {
  return a.trace.length < b.trace.length || (a.trace.length === b.trace.length && divergenceOf(a) < divergenceOf(b));
}

/** Greedy neighbours to a fixed point, then up to `scheduleRounds` rounds of fresh schedules for the
 * workload reached, each followed by the greedy passes again; last, the greedy passes with the reorders. */
export async function minimize(start: RunReport, bug: BugName | undefined, maxRuns = MAX_RUNS, scheduleRounds = SCHEDULE_ROUNDS): Promise<Minimized> {
  const target = start.failures[0];
  if (target === undefined) return { report: start, kept: 0, tried: 0 };
  let best = start;
  let kept = 0;
  // Runs of the neighbours and fresh schedules (at most `maxRuns`), and of the reorders (at most
  // `REORDER_RUNS`, a budget of their own: they never take runs from the simplifications).
  let greedy = 0;
  let reordered = 0;
  const fails = (r: RunReport): boolean => r.failures.some((f) => sameFailure(target, f));
  // Greedy, to a fixed point: the first neighbour failing the same way and no longer (a reorder:
  // shorter) is kept, and the next pass goes on from where it was found (the neighbours before it were
  // just tried), round the list, until a whole turn keeps nothing.
  const descend = async (withReorders: boolean): Promise<void> => {
    let from = 0;
    const left = (): boolean => greedy < maxRuns || (withReorders && reordered < REORDER_RUNS);
    while (left()) {
      const list = [...candidates({ workload: best.workload, schedule: best.schedule }), ...(withReorders ? reorders(best, best.schedulerLog) : [])];
      let keptAt = -1;
      for (let k = 0; k < list.length && keptAt < 0 && left(); k++) {
        const i = (from + k) % list.length;
        const c = list[i] as Candidate;
        const strict = c.strict === true;
        const schedules = c.reshaped ? [c.schedule, ...shiftedFaults(c.schedule), ...reschedules(c.schedule, greedy)] : [c.schedule];
        for (const schedule of schedules) {
          if (strict ? reordered >= REORDER_RUNS : greedy >= maxRuns) break;
          if (strict) reordered += 1;
          else greedy += 1;
          const r = await runOnce(c.workload, schedule, bug);
          if (fails(r) && (strict ? shorter(r, best) : noLonger(r, best))) {
            best = r;
            kept += 1;
            keptAt = i;
            break;
          }
        }
      }
      if (keptAt < 0) break;
      from = keptAt;
    }
  };
  for (let round = 0; round <= scheduleRounds; round++) {
    await descend(false);
    if (round === scheduleRounds) break;
    // The same workload under fresh schedules: every neighbour above keeps the interleaving that failed,
    // which may reach the failure late; the shortest failing one of a few fresh ones (deterministic, from
    // the run's own workload and schedule) is kept when it is shorter, and the greedy passes go again.
    let found: RunReport | undefined;
    for (const schedule of freshSchedules(best.schedule, round)) {
      greedy += 1;
      const r = await runOnce(best.workload, schedule, bug);
      if (fails(r) && shorter(r, found ?? best)) found = r;
    }
    if (found === undefined) break;
    best = found;
    kept += 1;
  }
  // Last, the reorders among the neighbours: other interleavings of the run reached, a pick or two
  // away (kept only when shorter; taken earlier, they lead the simplifications elsewhere, not further).
  await descend(true);
  const tried = greedy + reordered;
  return { report: best, kept, tried };
}

/** Runs the reorders may spend, over all rounds (besides `maxRuns`). */
const REORDER_RUNS = 160;

/** Scheduling steps whose pick the reorders change: the first this many of the run. */
const REORDER_STEPS = 40;

/** Other interleavings one or two picks away, for a schedule of choices (not PCT): at each of the run's
 * first steps the pending point next to the one picked (the second-oldest for the oldest), alone and
 * together with the next step's. Strict (kept only when shorter): a failure that waits on a point
 * the choices postpone is reached sooner, or the events of another actor leave the prefix up to the
 * divergence. `log`: the run's scheduler log, one line per step. Exported for tests. */
export function* reorders({ workload, schedule: s }: Candidate, log: string): Generator<Candidate & { readonly strict: true }> {
  if (s.pct !== undefined || log === '') return;
  const steps = Math.min(REORDER_STEPS, log.split('\n').length);
  const at = (i: number): number => s.choices[i] ?? 0;
  const other = (i: number): number => (at(i) === 0 ? 1 : at(i) - 1);
  const set = (changes: readonly (readonly [number, number])[]): number[] => {
    const choices = Array.from({ length: Math.max(s.choices.length, ...changes.map(([i]) => i + 1)) }, (_, i) => at(i));
    for (const [i, v] of changes) choices[i] = v;
    return choices;
  };
  for (let i = 0; i < steps; i++) yield { workload, schedule: { ...s, choices: set([[i, other(i)]]) }, strict: true };
  for (let i = 0; i + 1 < steps; i++) yield { workload, schedule: { ...s, choices: set([[i, other(i)], [i + 1, other(i + 1)]]) }, strict: true };
}

/** The code of a permanent storage failure (faults.ts FAULT_CODES). */
const PERMANENT = FAULT_CODES.indexOf('permanent');
/** Abort steps tried for a permanent fault: this many, spread evenly before the heal step. */
const ABORT_STEPS = 12;

function abortSteps(heal: number): number[] {
  return [...new Set(Array.from({ length: ABORT_STEPS - 1 }, (_, j) => Math.max(1, Math.round((heal * (j + 1)) / ABORT_STEPS))))].filter((step) => step < heal);
}

/** Runs the greedy passes may spend, over all rounds. */
const MAX_RUNS = 600;

/** Rounds of fresh schedules after the greedy passes (each followed by the greedy passes again). */
const SCHEDULE_ROUNDS = 3;
/** Fresh schedules tried per round. */
const FRESH_SCHEDULES = 60;

/** Fresh schedules for the same workload, both kinds alternating (uniform choices, then PCT with one
 * change point early), keeping the faults, with the starved actors and (every other pair) without
 * them: a starved actor keeps its points last, which can hold the divergence back. A salt from the
 * round, so the same run minimizes the same way. Exported for tests. */
export function freshSchedules(s: Schedule, round: number): Schedule[] {
  const next = xorshift32((0x9e3779b9 ^ (round * 2654435761)) >>> 0 || 1);
  const faults = s.faults === undefined ? {} : { faults: s.faults };
  return Array.from({ length: FRESH_SCHEDULES }, (_, i) => {
    const starve = i % 4 < 2 ? s.starve : [];
    return i % 2 === 0
      ? { choices: Array.from({ length: 40 }, () => next() % 64), starve, ...faults }
      : { choices: [], starve, ...faults, pct: { priorities: Array.from({ length: 24 }, () => next() % 1000), changes: [next() % PCT_SHORT_HORIZON] } };
  });
}

/** Simpler neighbours, most structural first; another sink's loads follow every reshape (fitted). Exported for tests. */
export function* candidates(c: Candidate): Generator<Candidate> {
  const w = c.workload;
  // A sink fewer (the last first, then each earlier one: an idle sink goes wherever it stands), then the
  // one-sink neighbours with the other sinks' loads fitted to them.
  if (w.sinkLoads !== undefined) {
    const all = [w.loads, ...w.sinkLoads];
    for (let drop = all.length - 1; drop >= 0; drop--) {
      const [loads, ...rest] = all.filter((_, i) => i !== drop) as [readonly (readonly LoadClass[])[], ...(readonly (readonly LoadClass[])[])[]];
      const { sinkLoads: _all, ...one } = w;
      yield { ...c, workload: rest.length === 0 ? { ...one, loads } : { ...w, loads, sinkLoads: rest }, reshaped: true };
    }
  }
  for (const n of oneSinkCandidates(c)) yield w.sinkLoads === undefined ? n : { ...n, workload: fitSinkLoads(n.workload) };
  // Then another sink's loads emptied one by one.
  for (const [i, loads] of (w.sinkLoads ?? []).entries()) {
    for (const [t, row] of loads.entries()) {
      for (const [worker, load] of row.entries()) {
        if (load !== 'none') yield { ...c, workload: { ...w, sinkLoads: (w.sinkLoads ?? []).map((l, j) => (j === i ? setLoad(l, t, worker, 'none') : l)) } };
      }
    }
  }
}

/** The other sinks' loads cut to the workload's shape (the intervals and workers it kept), none below
 * its as-of. */
function fitSinkLoads(w: Workload): Workload {
  const workers = w.processes * w.workersPerProcess;
  const fit = (loads: readonly (readonly LoadClass[])[]): LoadClass[][] =>
    loads.slice(0, w.intervals).map((row, t) => row.slice(0, workers).map((l) => (t < w.asOf ? 'none' : l)));
  return { ...w, sinkLoads: (w.sinkLoads ?? []).map(fit) };
}

function* oneSinkCandidates({ workload: w, schedule: s }: Candidate): Generator<Candidate> {
  const same = (workload: Workload): Candidate => ({ workload, schedule: s });
  const reshaped = (workload: Workload): Candidate => ({ workload, schedule: s, reshaped: true });
  // A replica fewer: the last, then each earlier one (replicas share their workload; what the schedule
  // names by replica — starved actors, aborts — follows the renumbering).
  for (let k = w.replicas - 1; w.replicas > 1 && k >= 0; k--) yield { workload: { ...w, replicas: w.replicas - 1 }, schedule: withoutReplica(s, k), reshaped: true };
  if (w.processes > 1) {
    yield reshaped({ ...w, processes: w.processes - 1, loads: w.loads.map((row) => row.slice(0, (w.processes - 1) * w.workersPerProcess)) });
  }
  for (let t = 0; w.intervals > 1 && t < w.intervals; t++) {
    yield reshaped({
      ...w,
      intervals: w.intervals - 1,
      asOf: t < w.asOf ? w.asOf - 1 : Math.min(w.asOf, w.intervals - 2),
      loads: w.loads.filter((_, i) => i !== t),
      knob: w.knob.length > 1 ? without(w.knob, t) : w.knob,
    });
  }
  if (w.workersPerProcess > 1) {
    for (let k = 0; k < w.workersPerProcess; k++) {
      const keep = (_: LoadClass, worker: number) => worker % w.workersPerProcess !== k;
      yield reshaped({ ...w, workersPerProcess: w.workersPerProcess - 1, loads: w.loads.map((row) => row.filter(keep)) });
    }
  }
  for (const [t, row] of w.loads.entries()) {
    for (const [worker, load] of row.entries()) {
      for (const simpler of ['none', 'tiny'] as const) {
        if (load !== simpler && !(load === 'none' && simpler === 'tiny')) yield same({ ...w, loads: setLoad(w.loads, t, worker, simpler) });
      }
    }
  }
  for (const [i, v] of w.knob.entries()) if (v !== THRESHOLD) yield same({ ...w, knob: w.knob.map((x, j) => (j === i ? THRESHOLD : x)) });
  if (w.asOf !== 0) yield same({ ...w, asOf: 0 });
  const flag = defaultBarrier(w.variant);
  if (sharesAtAll(w.variant) && w.barrierFlags.some((b) => b !== flag)) yield same({ ...w, barrierFlags: [flag] });
  const defaults = Object.fromEntries(variantMeta(w.variant).options.map((o) => [o.name, o.default]));
  if (w.variantOptions !== undefined && Object.entries(w.variantOptions).some(([k, x]) => x !== defaults[k])) yield same({ ...w, variantOptions: defaults });
  if (w.inlineSingleMaxBytes !== INLINE_SINGLE_MAX) yield same({ ...w, inlineSingleMaxBytes: INLINE_SINGLE_MAX });
  if (w.pacing !== 'lockstep') {
    const lockstep: Workload = { ...w, pacing: 'lockstep' };
    yield same(lockstep);
    // Lockstep pacing drops the frontier and poll points of free pacing: an abort falls at another
    // point, so the aborts are moved too.
    for (const schedule of shiftedAborts(s)) yield { workload: lockstep, schedule };
  }
  if (w.noData !== DEFAULT_NO_DATA) yield same({ ...w, noData: DEFAULT_NO_DATA });
  if (w.sink !== DEFAULT_SINK) yield same({ ...w, sink: DEFAULT_SINK });
  if (w.idOrder !== undefined) {
    const { idOrder: _reversed, ...timeOrder } = w;
    yield same(timeOrder);
  }
  if (w.maxRuns !== undefined) {
    const { maxRuns: _compacting, ...noRunLimit } = w;
    yield same(noRunLimit);
  }
  if (w.pushChunkUpdates !== 256) yield same({ ...w, pushChunkUpdates: 256 });
  if (w.blobTargetSize !== 128 * 1024 * 1024) yield same({ ...w, blobTargetSize: 128 * 1024 * 1024 });
  if (w.inlineTotalMaxBytes !== 1024 * 1024) yield same({ ...w, inlineTotalMaxBytes: 1024 * 1024 });
  for (let i = 0; i < s.starve.length; i++) yield { workload: w, schedule: { ...s, starve: without(s.starve, i) } };
  if (s.faults !== undefined) {
    const f = s.faults;
    const withFaults = (change: Partial<typeof f>): Candidate => ({ workload: w, schedule: { ...s, faults: { ...f, ...change } } });
    const { faults: _dropped, ...plain } = s;
    yield { workload: w, schedule: plain };
    for (let i = 0; i < f.aborts.length; i++) yield withFaults({ aborts: without(f.aborts, i) });
    // The decisive fault earlier: an abort at an earlier step; every storage fault one call earlier (the
    // first call's code dropped when it is ok) — a shorter run to the same failure.
    for (const [i, a] of f.aborts.entries()) {
      for (const step of new Set([a.step >> 1, a.step - 1])) if (step >= 0 && step < a.step) yield withFaults({ aborts: f.aborts.map((b, j) => (j === i ? { ...b, step } : b)) });
    }
    for (const field of ['storage', 'cas', 'deletes'] as const) {
      const list = f[field] ?? [];
      if (list[0] === 0 && list.some((c) => c !== 0)) yield withFaults({ [field]: list.slice(1) });
    }
    // A permanent storage fault stands for a crash: an abort of a replica instead, at steps spread before
    // the heal step — at a step of the schedule's choosing rather than at the call the fault waited for
    // (the replica's first call after the interval it appended may come only after its next mint).
    for (const field of ['storage', 'cas', 'deletes'] as const) {
      const list = f[field] ?? [];
      for (let i = 0; i < list.length; i++) {
        if (list[i] !== PERMANENT) continue;
        const ok = list.map((c, j) => (j === i ? 0 : c));
        // Also without the overrides of the first compare-and-sets and deletes: they decided how the
        // run reached the call that failed, which an abort no longer waits for.
        const { cas: _cas, deletes: _deletes, ...plainFaults } = f;
        const bare = f.cas === undefined && f.deletes === undefined ? [] : [{ ...plainFaults, [field]: field === 'storage' ? ok : [] }];
        for (let replica = 0; replica < w.replicas; replica++) {
          for (const step of abortSteps(f.heal)) {
            yield withFaults({ [field]: ok, aborts: [...f.aborts, { step, replica }] });
            for (const b of bare) yield { workload: w, schedule: { ...s, faults: { ...b, aborts: [...f.aborts, { step, replica }] } } };
          }
        }
      }
    }
    // The overrides of the first compare-and-sets and deletes: without them, their trailing oks trimmed
    // (an ok there still masks the storage code of that call), each fault made ok; each fault gone, the
    // later ones a call earlier — alone, and with the storage faults one or two calls earlier (a lost
    // compare-and-set is retried: without it the run makes fewer calls).
    for (const field of ['cas', 'deletes'] as const) {
      const list = f[field] ?? [];
      if (list.length === 0) continue;
      const { [field]: _none, ...rest } = f;
      yield { workload: w, schedule: { ...s, faults: rest } };
      const kept = list.findLastIndex((c) => c !== 0) + 1;
      if (kept < list.length) yield { workload: w, schedule: { ...s, faults: kept === 0 ? rest : { ...rest, [field]: list.slice(0, kept) } } };
      for (let i = 0; i < list.length; i++) if (list[i] !== 0) yield withFaults({ [field]: list.map((c, j) => (j === i ? 0 : c)) });
      for (let i = 0; i < list.length; i++) {
        if (list[i] === 0 || !list.some((c, j) => j !== i && c !== 0)) continue;
        for (const earlier of [0, 1, 2]) if (earlier <= f.storage.length) yield withFaults({ [field]: without(list, i), storage: f.storage.slice(earlier) });
      }
    }
    const used = f.storage.findLastIndex((c) => c !== 0) + 1;
    if (used < f.storage.length) yield withFaults({ storage: f.storage.slice(0, used) });
    for (let i = 0; i < f.storage.length; i++) if (f.storage[i] !== 0) yield withFaults({ storage: f.storage.map((c, j) => (j === i ? 0 : c)) });
    // A storage fault gone with the later ones a call earlier: a failed call is retried, so without it
    // the run makes a call fewer and the later faults land on the calls they failed.
    for (let i = 0; i < f.storage.length; i++) if (f.storage[i] !== 0 && f.storage.some((c, j) => j > i && c !== 0)) yield withFaults({ storage: without(f.storage, i) });
  }
  if (s.pct !== undefined) {
    const pct = s.pct;
    const withPct = (change: Partial<typeof pct>): Candidate => ({ workload: w, schedule: { ...s, pct: { ...pct, ...change } } });
    yield { workload: w, schedule: { choices: [], starve: s.starve } };
    for (let i = 0; i < pct.changes.length; i++) yield withPct({ changes: without(pct.changes, i) });
    const used = pct.priorities.findLastIndex((p) => p !== 0) + 1;
    if (used < pct.priorities.length) yield withPct({ priorities: pct.priorities.slice(0, used) });
    for (let i = 0; i < pct.priorities.length; i++) if (pct.priorities[i] !== 0) yield withPct({ priorities: pct.priorities.map((p, j) => (j === i ? 0 : p)) });
  }
  if (s.choices.length > 0) yield { workload: w, schedule: { ...s, choices: [] } };
  for (let i = s.choices.length - 1; i >= 0; i--) yield { workload: w, schedule: { ...s, choices: without(s.choices, i) } };
  for (let i = 0; i < s.choices.length; i++) if (s.choices[i] !== 0) yield { workload: w, schedule: { ...s, choices: s.choices.map((c, j) => (j === i ? 0 : c)) } };
}

/** The same faults moved a few storage calls earlier or later; the overrides of the first
 * compare-and-sets and deletes with a call fewer (any one, or the first few) or an ok ahead, alone and
 * with the storage calls a few earlier: a reshaped run makes its calls in another order (an interval
 * fewer drops its appends, an as-of fewer its bump), and the faults that mattered must land on the
 * equivalent calls again. Exported for tests. */
export function shiftedFaults(s: Schedule): Schedule[] {
  const f = s.faults;
  if (f === undefined) return [];
  const out: Schedule[] = [];
  const storageShifted = (shift: number): readonly number[] => (shift < 0 ? f.storage.slice(-shift) : [...Array<number>(shift).fill(0), ...f.storage]);
  const failsStorage = f.storage.some((c) => c !== 0);
  if (failsStorage) for (const shift of [-1, 1, -2, 2, -3, 3, -4, 4, -6, 6, -8, 8]) out.push({ ...s, faults: { ...f, storage: storageShifted(shift) } });
  // Each abort a few scheduling steps earlier or later: a reshaped run takes other steps to the point
  // where the abort mattered.
  out.push(...shiftedAborts(s));
  const overrides = (['cas', 'deletes'] as const).flatMap((field) => {
    const list = f[field] ?? [];
    if (!list.some((c) => c !== 0)) return [];
    return [...list.map((_, i) => without(list, i)), ...list.slice(2).map((_, k) => list.slice(k + 2)), [0, ...list]].map((l) => ({ [field]: l }));
  });
  for (const shift of failsStorage ? [0, -1, -2, -3, -4] : [0]) {
    for (const o of overrides) out.push({ ...s, faults: { ...f, storage: storageShifted(shift), ...o } });
  }
  // Bounded: each is a run for every reshaped neighbour.
  return out.slice(0, MAX_SHIFTED);
}

/** Each abort of `s` moved by a few scheduling steps (`ABORT_SHIFTS`), within the safety phase. */
function shiftedAborts(s: Schedule): Schedule[] {
  const f = s.faults;
  if (f === undefined) return [];
  return f.aborts.flatMap((a, i) =>
    ABORT_SHIFTS.flatMap((shift) => {
      const step = a.step + shift;
      return step >= 0 && step < f.heal ? [{ ...s, faults: { ...f, aborts: f.aborts.map((b, j) => (j === i ? { ...b, step } : b)) } }] : [];
    }),
  );
}

/** The scheduling steps an abort is moved by after a reshape, nearest first. */
const ABORT_SHIFTS = [-1, 1, -2, 2, -3, 3, -4, 4, -6, 6];

/** At most this many shifted fault schedules per reshaped neighbour. */
const MAX_SHIFTED = 48;

/** Deterministic fresh schedules (xorshift from `salt`), keeping the starved actors. */
function reschedules(s: Schedule, salt: number): Schedule[] {
  const next = xorshift32((salt * 2654435761 + 1) >>> 0);
  return Array.from({ length: RESCHEDULES }, () =>
    s.pct === undefined
      ? { choices: Array.from({ length: 60 }, () => next() % 64), starve: s.starve, ...(s.faults === undefined ? {} : { faults: s.faults }) }
      : {
          choices: [],
          starve: s.starve,
          ...(s.faults === undefined ? {} : { faults: s.faults }),
          pct: { priorities: Array.from({ length: 40 }, () => next() % 1000), changes: s.pct.changes.map(() => next() % PCT_HORIZON) },
        },
  );
}

/** `s` with replica `k` gone: its starved actors and aborts dropped, the replicas above it renumbered. */
function withoutReplica(s: Schedule, k: number): Schedule {
  const renumber = <T extends { readonly replica: number }>(xs: readonly T[]): T[] => xs.filter((x) => x.replica !== k).map((x) => (x.replica > k ? { ...x, replica: x.replica - 1 } : x));
  return { ...s, starve: renumber(s.starve), ...(s.faults === undefined ? {} : { faults: { ...s.faults, aborts: renumber(s.faults.aborts) } }) };
}

function without<T>(xs: readonly T[], i: number): T[] {
  return xs.filter((_, j) => j !== i);
}

function setLoad(loads: readonly (readonly LoadClass[])[], t: number, worker: number, load: LoadClass): LoadClass[][] {
  return loads.map((row, i) => (i === t ? row.map((l, j) => (j === worker ? load : l)) : [...row]));
}
