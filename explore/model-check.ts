/**
 * `sbkit model --check`: Stateright-style exhaustive check of the model. For each variant, a
 * breadth-first search (model/search.ts) visits every reachable state of a small configuration and
 * judges every property of spec/properties.ts: `always` on every state, `eventually` on final states
 * (no enabled action), `sometimes` as a reachability witness. BFS makes every counterexample and
 * witness a shortest one.
 *
 * Two searches: `packed` (model/packed/, the default: packed states, successors from system.ts memoized
 * by verified read sets, symmetry and partial-order reductions, memory and state limits, shards) and
 * `plain` (model/search.ts, the reference). Without reductions both visit the same states.
 *
 * model/ and spec/ are imported lazily, so other subcommands do not load the model. Wall time is
 * measured with the injected clock and printed as a diagnostic; it never enters the HTML report.
 */
import { formatEvent } from '../conformance/event-text.ts';
import type { PersistConfig, TraceEvent, Variant } from '../vocab/index.ts';
import type { ModelConfig, Update } from '../model/config.ts';
import { bytes, fixed, millis, plural, thousands } from './format.ts';
import { col, renderTable } from './table.ts';
import { VARIANTS, presentationOf } from './variants/index.ts';
import { type OptionsByVariant, variantOptionsOf } from './variant-options.ts';
import { type Reason, incomplete, violation } from './command.ts';
import { vacuousBecause } from './vacuity.ts';

/** The bugs the model itself can exhibit (model/config.ts `ModelBugs`), by their gallery names. */
export const MODEL_BUG_NAMES = ['sweep-upgrade-race', 'indeterminate-cas-deletes-batches'] as const;

/** The fault world's bounds for `--faults`: one abort and one indeterminate commit per run, cleanup on. */
export const CHECK_FAULTS = { aborts: 1, indeterminate: 1, cleanup: true } as const;
export type ModelBugName = (typeof MODEL_BUG_NAMES)[number];

/** The packed search stops at this many states or at `DEFAULT_MAX_MEMORY`, whichever comes first. */
export const DEFAULT_MAX_STATES = 100_000_000;
/** The plain (reference) search keeps everything as objects: ~4 KB per state. */
export const DEFAULT_PLAIN_MAX_STATES = 200_000;
export const DEFAULT_MAX_MEMORY = 4 * 1024 ** 3;

export const SEARCHES = ['packed', 'plain'] as const;
export type SearchKind = (typeof SEARCHES)[number];

/** The system's shape; every field is a CLI flag. */
export interface ModelCheckShape {
  readonly workers: number;
  readonly processes: number;
  readonly replicas: number;
  readonly intervals: number;
}

export const DEFAULT_SHAPE: ModelCheckShape = { workers: 2, processes: 1, replicas: 1, intervals: 1 };

export interface ModelCheckRequest extends ModelCheckShape {
  readonly variants: readonly Variant[];
  readonly maxStates: number;
  readonly modelBug?: ModelBugName | undefined;
  /** Explore the fault world too (CHECK_FAULTS); the indeterminate bug implies it. */
  readonly faults?: boolean | undefined;
  /** Default `packed`. */
  readonly search?: SearchKind;
  /** Packed only, default on: symmetry over workers with identical loads and over replicas. */
  readonly symmetry?: boolean;
  /** Packed only, default on: partial-order reduction (confluent events taken alone). */
  readonly por?: boolean;
  /** Packed only: stop when the process's RSS reaches this many bytes (default 4 GiB). */
  readonly maxMemory?: number;
  /** Packed only: stop a search after this many seconds (wall clock, measured with the hooks' clock). */
  readonly maxSeconds?: number | undefined;
  /** Packed only: threads per search (parallel.ts; 1 or absent: this thread). */
  readonly jobs?: number | undefined;
  /** Packed only: explore shard `index` (0-based) of `count` (combine the shards' JSON with --combine). */
  readonly shard?: { readonly index: number; readonly count: number } | undefined;
  /** The SPIN anchor's configuration: each worker holds 0..parts one-part updates (see `coreConfigs`). */
  readonly core?: { readonly parts: number } | undefined;
  /** Packed only: stop at the first violated property (re-searched to be shortest); the rest read unknown. */
  readonly firstViolation?: boolean | undefined;
  /** Variants' options by variant (`--barrier-timeout T` …: variant-options.ts). Omitted: the defaults. */
  readonly variantOptions?: OptionsByVariant | undefined;
}

/** What `npm start`, `sbkit report` and a bare `sbkit model --check` run. */
export const DEFAULT_MODEL_CHECK: ModelCheckRequest = { variants: VARIANTS, ...DEFAULT_SHAPE, maxStates: DEFAULT_MAX_STATES };

export const searchOf = (req: ModelCheckRequest): SearchKind => req.search ?? 'packed';

// ---------------------------------------------------------------------------------------------------
// The workload: small enough to search exhaustively, rich enough that both routes are reachable.

