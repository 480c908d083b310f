/**
 * `sbkit model --coverage`: which transitions of each XState machine (model/) the conformance check's
 * default budget took, per variant, and which it never took — with why.
 *
 * Counted from real runs: every run of `sbkit check` (its `onRun` hook) is replayed through the model
 * (model/coverage.ts `replayCounting`), which counts the transitions of every event the model accepted.
 * What the model can reach at all comes from two sources: those replays (the model accepted them) and
 * an exhaustive breadth-first search of small configurations (`COVERAGE_SHAPES`, again counting the
 * transitions of every explored step). A transition neither took is explained: only reachable with the
 * model's sweep-upgrade-race bug (searched too), only in another variant, or — named here — not reached
 * by any search.
 *
 * model/ and conformance/ are imported lazily.
 */
import type { TraceEvent, Variant } from '../vocab/index.ts';
import type { ModelConfig } from '../model/config.ts';
import type { MachineTransitions, TransitionCounts } from '../model/coverage.ts';
import { plural, thousands } from './format.ts';
import { type ModelCheckShape, checkConfig, describeShape } from './model-check.ts';
import { col, renderTable } from './table.ts';
import { VARIANTS, presentationOf, sharesAtAll } from './variants/index.ts';
import { DEFAULT_CHECK_RUNS } from './budgets.ts';
import { type Reason, incomplete, violation } from './command.ts';

/** conformance/faults.ts's default rate, repeated so this module loads nothing of conformance/ up front. */
export const DEFAULT_FAULT_RATE = 0.1;

/**
 * The configurations searched exhaustively for reachability (about 3 s for the three variants): the model check's
 * default shape, two replicas (refused appends), two intervals, and each with one worker that has no
 * data (the `none` route). Two replicas over two intervals would add ~160,000 states (a minute).
 */
export const COVERAGE_SHAPES: readonly (ModelCheckShape & { readonly idleWorker: boolean })[] = [
  { workers: 2, processes: 1, replicas: 1, intervals: 1, idleWorker: false },
  { workers: 2, processes: 1, replicas: 1, intervals: 1, idleWorker: true },
  { workers: 1, processes: 1, replicas: 2, intervals: 1, idleWorker: false },
  { workers: 1, processes: 1, replicas: 2, intervals: 1, idleWorker: true },
  { workers: 2, processes: 1, replicas: 1, intervals: 2, idleWorker: false },
];

const STATE_LIMIT = 100_000;

/** The fault world's search (aborts, a restart, an indeterminate compare-and-set, cleanup), kept small. */
export const COVERAGE_FAULT_SHAPE: ModelCheckShape = { workers: 1, processes: 1, replicas: 1, intervals: 1 };
const SEARCH_FAULTS = { aborts: 1, indeterminate: 1, cleanup: true } as const;

/**
 * Why a transition that no search and no run reaches cannot happen (the machine on its own can take it:
 * model/machines.test.ts reaches every transition with xstate/graph; the system never offers the event).
 * Keyed `machine|transition`; a variant's own reasons are its presentation's `neverReached`
 * (explore/variants/), which come first.
 */
export const NEVER_REACHED: Readonly<Record<string, string>> = {
  'builder|notLive_dead --> notLive_dead : SKIP [completesEarlySkips]':
    'a skip meets a dead entry only when a worker reports after every participant already finished: over-reporting, which the barrier forbids (off and best-effort never skip)',
  'builder|notLive_dead --> notLive_dead : SKIP [isBarrier]':
    'a skip meets a dead entry only when a worker reports after every participant already finished: over-reporting, which the barrier forbids (off and best-effort never skip)',
  'builder|finalized --> finalized : SWEEP_HOLD':
    "the review bug's sweep holds an entry only inside another worker's builder() call of the process; once a barrier entry finalized every worker of the process has reported, and no one opens again before that description is appended, after every finish-end dropped the entry: only another sink's call (several sinks, not searched here) can hold it",
  'builder|finalized --> finalized : SWEEP_RELEASE':
    "the release of a hold no one-sink search reaches (a finalized entry is held only by another sink's builder() call)",
  'builder|finalized --> notLive_dead : SWEEP_RELEASE [holdsLastRef]':
    "the release of a hold no one-sink search reaches (a finalized entry is held only by another sink's builder() call)",
  'sweep|visiting --> holding : SWEEP_HOLD [holdsNextLiveEntry]':
    "a second visit in one sweep needs two live entries in one registry at once: one sink has that only around a supersede (two replicas, searched by no bug shape here), or several sinks share the registry",
  'sweep|visiting --> idle : SWEEP [endsEnvironmentVisits]':
    "another sink's sweep that visited this sink's live entries: only in one sink's replay of a run of several sinks with the review bug, and coverage counts runs without bugs",
  'handle|pushing --> pushing : PUSH [continuesStagedOrder]':
    "a second push of one handle: the exhaustive search pushes a worker's staged updates in one push; only an implementation pushing in chunks (conformance's pushChunk) takes it",
  'mint|sealed --> sealed : FRONTIER [desiredBelowIntervals]':
    'needs a replica whose lower reached K (another replica sealed the shard) before its own frontier did: 2 replicas over 2+ intervals, searched by no shape here',
};