/** The two update sizes, alternating by worker and interval. 10 B is an inline part on its own, 100 B a hollow one. */
export const UPDATE_SIZES = { small: 10, large: 100 } as const;
/**
 * The `shared_batch_max_bytes` values the model may pick at each mint: 0 (sharing off, every worker
 * falls back), 50 (between the sizes: small updates share, large ones fall back) and 1000 (everyone shares).
 */
export const KNOB_CHOICES: readonly number[] = [0, 50, 1000];
/** Persist scaled down with the updates: parts are cut at 64 B, parts below 32 B are inline. */
export const CHECK_PERSIST: PersistConfig = { blobTargetSize: 64, inlineSingleMaxBytes: 32, inlineTotalMaxBytes: 1 << 20 };

/** One update per worker per interval: id = t·(P·W) + w, size small when w + t is even, else large. */
export function checkUpdates(shape: ModelCheckShape): Update[] {
  const workers = shape.workers * shape.processes;
  const out: Update[] = [];
  for (let time = 0; time < shape.intervals; time++) {
    for (let worker = 0; worker < workers; worker++) {
      out.push({ id: time * workers + worker, time, worker, size: (worker + time) % 2 === 0 ? UPDATE_SIZES.small : UPDATE_SIZES.large });
    }
  }
  return out;
}

export function checkConfig(
  variant: Variant,
  req: ModelCheckShape & { readonly modelBug?: ModelBugName | undefined; readonly faults?: boolean | undefined; readonly variantOptions?: OptionsByVariant | undefined },
): ModelConfig {
  const faults = req.faults === true || req.modelBug === 'indeterminate-cas-deletes-batches';
  return {
    variant,
    ...variantOptionsOf(req, variant),
    replicas: req.replicas,
    processes: req.processes,
    workersPerProcess: req.workers,
    intervals: req.intervals,
    updates: checkUpdates(req),
    persist: CHECK_PERSIST,
    maxBytesChoices: KNOB_CHOICES,
    ...(req.modelBug === 'sweep-upgrade-race' ? { bugs: { sweepUpgradeRace: true } } : {}),
    ...(req.modelBug === 'indeterminate-cas-deletes-batches' ? { bugs: { indeterminateAsMismatch: true } } : {}),
    ...(faults ? { faults: CHECK_FAULTS } : {}),
  };
}

// ---------------------------------------------------------------------------------------------------
// The SPIN anchor's configuration (bench/spin/sharedbatch.pml)

/** The core's update size: at least `CHECK_PERSIST.blobTargetSize`, so every update is one (hollow) part. */
export const CORE_UPDATE_SIZE = 100;

/**
 * The Promela model's shape in our model: 1 replica, 1 process, W workers, 1 interval, the sweep, the knob
 * fixed at 1000 B (every worker with data shares). "Worker w pushes 0..P parts" becomes: worker w holds
 * `loads[w]` updates of 100 B (one part each) and exploration pushes one per step (`pushChunkUpdates: 1`). Promela
 * chooses the count as it runs; here each load vector is its own configuration, and `coreConfigs` lists
 * them all — with symmetry only one per orbit, the counts in ascending order (renaming the workers maps
 * every other vector onto one of these; the append worker moves too, model/packed/symmetry.ts), each with
 * the number of vectors it stands for (`vectors`).
 * Promela's workers with no data join and finish empty under best-effort and skip under the barrier:
 * the no-data policies `finish` and `skip` here. Differences that make state counts incomparable one to
 * one: our model has steps Promela folds (stage, open, finish-begin/-end, hand, mint, append), and our
 * sweep runs inside a worker's builder() call, where Promela's is a process of its own.
 */
export function coreConfigs(
  variant: Variant,
  workers: number,
  parts: number,
  oneVectorPerOrbit: boolean,
  modelBug?: ModelBugName,
): { readonly loads: readonly number[]; readonly vectors: number; readonly cfg: ModelConfig }[] {
  const vectors: number[][] = [];
  const rec = (prefix: number[]) => {
    if (prefix.length === workers) {
      vectors.push(prefix);
      return;
    }
    const from = oneVectorPerOrbit && prefix.length >= 1 ? (prefix[prefix.length - 1] as number) : 0;
    for (let n = from; n <= parts; n++) rec([...prefix, n]);
  };
  rec([]);
  return vectors.map((loads) => {
    const updates: Update[] = [];
    loads.forEach((n, worker) => {
      for (let i = 0; i < n; i++) updates.push({ id: updates.length, time: 0, worker, size: CORE_UPDATE_SIZE });
    });
    const cfg: ModelConfig = {
      variant,
      replicas: 1,
      processes: 1,
      workersPerProcess: workers,
      intervals: 1,
      updates,
      persist: CHECK_PERSIST,
      maxBytesChoices: [1000],
      pushChunkUpdates: 1,
      noData: variant === 'barrier' ? 'skip' : 'finish',
      ...(modelBug === 'sweep-upgrade-race' ? { bugs: { sweepUpgradeRace: true } } : {}),
    };
    return { loads, vectors: oneVectorPerOrbit ? arrangements(loads) : 1, cfg };
  });
}