/** Conformance workloads flip the barrier flag per mint (every variant that shares), so the searches do. */
const withFlags = (cfg: ModelConfig): ModelConfig => (sharesAtAll(cfg.variant) ? { ...cfg, barrierChoices: [false, true] } : cfg);

/** The as-of ahead of the shard (the first append bumps it), in the fault world: an unanswered bump. */
function asOfConfig(variant: Variant): ModelConfig {
  const cfg = checkConfig(variant, { ...COVERAGE_FAULT_SHAPE, intervals: 2 });
  return { ...cfg, asOf: 1, updates: cfg.updates.filter((u) => u.time >= 1), faults: SEARCH_FAULTS };
}

function shapeConfig(variant: Variant, shape: (typeof COVERAGE_SHAPES)[number], modelBug: boolean): ModelConfig {
  const cfg = withFlags(checkConfig(variant, { ...shape, ...(modelBug ? { modelBug: 'sweep-upgrade-race' as const } : {}) }));
  // The last worker of the replica has nothing to write: its stage routes `none`.
  return shape.idleWorker ? { ...cfg, updates: cfg.updates.filter((u) => u.worker !== shape.workers * shape.processes - 1) } : cfg;
}

const describeCoverageShape = (s: (typeof COVERAGE_SHAPES)[number]): string => `${describeShape(s)}${s.idleWorker ? ', one worker without data' : ''}`;

export type CellVerdict = 'taken' | 'gap' | 'bug-only' | 'other-variant' | 'unreached';

export interface CoverageCell {
  readonly verdict: CellVerdict;
  /** Times the conformance runs took it. */
  readonly taken: number;
  /** Why it was never taken (for every verdict but `taken`). */
  readonly why?: string;
}

export interface CoverageRow {
  readonly machine: string;
  readonly transition: string;
  readonly cells: Readonly<Partial<Record<Variant, CoverageCell>>>;
}

export interface CoverageResult {
  readonly variants: readonly Variant[];
  readonly runs: Readonly<Partial<Record<Variant, number>>>;
  readonly seed: number;
  readonly shapes: readonly string[];
  readonly rows: readonly CoverageRow[];
  /** (variant, transition) pairs reachable in the model (search or replay) that the runs never took: the goal is none. */
  readonly gaps: readonly { readonly variant: Variant; readonly machine: string; readonly transition: string }[];
  readonly exitCode: 0 | 1;
  readonly summary: string;
}

/** A collector to pass as `sbkit check`'s onRun: counts each run's transitions per variant. */
export interface CoverageCollector {
  readonly onRun: (report: { readonly workload: { readonly variant: Variant }; readonly schedule?: { readonly faults?: unknown }; readonly trace: readonly TraceEvent[] }) => void;
  /** Runs seen per variant. */
  readonly runs: Partial<Record<Variant, number>>;
  /** Runs whose trace the model rejected (a failing run): they count up to the divergence. */
  readonly rejected: Partial<Record<Variant, number>>;
  readonly counts: Map<Variant, TransitionCounts>;
}