/** How many distinct vectors are permutations of `loads` (the multinomial coefficient of its counts). */
function arrangements(loads: readonly number[]): number {
  let n = 1;
  const seen = new Map<number, number>();
  loads.forEach((x, i) => {
    const k = (seen.get(x) ?? 0) + 1;
    seen.set(x, k);
    n = (n * (i + 1)) / k;
  });
  return Math.round(n);
}

/** The workload in words, one line each: updates, knob, persist (for help, output and the report). */
export const WORKLOAD_LINES: readonly string[] = [
  `updates: one per worker per interval, ${UPDATE_SIZES.small} B or ${UPDATE_SIZES.large} B alternating by worker and interval (w0 in interval 0: ${UPDATE_SIZES.small} B)`,
  `knob:    shared_batch_max_bytes chosen at each mint from {${KNOB_CHOICES.join(', ')}} B`,
  `         (0: every worker falls back; ${KNOB_CHOICES[1]}: ${UPDATE_SIZES.small} B updates share, ${UPDATE_SIZES.large} B fall back; ${KNOB_CHOICES[2]}: every worker shares)`,
  `persist: parts cut at ${CHECK_PERSIST.blobTargetSize} B, parts below ${CHECK_PERSIST.inlineSingleMaxBytes} B inline (so both part kinds occur)`,
];

export function describeShape(s: ModelCheckShape): string {
  return `${plural(s.replicas, 'replica')} × ${plural(s.processes, 'process', 'processes')} × ${plural(s.workers, 'worker')}, ${plural(s.intervals, 'interval')}`;
}

// ---------------------------------------------------------------------------------------------------
// The result

export type PropertyKind = 'always' | 'sometimes' | 'eventually';

/**
 * - `holds`: no reachable state violates it (complete search);
 * - `vacuous`: it holds, but the configuration gives it nothing to judge (`note` says what it needs: vacuity.ts);
 * - `violated`: a shortest counterexample is in `trace`;
 * - `unknown`: no violation among the states visited, but the search hit --max-states;
 * - `witnessed` / `not-witnessed`: for `sometimes`.
 */
export type PropertyVerdict = 'holds' | 'vacuous' | 'violated' | 'unknown' | 'witnessed' | 'not-witnessed';

export interface PropertyOutcome {
  readonly name: string;
  readonly kind: PropertyKind;
  readonly verdict: PropertyVerdict;
  /** For `violated`: what the property saw. */
  readonly why?: string;
  /** For `violated` and `witnessed`: a trace from the initial state (replayed and re-judged on the model). */
  readonly trace?: readonly TraceEvent[];
  /** For `violated`: false when the trace is shortest only within the partial-order-reduced graph. */
  readonly shortest?: boolean;
  /** For `not-witnessed` in a complete search: why this configuration cannot show it, when known; for
   * `vacuous`: what it needs. */
  readonly note?: string;
}

/** How the search went: figures for the bench and the JSON (wall-clock ones are diagnostics only). */
export interface SearchFigures {
  readonly search: SearchKind;
  /** The reductions that applied, in words ('none' for the plain search or with both off). */
  readonly reduction: string;
  /** Successor edges generated. */
  readonly transitions: number;
  /** Why an incomplete search stopped (`violation`: --first-violation found one). */
  readonly stopped: 'max-states' | 'max-memory' | 'max-time' | 'violation' | null;
  /** Deepest BFS level, states stored but not expanded when it stopped, and successor edges it did not
   * store because of --max-states. */
  readonly depth: number;
  readonly frontier: number;
  readonly dropped: number;
  /** Bytes of the packed state store (tuples, index, parents, edges); 0 for the plain search. */
  readonly storeBytes: number;
  readonly memoBytes: number;
  /** The process's peak resident set so far (bytes). */
  readonly peakRssBytes: number;
  /** Configurations searched (more than one for --core: one per load vector). */
  readonly configs: number;
  /** States of the re-search that made the counterexamples shortest (0 when none ran). */
  readonly refineStates: number;
  /** --shard: which one, of how many, at which BFS depth the frontier was split, and its roots. */
  readonly shard?: { readonly index: number; readonly count: number; readonly depth: number; readonly roots: number };
}

export interface VariantCheck {
  readonly variant: Variant;
  /** Distinct states visited (representatives, with reductions). */
  readonly states: number;
  /**
   * The states they stand for without the symmetry: the sizes of their orbits added up (with --core,
   * times the load vectors each stands for); null where not computed (replica symmetry, the plain search).
   */
  readonly unreduced: number | null;
  readonly finals: number;
  readonly complete: boolean;
  /** Wall-clock milliseconds (diagnostic only). */
  readonly ms: number;
  readonly properties: readonly PropertyOutcome[];
  readonly figures: SearchFigures;
}

export interface ModelCheckResult {
  /** 0 every search complete and nothing violated; 1 a violation (whether or not every search completed); 4 incomplete. */
  readonly exitCode: 0 | 1 | 4;
  readonly request: ModelCheckRequest;
  readonly variants: readonly VariantCheck[];
  /** One line: `sbkit model --check: ok …`, `… FAILED …` or `… INCOMPLETE …`. */
  readonly summary: string;
  /** `--combine`: the shards (`I/N`) whose files were not given. */
  readonly missingShards?: readonly string[];
}

const violatedIn = (v: VariantCheck): boolean => v.properties.some((p) => p.verdict === 'violated');

/** Why a `sometimes` property cannot be witnessed in this configuration, when that is structural. */
function unwitnessedNote(name: string, variant: Variant, shape: ModelCheckShape & { readonly faults?: boolean | undefined; readonly modelBug?: ModelBugName | undefined }): string | undefined {
  const faultWorld = shape.faults === true || shape.modelBug === 'indeterminate-cas-deletes-batches';
  if (!faultWorld && (name === 'sometimes-replica-restarted' || name === 'sometimes-indeterminate-commit')) return 'needs --faults';
  if (name === 'sometimes-refused-append' && shape.replicas < 2) return 'needs --replicas 2';
  return presentationOf(variant)?.unwitnessed[name];
}

/** A property no reachable state violates: `holds`, or `vacuous` where the configuration gives it nothing to judge. */
export function heldIn(p: { readonly name: string; readonly kind: PropertyKind }, variant: Variant, req: ModelCheckRequest): PropertyOutcome {
  const faults = req.faults === true || req.modelBug === 'indeterminate-cas-deletes-batches';
  const needs = vacuousBecause(p.name, { variant, replicas: req.replicas, faults });
  return needs === undefined ? { name: p.name, kind: p.kind, verdict: 'holds' } : { name: p.name, kind: p.kind, verdict: 'vacuous', note: needs };
}

export interface ModelCheckHooks {
  /** Wall clock in ms (Io.now). */
  readonly now: () => number;
  /** `fraction` of the whole check, and what runs now (for the progress bar). */
  readonly onProgress?: (fraction: number, label: string) => void;
  /** Resident memory in bytes (default: this process's RSS). */
  readonly memory?: () => number;
}

/** What one search of one configuration found (either search), before it becomes a VariantCheck. */
interface Found {
  readonly states: number;
  readonly unreduced: number | null;
  readonly finals: number;
  readonly complete: boolean;
  readonly violations: readonly { readonly property: string; readonly why: string; readonly trace: readonly TraceEvent[]; readonly shortest: boolean }[];
  readonly witnesses: readonly { readonly property: string; readonly trace: readonly TraceEvent[] }[];
  readonly figures: Omit<SearchFigures, 'configs' | 'peakRssBytes'> & { readonly porStates?: number | null };
}

const peakRss = (): number => process.resourceUsage().maxRSS * 1024;