export async function coverageCollector(): Promise<CoverageCollector> {
  const [{ TransitionCounts: Counts, replayCounting }, { modelConfigOf }, { modelReplays }] = await Promise.all([
    import('../model/coverage.ts'),
    import('../conformance/harness.ts'),
    import('../conformance/multi-sink.ts'),
  ]);
  const counts = new Map<Variant, TransitionCounts>();
  const runs: Partial<Record<Variant, number>> = {};
  const rejected: Partial<Record<Variant, number>> = {};
  return {
    runs,
    rejected,
    counts,
    onRun: (report) => {
      const v = report.workload.variant;
      let c = counts.get(v);
      if (c === undefined) {
        c = new Counts();
        counts.set(v, c);
      }
      runs[v] = (runs[v] ?? 0) + 1;
      const faults = report.schedule?.faults !== undefined;
      // A run of several MV sinks: each sink's events on its own model (conformance/multi-sink.ts).
      const w = report.workload as Parameters<typeof modelConfigOf>[0];
      const replays = modelReplays(w, report.trace, (wl, updates) => modelConfigOf(wl, updates, faults));
      let wasRejected = false;
      for (const { cfg, events } of replays) wasRejected = replayCounting(cfg, events, c).rejectedAt !== undefined || wasRejected;
      if (wasRejected) rejected[v] = (rejected[v] ?? 0) + 1;
    },
  };
}