/** Runs the exhaustive search for each requested variant (lazily loading model/ and spec/). */
export async function runModelCheck(req: ModelCheckRequest, hooks: ModelCheckHooks): Promise<ModelCheckResult> {
  const [{ search }, { checkPackedJobs }, { properties: all }, { policyOf }] = await Promise.all([
    import('../model/search.ts'),
    import('../model/packed/check.ts'),
    import('../spec/properties.ts'),
    import('../model/variants/index.ts'),
  ]);
  const kind = searchOf(req);
  const variants: VariantCheck[] = [];
  for (const [i, variant] of req.variants.entries()) {
    const configs =
      req.core === undefined
        ? [{ loads: [] as readonly number[], vectors: 1, cfg: checkConfig(variant, req) }]
        : coreConfigs(variant, req.workers, req.core.parts, req.symmetry !== false, req.modelBug);
    const started = hooks.now();
    // The properties this variant is judged by (model/variants/: what it adds, drops or changes).
    const properties = policyOf(configs[0]?.cfg ?? checkConfig(variant, req)).properties(all);
    const found: Found[] = [];
    for (const [j, { cfg, vectors }] of configs.entries()) {
      const onProgress =
        hooks.onProgress === undefined
          ? undefined
          : (expanded: number, states: number) =>
              hooks.onProgress?.((i + (j + expanded / states) / configs.length) / req.variants.length, `${variant}: ${thousands(states)} states`);
      if (kind === 'plain') {
        const r = search(cfg, { maxStates: req.maxStates, properties, ...(onProgress === undefined ? {} : { onProgress }) });
        found.push({
          states: r.states,
          unreduced: null,
          finals: r.finals,
          complete: r.complete,
          violations: r.violations.map((v) => ({ ...v, shortest: true })),
          witnesses: r.witnesses,
          figures: { search: 'plain', reduction: 'none', transitions: 0, stopped: r.complete ? null : 'max-states', depth: 0, frontier: 0, dropped: 0, storeBytes: 0, memoBytes: 0, refineStates: 0 },
        });
      } else {
        const r = await checkPackedJobs(cfg, {
          jobs: req.jobs ?? 1,
          properties,
          maxStates: req.maxStates,
          maxBytes: req.maxMemory ?? DEFAULT_MAX_MEMORY,
          ...(hooks.memory === undefined ? {} : { memory: hooks.memory }),
          ...(req.maxSeconds === undefined ? {} : { maxMillis: req.maxSeconds * 1000, now: hooks.now }),
          symmetry: req.symmetry !== false,
          por: req.por !== false,
          ...(req.shard === undefined ? {} : { shard: req.shard }),
          ...(req.firstViolation === true ? { firstViolation: true } : {}),
          ...(onProgress === undefined ? {} : { onProgress }),
        });
        found.push({
          states: r.states,
          unreduced: r.unreduced === null ? null : r.unreduced * vectors,
          finals: r.finals,
          complete: r.complete,
          violations: r.violations.map((v) => ({ ...v, shortest: r.shortest[v.property] === true })),
          witnesses: r.witnesses,
          figures: {
            search: 'packed',
            reduction: r.reduction,
            porStates: r.porStates,
            transitions: r.transitions,
            stopped: r.stopped === 'max-memory' || r.stopped === 'max-states' || r.stopped === 'max-time' || r.stopped === 'violation' ? r.stopped : null,
            depth: r.depth,
            frontier: r.frontier,
            dropped: r.dropped,
            storeBytes: r.storeBytes,
            memoBytes: r.memoBytes,
            refineStates: r.refineStates,
            ...(r.shard === undefined ? {} : { shard: r.shard }),
          },
        });
      }
      if (!(found.at(-1)?.complete ?? false)) break;
    }
    const ms = Math.round(hooks.now() - started);
    variants.push(variantCheck(variant, req, found, ms, properties));
  }
  return combineSummary(req, variants);
}

/** The result of these variant checks: exit code and summary line. */
export function combineSummary(req: ModelCheckRequest, variants: readonly VariantCheck[]): ModelCheckResult {
  const exitCode = variants.some(violatedIn) ? 1 : variants.every((v) => v.complete) ? 0 : 4;
  return { exitCode, request: req, variants, summary: summaryLine(req, variants) };
}

/** Why the check exits non-zero, one line each, with the flag that would change it. */
export function modelCheckReasons(r: ModelCheckResult): Reason[] {
  const req = r.request;
  const out: Reason[] = [];
  for (const v of r.variants) {
    for (const p of v.properties.filter((x) => x.verdict === 'violated')) {
      const cause = req.modelBug === undefined ? 'its shortest counterexample is printed above' : `--model-bug ${req.modelBug} switched the bug on`;
      out.push(violation(`${v.variant}: ${p.kind} ${p.name} VIOLATED in ${plural(p.trace?.length ?? 0, 'event')}: ${p.why ?? ''} (${cause})`));
    }
    if (!v.complete && v.figures.stopped !== null) {
      const raise = v.figures.stopped === 'max-memory' ? '--max-memory' : v.figures.stopped === 'max-time' ? '--max-seconds' : '--max-states';
      out.push(incomplete(`${v.variant}: search incomplete, ${stopText(v, req)} (raise ${raise}, search a smaller shape, or split it with --shard I/N)`));
    }
  }
  if (r.missingShards !== undefined && r.missingShards.length > 0) {
    out.push(incomplete(`shards ${r.missingShards.join(', ')} missing: no verdict without every shard (run each with --shard I/N --json and give every file to --combine)`));
  }
  return out;
}

/** The reductions of several searches (one per load vector) in words. */
function multiReduction(req: ModelCheckRequest, found: readonly Found[]): string {
  if (searchOf(req) === 'plain') return 'none';
  const parts = [
    req.symmetry !== false ? 'symmetry: workers with identical loads, per load vector (append workers move too)' : undefined,
    req.por !== false ? `partial order: ${thousands(found.reduce((n, f) => n + (f.figures.porStates ?? 0), 0))} states expanded only a persistent subset` : undefined,
  ].filter((x) => x !== undefined);
  return parts.length === 0 ? 'none' : parts.join('; ');
}

/** Several searches (one per --core load vector) as one variant: counts add up; the shortest trace wins. */
function variantCheck(variant: Variant, req: ModelCheckRequest, found: readonly Found[], ms: number, properties: readonly { name: string; kind: PropertyKind }[]): VariantCheck {
  const complete = found.every((f) => f.complete);
  const shortestOf = <T extends { readonly trace: readonly TraceEvent[] }>(xs: readonly (T | undefined)[]): T | undefined =>
    xs.filter((x): x is T => x !== undefined).sort((a, b) => a.trace.length - b.trace.length)[0];
  const outcomes = properties.map((p): PropertyOutcome => {
    if (p.kind === 'sometimes') {
      const w = shortestOf(found.map((f) => f.witnesses.find((x) => x.property === p.name)));
      if (w !== undefined) return { name: p.name, kind: p.kind, verdict: 'witnessed', trace: w.trace };
      const note = complete ? unwitnessedNote(p.name, variant, req) : 'search incomplete';
      return { name: p.name, kind: p.kind, verdict: 'not-witnessed', ...(note === undefined ? {} : { note }) };
    }
    const v = shortestOf(found.map((f) => f.violations.find((x) => x.property === p.name)));
    if (v !== undefined) return { name: p.name, kind: p.kind, verdict: 'violated', why: v.why, trace: v.trace, shortest: v.shortest };
    return complete ? heldIn(p, variant, req) : { name: p.name, kind: p.kind, verdict: 'unknown' };
  });
  const first = found[0]?.figures;
  const sum = (f: (x: Found) => number) => found.reduce((n, x) => n + f(x), 0);
  const last = found.at(-1)?.figures;
  return {
    variant,
    states: sum((f) => f.states),
    unreduced: found.some((f) => f.unreduced === null) ? null : sum((f) => f.unreduced as number),
    finals: sum((f) => f.finals),
    complete,
    ms,
    properties: outcomes,
    figures: {
      search: first?.search ?? searchOf(req),
      reduction: found.length === 1 ? (first?.reduction ?? 'none') : multiReduction(req, found),
      transitions: sum((f) => f.figures.transitions),
      stopped: last?.stopped ?? null,
      depth: Math.max(0, ...found.map((f) => f.figures.depth)),
      frontier: last?.frontier ?? 0,
      dropped: sum((f) => f.figures.dropped),
      storeBytes: sum((f) => f.figures.storeBytes),
      memoBytes: sum((f) => f.figures.memoBytes),
      peakRssBytes: peakRss(),
      configs: found.length,
      refineStates: sum((f) => f.figures.refineStates),
      ...(last?.shard === undefined ? {} : { shard: last.shard }),
    },
  };
}

function summaryLine(req: ModelCheckRequest, variants: readonly VariantCheck[]): string {
  const states = variants.reduce((n, v) => n + v.states, 0);
  const problems: string[] = [];
  for (const v of variants) {
    const violated = v.properties.filter((p) => p.verdict === 'violated').map((p) => p.name);
    if (violated.length > 0) problems.push(`${v.variant}: ${violated.join(', ')} VIOLATED`);
    if (!v.complete) problems.push(`${v.variant}: search incomplete (${stopText(v, req)})`);
  }
  const what = `${plural(variants.length, 'variant')}, ${plural(states, 'state')}`;
  const vacuous = variants.reduce((n, v) => n + v.properties.filter((p) => p.verdict === 'vacuous').length, 0);
  if (problems.length === 0) return `sbkit model --check: ok (${what}; every always/eventually property holds${vacuous === 0 ? '' : `, ${vacuous} of them vacuously`})`;
  return `sbkit model --check: ${variants.some(violatedIn) ? 'FAILED' : 'INCOMPLETE'} (${what}): ${problems.join('; ')}`;
}

// ---------------------------------------------------------------------------------------------------
// Output

/** The one printer of trace events (conformance/event-text.ts), under the name this file's callers use. */
export const formatTraceEvent = formatEvent;

/** A trace, one event per line, numbered from 1; the last event (the one that reached the state) marked `>>`. */
export function formatTrace(trace: readonly TraceEvent[], indent: string): string[] {
  const width = String(trace.length).length;
  return trace.map((e, i) => `${indent}${i === trace.length - 1 ? '>>' : '  '} ${String(i + 1).padStart(width)}  ${formatTraceEvent(e)}`);
}

/** Why an incomplete search stopped, and how far it got. */
function stopText(v: VariantCheck, req: ModelCheckRequest): string {
  const f = v.figures;
  if (f.stopped === null && f.search === 'packed') return 'not every shard was searched';
  if (f.search === 'plain') return `hit --max-states ${thousands(req.maxStates)}`;
  if (f.stopped === 'violation') return `stopped at the first violation (--first-violation): ${plural(v.states, 'state')} stored, BFS depth ${f.depth}`;
  if (f.stopped === 'max-time') {
    return `hit --max-seconds ${thousands(req.maxSeconds ?? 0)}: ${plural(v.states, 'state')} stored, ${thousands(f.frontier)} not yet expanded, BFS depth ${f.depth}`;
  }
  return f.stopped === 'max-memory'
    ? `hit --max-memory ${bytes(req.maxMemory ?? DEFAULT_MAX_MEMORY)}: ${plural(v.states, 'state')} stored, ${thousands(f.frontier)} not yet expanded, BFS depth ${f.depth}`
    : `hit --max-states ${thousands(req.maxStates)}: ${plural(v.states, 'state')} stored, ${plural(f.dropped, 'successor')} beyond the limit, BFS depth ${f.depth}`;
}