/** Builds the coverage table from what the collector saw and the searches (run here). */
export async function coverageResult(collector: CoverageCollector, seed: number, onProgress?: (fraction: number, label: string) => void): Promise<CoverageResult> {
  const { TransitionCounts: Counts, exploreCounting, machineTransitions } = await import('../model/coverage.ts');
  const variants = VARIANTS.filter((v) => collector.counts.has(v));
  const reach = new Map<Variant, TransitionCounts>();
  const bugReach = new Map<Variant, TransitionCounts>();
  const jobs = variants.length * (COVERAGE_SHAPES.length + 2);
  let done = 0;
  for (const v of variants) {
    const clean = new Counts();
    for (const shape of COVERAGE_SHAPES) {
      onProgress?.(done++ / jobs, `${v}: ${describeCoverageShape(shape)}`);
      exploreCounting(shapeConfig(v, shape, false), clean, STATE_LIMIT);
    }
    onProgress?.(done++ / jobs, `${v}: the fault world, ${describeShape(COVERAGE_FAULT_SHAPE)}`);
    exploreCounting(withFlags({ ...checkConfig(v, COVERAGE_FAULT_SHAPE), faults: SEARCH_FAULTS }), clean, STATE_LIMIT);
    exploreCounting(asOfConfig(v), clean, STATE_LIMIT);
    reach.set(v, clean);
    const bug = new Counts();
    onProgress?.(done++ / jobs, `${v}: with the model's bugs`);
    if (sharesAtAll(v)) exploreCounting(shapeConfig(v, { ...(COVERAGE_SHAPES[0] as (typeof COVERAGE_SHAPES)[number]) }, true), bug, STATE_LIMIT);
    const misreading = { ...checkConfig(v, COVERAGE_FAULT_SHAPE), faults: SEARCH_FAULTS, bugs: { indeterminateAsMismatch: true } };
    exploreCounting(misreading, bug, STATE_LIMIT);
    exploreCounting({ ...misreading, updates: [] }, bug, STATE_LIMIT); // an empty append misread: nothing to delete
    bugReach.set(v, bug);
  }
  onProgress?.(1, 'done');
  const universe: MachineTransitions[] = machineTransitions();
  const rows: CoverageRow[] = [];
  const gaps: { variant: Variant; machine: string; transition: string }[] = [];
  const takenIn = (m: string, t: string, v: Variant): number => collector.counts.get(v)?.get(m, t) ?? 0;
  const reachableIn = (m: string, t: string, v: Variant): boolean => takenIn(m, t, v) > 0 || (reach.get(v)?.get(m, t) ?? 0) > 0;
  for (const { machine, transitions } of universe) {
    for (const transition of transitions) {
      const cells: Partial<Record<Variant, CoverageCell>> = {};
      for (const v of variants) {
        const taken = takenIn(machine, transition, v);
        if (taken > 0) {
          cells[v] = { verdict: 'taken', taken };
          continue;
        }
        if ((reach.get(v)?.get(machine, transition) ?? 0) > 0) {
          cells[v] = { verdict: 'gap', taken, why: 'reachable in the model (exhaustive search) but no conformance run took it' };
          gaps.push({ variant: v, machine, transition });
          continue;
        }
        const bugIn = variants.filter((o) => (bugReach.get(o)?.get(machine, transition) ?? 0) > 0);
        if (bugIn.includes(v)) {
          cells[v] = { verdict: 'bug-only', taken, why: 'only with a model bug (sweep-upgrade-race: a sweep holding a reference; indeterminate-as-mismatch: an append misreading its own write); the clean protocol has no such step' };
          continue;
        }
        const elsewhere = variants.filter((o) => o !== v && reachableIn(machine, transition, o));
        if (elsewhere.length > 0) {
          cells[v] = { verdict: 'other-variant', taken, why: `only under ${elsewhere.join(', ')}${guardNote(transition)}` };
          continue;
        }
        if (bugIn.length > 0) {
          cells[v] = { verdict: 'bug-only', taken, why: `only with a model bug, under ${bugIn.join(', ')}` };
          continue;
        }
        const key = `${machine}|${transition}`;
        const known = presentationOf(v)?.neverReached[key] ?? NEVER_REACHED[key];
        cells[v] = { verdict: 'unreached', taken, why: known ?? 'reached by no search and no run (no reason recorded: look into it)' };
      }
      rows.push({ machine, transition, cells });
    }
  }
  const runs = collector.runs;
  const totalRuns = variants.reduce((n, v) => n + (runs[v] ?? 0), 0);
  const count = (v: Variant, verdicts: readonly CellVerdict[]): number => rows.filter((r) => verdicts.includes(r.cells[v]?.verdict ?? 'unreached')).length;
  // Distinct transitions never taken where the model reaches them, with the variants of each.
  const gapRows = rows.filter((r) => variants.some((v) => r.cells[v]?.verdict === 'gap'));
  const gapText = gapRows.map((r) => `${r.machine}: ${r.transition} (${variants.filter((v) => r.cells[v]?.verdict === 'gap').join(', ')})`).join('; ');
  const summary =
    `sbkit model --coverage: ${gaps.length === 0 ? 'ok' : 'GAPS'} — ${plural(totalRuns, 'conformance run')} (seed ${seed}) took ` +
    variants.map((v) => `${v} ${count(v, ['taken'])} of ${count(v, ['taken', 'gap'])}`).join(', ') +
    ` transitions the model reaches there (of ${rows.length} in the machines); ` +
    (gaps.length === 0 ? 'every one was taken' : `${plural(gapRows.length, 'reachable transition')} never taken: ${gapText}`);
  return {
    variants,
    runs,
    seed,
    shapes: [...COVERAGE_SHAPES.map(describeCoverageShape), `${describeShape(COVERAGE_FAULT_SHAPE)} in the fault world`],
    rows,
    gaps,
    exitCode: gaps.length === 0 ? 0 : 1,
    summary,
  };
}

/**
 * Why coverage exits non-zero: the reachable transitions no run took. Below the default budget (runs per
 * variant, without and again with faults) that is a budget too small: incomplete (4); at or above it, the
 * generators or the implementation lost a path: a violation (1).
 */
export function coverageReasons(r: CoverageResult, runsPerVariant: number): Reason[] {
  const rows = r.rows.filter((row) => r.variants.some((v) => row.cells[v]?.verdict === 'gap'));
  if (rows.length === 0) return [];
  const named = rows.slice(0, 3).map((row) => `${row.machine}: ${row.transition} (${r.variants.filter((v) => row.cells[v]?.verdict === 'gap').join(', ')})`);
  const more = rows.length > named.length ? `, and ${rows.length - named.length} more` : '';
  const what = `model coverage: ${plural(rows.length, 'reachable transition')} never taken in ${plural(runsPerVariant, 'run')} per variant (seed ${r.seed}): ${named.join('; ')}${more}`;
  return runsPerVariant < DEFAULT_CHECK_RUNS
    ? [incomplete(`${what} (a small budget: --runs ${DEFAULT_CHECK_RUNS}, the default, takes every one)`)]
    : [violation(`${what} (at the default budget: the generators or the implementation lost a path; sbkit model --coverage lists why)`)];
}

/** What a guard name says about where a transition can happen. */
function guardNote(transition: string): string {
  const g = /\[(\w+)\]$/.exec(transition)?.[1];
  if (g === 'isBarrier' || g === 'finalizesBarrier' || g === 'completesEarlySkips' || g === 'fallsBackReportingSkip' || g === 'idlesReportingSkip') return ' (barrier guard)';
  if (g === 'isBestEffort' || g === 'holdsLastRef') return ' (best-effort refcount guard)';
  return '';
}

/** Runs the conformance budget with a collector, then the searches. */
export async function runCoverage(
  opts: { readonly variants: readonly Variant[]; readonly runs?: number | undefined; readonly seed: number },
  onProgress?: (fraction: number, label: string) => void,
): Promise<CoverageResult> {
  const { runConformance } = await import('./commands/check.ts');
  const collector = await coverageCollector();
  for (const [i, variant] of opts.variants.entries()) {
    const share = (f: number, label: string) => onProgress?.((i + 0.85 * f) / opts.variants.length, `${variant}: ${label}`);
    await runConformance({ variant, runs: opts.runs, seed: opts.seed, onRun: collector.onRun }, { update: (f, l) => share(f / 2, l), done: () => undefined });
    await runConformance({ variant, runs: opts.runs, seed: opts.seed, faults: DEFAULT_FAULT_RATE, onRun: collector.onRun }, { update: (f, l) => share(0.5 + f / 2, `faults: ${l}`), done: () => undefined });
  }
  return coverageResult(collector, opts.seed, (f, label) => onProgress?.(0.85 + 0.15 * f, label));
}

// ---------------------------------------------------------------------------------------------------
// Output

const CELL_TEXT: Readonly<Record<CellVerdict, string>> = {
  taken: '',
  gap: 'GAP',
  'bug-only': 'bug only',
  'other-variant': '—',
  unreached: 'never',
};

export function cellText(c: CoverageCell | undefined): string {
  if (c === undefined) return '';
  return c.verdict === 'taken' ? thousands(c.taken) : CELL_TEXT[c.verdict];
}

export function renderCoverage(r: CoverageResult): string {
  const lines: string[] = [];
  lines.push(
    `model coverage: the transitions of each machine (as in sbkit model --mermaid) taken by the conformance runs of`,
    `sbkit check (${r.variants.map((v) => `${v} ${thousands(r.runs[v] ?? 0)} runs`).join(', ')}; seed ${r.seed}), replayed through the model.`,
    `A number is how often runs took it. "—": only reachable in another variant; "bug only": only with the`,
    `model's bugs; "never": reached by no run and no search; "GAP": reachable, never taken. The runs are the`,
    `default budget without faults and again with faults at ${DEFAULT_FAULT_RATE} (sbkit check --faults).`,
    `Exhaustive searches for reachability: ${r.shapes.join('; ')}.`,
    '',
  );
  const columns = [col('machine', 'left'), col('transition', 'left'), ...r.variants.map((v) => col(v))];
  const rows = r.rows.map((row) => [row.machine, row.transition, ...r.variants.map((v) => cellText(row.cells[v]))]);
  lines.push(renderTable(columns, rows), '');
  for (const v of r.variants) {
    const never = r.rows.filter((row) => row.cells[v]?.verdict !== 'taken');
    const taken = r.rows.length - never.length;
    lines.push(`${v}: ${taken} of ${r.rows.length} transitions taken; never taken:`);
    for (const row of never) lines.push(`  ${row.machine}: ${row.transition} — ${row.cells[v]?.why ?? ''}`);
  }
  lines.push('', r.summary);
  return `${lines.join('\n')}\n`;
}

export function coverageJson(r: CoverageResult): unknown {
  return {
    exitCode: r.exitCode,
    summary: r.summary,
    seed: r.seed,
    runs: r.runs,
    shapes: r.shapes,
    transitions: r.rows.map((row) => ({ machine: row.machine, transition: row.transition, ...row.cells })),
    gaps: r.gaps,
  };
}