function verdictText(p: PropertyOutcome): string {
  switch (p.verdict) {
    case 'holds':
      return 'holds';
    case 'vacuous':
      return `vacuous (${p.note ?? 'nothing to judge'})`;
    case 'violated':
      return `VIOLATED (${plural(p.trace?.length ?? 0, 'event')}${p.shortest === false ? '; shortest under the partial-order reduction only' : ''})`;
    case 'unknown':
      return 'UNKNOWN (no violation in the states explored; search incomplete)';
    case 'witnessed':
      return `witnessed (${p.trace?.length ?? 0}-event example)`;
    case 'not-witnessed':
      return p.note === undefined ? 'NOT witnessed' : `NOT witnessed (${p.note})`;
  }
}

/** The search and its limits in words: `packed search (symmetry, partial order); limit … states, 4GiB`. */
export function describeSearch(req: ModelCheckRequest): string {
  if (searchOf(req) === 'plain') return `plain search (model/search.ts, no reductions); limit ${thousands(req.maxStates)} states per variant`;
  const on = [req.symmetry !== false ? 'symmetry' : undefined, req.por !== false ? 'partial order' : undefined].filter((x) => x !== undefined);
  return (
    `packed search (${on.length === 0 ? 'no reductions' : on.join(', ')}); limit ${thousands(req.maxStates)} states or ${bytes(req.maxMemory ?? DEFAULT_MAX_MEMORY)} RSS per variant` +
    (req.shard === undefined ? '' : `; shard ${req.shard.index + 1}/${req.shard.count}`) +
    (req.firstViolation === true ? '; until the first violation' : '') +
    ((req.jobs ?? 1) > 1 ? `; ${req.jobs} threads` : '')
  );
}

function headerLines(req: ModelCheckRequest): string[] {
  return [
    `model check: ${describeShape(req)}; model bug: ${req.modelBug ?? 'none'}; ${req.faults === true || req.modelBug === 'indeterminate-cas-deletes-batches' ? `fault world: ≤ ${CHECK_FAULTS.aborts} abort, ≤ ${CHECK_FAULTS.indeterminate} indeterminate compare-and-set, cleanup; ` : ''}${describeSearch(req)}`,
    ...(req.core === undefined ? WORKLOAD_LINES : coreLines(req.core.parts)).map((l) => `  ${l}`),
  ];
}

/** The --core workload in words. */
export function coreLines(parts: number): string[] {
  return [
    `core (the SPIN anchor's shape): every worker holds 0..${parts} updates of ${CORE_UPDATE_SIZE} B, one part each, pushed one per step; knob 1000 B (every worker with data shares)`,
    '         one search per load vector (with symmetry: one per orbit, counts ascending); counts and verdicts add up over them',
  ];
}

function variantLine(v: VariantCheck, req: ModelCheckRequest): string {
  const complete = v.complete ? 'complete' : `INCOMPLETE (${stopText(v, req)})`;
  const stands = v.unreduced === null || v.unreduced === v.states ? '' : ` (standing for ${thousands(v.unreduced)} without the symmetry)`;
  return `${v.variant}: ${plural(v.states, 'state')} explored${stands}, ${thousands(v.finals)} final, ${complete}, ${millis(v.ms)}`;
}

/** The second line of a variant: the search's figures (diagnostics). */
function figuresLine(v: VariantCheck): string {
  const f = v.figures;
  if (f.search === 'plain') return '  plain search';
  const perState = v.states === 0 ? 0 : f.storeBytes / v.states;
  const rate = v.ms === 0 ? 0 : (v.states * 1000) / v.ms;
  return (
    `  ${f.reduction}; ${plural(f.transitions, 'transition')}` +
    (f.configs > 1 ? `; ${thousands(f.configs)} load vectors` : '') +
    `; ${fixed(perState, 1)} B/state stored; ${thousands(Math.round(rate))} states/s; peak RSS ${bytes(f.peakRssBytes)}` +
    (f.refineStates > 0 ? `; ${thousands(f.refineStates)} states re-searched for shortest counterexamples` : '') +
    (f.shard === undefined ? '' : `; shard ${f.shard.index + 1}/${f.shard.count}: frontier split at depth ${f.shard.depth}, ${thousands(f.shard.roots)} roots`)
  );
}

/** The command line that runs this check again (flags at their defaults left out). */
export function modelCheckCommand(q: ModelCheckRequest): string {
  const flags: string[] = ['sbkit model --check'];
  if (q.variants.length === 1) flags.push(`--variant ${q.variants[0]}`);
  for (const k of ['workers', 'processes', 'replicas', 'intervals'] as const) if (q[k] !== DEFAULT_SHAPE[k]) flags.push(`--${k} ${q[k]}`);
  if (q.modelBug !== undefined) flags.push(`--model-bug ${q.modelBug}`);
  if (q.faults === true) flags.push('--faults');
  if (searchOf(q) === 'plain') flags.push('--search plain');
  if (q.symmetry === false) flags.push('--symmetry off');
  if (q.por === false) flags.push('--por off');
  if (q.core !== undefined) flags.push(`--core${q.core.parts === 1 ? '' : ` --parts ${q.core.parts}`}`);
  if (q.shard !== undefined) flags.push(`--shard ${q.shard.index + 1}/${q.shard.count}`);
  return flags.join(' ');
}

/** The full text output: header, then per variant its counts and every property with its verdict. */
export function renderModelCheck(r: ModelCheckResult): string {
  const lines = headerLines(r.request);
  const nameWidth = Math.max(...r.variants.flatMap((v) => v.properties.map((p) => p.name.length)));
  for (const v of r.variants) {
    lines.push('', variantLine(v, r.request), figuresLine(v));
    for (const p of v.properties) {
      lines.push(`  ${p.kind.padEnd(10)}  ${p.name.padEnd(nameWidth)}  ${verdictText(p)}`);
      if (p.verdict === 'violated') {
        lines.push(`      ${p.why ?? ''}`, ...formatTrace(p.trace ?? [], '      '));
      }
    }
  }
  lines.push('', r.summary);
  return `${lines.join('\n')}\n`;
}

/** The compact form for `npm start`: one row per variant, then the summary line. */
export function renderModelCheckTable(r: ModelCheckResult): string {
  const rows = r.variants.map((v) => {
    const judged = v.properties.filter((p) => p.kind !== 'sometimes');
    const held = judged.filter((p) => p.verdict === 'holds').length;
    const vacuous = judged.filter((p) => p.verdict === 'vacuous').length;
    const violated = judged.filter((p) => p.verdict === 'violated').map((p) => p.name);
    const sometimes = v.properties.filter((p) => p.kind === 'sometimes');
    return [
      v.variant,
      thousands(v.states),
      thousands(v.finals),
      v.complete ? 'yes' : 'NO',
      violated.length > 0 ? `VIOLATED: ${violated.join(', ')}` : `${held}/${judged.length} hold${vacuous === 0 ? '' : `, ${vacuous} vacuous`}`,
      `${sometimes.filter((p) => p.verdict === 'witnessed').length}/${sometimes.length}`,
      millis(v.ms),
    ];
  });
  const table = renderTable(
    [col('variant', 'left'), col('states'), col('final'), col('complete', 'left'), col('always/eventually', 'left'), col('sometimes witnessed'), col('time')],
    rows,
  );
  return `${headerLines(r.request)[0] ?? ''}\n\n${table}\n${r.summary}\n`;
}

/** The `--json` object: the request, the workload, and per variant its counts and property outcomes. */
export function modelCheckJson(r: ModelCheckResult): unknown {
  const q = r.request;
  const reasons = modelCheckReasons(r);
  return {
    exitCode: r.exitCode,
    summary: r.summary,
    reasons: reasons.map((x) => x.text),
    // Per violated property: what a CI job needs to see and reproduce it (the search is exhaustive and
    // deterministic: the same command finds the same shortest counterexample; there is no seed).
    failures: r.variants.flatMap((v) =>
      v.properties
        .filter((p) => p.verdict === 'violated')
        .map((p) => ({
          variant: v.variant,
          property: p.name,
          kind: p.kind,
          why: p.why ?? '',
          events: (p.trace ?? []).map(formatTraceEvent),
          shortest: p.shortest !== false,
          command: modelCheckCommand({ ...q, variants: [v.variant] }),
        })),
    ),
    config: {
      workers: q.workers,
      processes: q.processes,
      replicas: q.replicas,
      intervals: q.intervals,
      variants: q.variants,
      maxStates: q.maxStates,
      modelBug: q.modelBug ?? null,
      search: searchOf(q),
      symmetry: q.symmetry !== false,
      por: q.por !== false,
      maxMemory: q.maxMemory ?? DEFAULT_MAX_MEMORY,
      maxSeconds: q.maxSeconds ?? null,
      shard: q.shard ?? null,
      jobs: q.jobs ?? 1,
      core: q.core ?? null,
      firstViolation: q.firstViolation === true,
      workload:
        q.core === undefined
          ? { updates: 'one per worker per interval', sizes: [UPDATE_SIZES.small, UPDATE_SIZES.large], knobChoices: KNOB_CHOICES, persist: CHECK_PERSIST }
          : { updates: `0..${q.core.parts} per worker, one part each`, sizes: [CORE_UPDATE_SIZE], knobChoices: [1000], persist: CHECK_PERSIST },
    },
    variants: r.variants.map((v) => ({
      ...v,
      properties: v.properties.map((p) => ({ ...p, ...(p.trace === undefined ? {} : { events: p.trace.length, text: p.trace.map(formatTraceEvent) }) })),
    })),
  };
}
