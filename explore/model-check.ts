/**
 * `sbkit model --check`: Stateright-style exhaustive check of the model. For each variant, a
 * breadth-first search (model/search.ts) visits every reachable state of a small configuration and
 * judges every property of spec/properties.ts: `always` on every state, `eventually` on final states
 * (no enabled action), `sometimes` as a reachability witness. BFS makes every counterexample and
 * witness a shortest one.
 *
 * model/ and spec/ are imported lazily, so other subcommands do not load the model. Wall time is
 * measured with the injected clock and printed as a diagnostic; it never enters the HTML report.
 */
import { type BatchSummary, type PartsSummary, type PersistConfig, type TraceEvent, VARIANTS, type Variant } from '../vocab/index.ts';
import type { ModelConfig, Update } from '../model/config.ts';
import { millis, plural, thousands } from './format.ts';
import { col, renderTable } from './table.ts';

/** The bugs the model itself can exhibit (model/config.ts `ModelBugs`), by their gallery names. */
export const MODEL_BUG_NAMES = ['sweep-upgrade-race', 'indeterminate-cas-deletes-batches'] as const;

/** The fault world's bounds for `--faults`: one abort and one indeterminate commit per run, cleanup on. */
export const CHECK_FAULTS = { aborts: 1, indeterminate: 1, cleanup: true } as const;
export type ModelBugName = (typeof MODEL_BUG_NAMES)[number];

export const DEFAULT_MAX_STATES = 200_000;

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
}

/** What `npm start`, `sbkit report` and a bare `sbkit model --check` run. */
export const DEFAULT_MODEL_CHECK: ModelCheckRequest = { variants: VARIANTS, ...DEFAULT_SHAPE, maxStates: DEFAULT_MAX_STATES };

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

export function checkConfig(variant: Variant, req: ModelCheckShape & { readonly modelBug?: ModelBugName | undefined; readonly faults?: boolean | undefined }): ModelConfig {
  const faults = req.faults === true || req.modelBug === 'indeterminate-cas-deletes-batches';
  return {
    variant,
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
 * - `violated`: a shortest counterexample is in `trace`;
 * - `unknown`: no violation among the states visited, but the search hit --max-states;
 * - `witnessed` / `not-witnessed`: for `sometimes`.
 */
export type PropertyVerdict = 'holds' | 'violated' | 'unknown' | 'witnessed' | 'not-witnessed';

export interface PropertyOutcome {
  readonly name: string;
  readonly kind: PropertyKind;
  readonly verdict: PropertyVerdict;
  /** For `violated`: what the property saw. */
  readonly why?: string;
  /** For `violated` and `witnessed`: the shortest trace from the initial state. */
  readonly trace?: readonly TraceEvent[];
  /** For `not-witnessed` in a complete search: why this configuration cannot show it, when known. */
  readonly note?: string;
}

export interface VariantCheck {
  readonly variant: Variant;
  /** Distinct states visited. */
  readonly states: number;
  readonly finals: number;
  readonly complete: boolean;
  /** Wall-clock milliseconds (diagnostic only). */
  readonly ms: number;
  readonly properties: readonly PropertyOutcome[];
}

export interface ModelCheckResult {
  readonly exitCode: 0 | 1;
  readonly request: ModelCheckRequest;
  readonly variants: readonly VariantCheck[];
  /** One line: `sbkit model --check: ok …` or `… FAILED …`. */
  readonly summary: string;
}

/** A check failed when any search is incomplete or any always/eventually property is violated. */
const variantFailed = (v: VariantCheck): boolean => !v.complete || v.properties.some((p) => p.verdict === 'violated');

/** Why a `sometimes` property cannot be witnessed in this configuration, when that is structural. */
function unwitnessedNote(name: string, variant: Variant, shape: ModelCheckShape & { readonly faults?: boolean | undefined; readonly modelBug?: ModelBugName | undefined }): string | undefined {
  const faultWorld = shape.faults === true || shape.modelBug === 'indeterminate-cas-deletes-batches';
  if (!faultWorld && (name === 'sometimes-replica-restarted' || name === 'sometimes-indeterminate-commit')) return 'needs --faults';
  if (name === 'sometimes-refused-append' && shape.replicas < 2) return 'needs --replicas 2';
  if (variant === 'off' && (name === 'sometimes-several-batches-for-one-id' || name === 'sometimes-fallback-and-shared-in-one-append')) return 'off never shares';
  if (variant === 'barrier' && name === 'sometimes-several-batches-for-one-id') return 'the barrier builds one batch per id';
  return undefined;
}

export interface ModelCheckHooks {
  /** Wall clock in ms (Io.now). */
  readonly now: () => number;
  /** `fraction` of the whole check, and what runs now (for the progress bar). */
  readonly onProgress?: (fraction: number, label: string) => void;
}

/** Runs the exhaustive search for each requested variant (lazily loading model/ and spec/). */
export async function runModelCheck(req: ModelCheckRequest, hooks: ModelCheckHooks): Promise<ModelCheckResult> {
  const [{ search }, { properties }] = await Promise.all([import('../model/search.ts'), import('../spec/properties.ts')]);
  const variants: VariantCheck[] = [];
  for (const [i, variant] of req.variants.entries()) {
    const cfg = checkConfig(variant, req);
    const started = hooks.now();
    const r = search(cfg, {
      maxStates: req.maxStates,
      properties,
      ...(hooks.onProgress === undefined
        ? {}
        : {
            onProgress: (expanded: number, states: number) =>
              hooks.onProgress?.((i + expanded / states) / req.variants.length, `${variant}: ${thousands(states)} states`),
          }),
    });
    const ms = Math.round(hooks.now() - started);
    const outcomes = properties.map((p): PropertyOutcome => {
      if (p.kind === 'sometimes') {
        const w = r.witnesses.find((x) => x.property === p.name);
        if (w !== undefined) return { name: p.name, kind: p.kind, verdict: 'witnessed', trace: w.trace };
        const note = r.complete ? unwitnessedNote(p.name, variant, req) : 'search incomplete';
        return { name: p.name, kind: p.kind, verdict: 'not-witnessed', ...(note === undefined ? {} : { note }) };
      }
      const v = r.violations.find((x) => x.property === p.name);
      if (v !== undefined) return { name: p.name, kind: p.kind, verdict: 'violated', why: v.why, trace: v.trace };
      return { name: p.name, kind: p.kind, verdict: r.complete ? 'holds' : 'unknown' };
    });
    variants.push({ variant, states: r.states, finals: r.finals, complete: r.complete, ms, properties: outcomes });
  }
  const failed = variants.filter(variantFailed);
  return { exitCode: failed.length === 0 ? 0 : 1, request: req, variants, summary: summaryLine(req, variants) };
}

function summaryLine(req: ModelCheckRequest, variants: readonly VariantCheck[]): string {
  const states = variants.reduce((n, v) => n + v.states, 0);
  const problems: string[] = [];
  for (const v of variants) {
    const violated = v.properties.filter((p) => p.verdict === 'violated').map((p) => p.name);
    if (violated.length > 0) problems.push(`${v.variant}: ${violated.join(', ')} VIOLATED`);
    if (!v.complete) problems.push(`${v.variant}: search incomplete (hit --max-states ${thousands(req.maxStates)})`);
  }
  const what = `${plural(variants.length, 'variant')}, ${plural(states, 'state')}`;
  return problems.length === 0
    ? `sbkit model --check: ok (${what}; every always/eventually property holds)`
    : `sbkit model --check: FAILED (${what}): ${problems.join('; ')}`;
}

// ---------------------------------------------------------------------------------------------------
// Output

const parts = (p: PartsSummary): string => `${p.hollow} hollow + ${p.inline} inline`;
const ids = (xs: readonly number[]): string => `[${xs.join(', ')}]`;
const batch = (b: BatchSummary): string => `${ids(b.updates)} (${parts(b.parts)})`;

/** A protocol event as one readable line: who, what, and the predicted outcome after `→`. */
export function formatTraceEvent(e: TraceEvent): string {
  const r = `r${e.replica}`;
  switch (e.kind) {
    case 'frontier':
      return `${r} frontier: desired upper ${e.upper}`;
    case 'mint':
      return `${r} mint id=${e.desc.sharedId} [${e.desc.lower}, ${e.desc.upper}) append-worker=w${e.desc.appendWorker} knob=${e.desc.maxBytes} B${e.desc.barrier ? ' barrier' : ''}`;
    case 'stage':
      return `${r} w${e.worker} stage id=${e.sharedId} updates=${ids(e.updates)} (${e.bytes} B) → ${e.route}`;
    case 'open':
      return `${r} w${e.worker} open id=${e.sharedId}${e.participants === null ? '' : ` participants=${e.participants}`} → ${e.created ? 'new builder' : 'joins the live builder'}`;
    case 'push':
      return `${r} w${e.worker} push id=${e.sharedId} updates=${ids(e.updates)}`;
    case 'finish-begin':
      return `${r} w${e.worker} finish-begin id=${e.sharedId} → last=${e.last}`;
    case 'finish-end':
      return `${r} w${e.worker} finish-end id=${e.sharedId} → ${e.received === null ? 'no batch' : `receives ${batch(e.received)}`}`;
    case 'skip':
      return `${r} w${e.worker} skip id=${e.sharedId}${e.early ? ' → early' : ''}`;
    case 'own-batch':
      return `${r} w${e.worker} own-batch id=${e.sharedId} → ${batch(e.batch)}`;
    case 'hand':
      return `${r} w${e.worker} hand id=${e.sharedId} → ${e.batches.length === 0 ? 'no batch' : e.batches.map(batch).join(', ')}`;
    case 'append':
      return (
        `${r} append [${e.lower}, ${e.upper}) ${plural(e.batches, 'batch', 'batches')}, ${parts(e.parts)}, updates=${ids(e.updates)} → ` +
        (e.result.ok ? 'ok' : `upper mismatch (shard at ${e.result.current})`)
      );
    case 'delete':
      return `${r} delete lower=${e.lower} → ${plural(e.batches, 'batch', 'batches')} (${e.reason})`;
    case 'backpressure':
      return `${r} inline backpressure at lower=${e.lower}: ${e.inlineBytes} + ${e.adding} B ≥ the limit → flush ${plural(e.flushed, 'inline part', 'inline parts')} to blob, retry`;
    case 'bump':
      return `${r} bump the shard [${e.from}, ${e.to}) with an empty append (the shard was behind the lower)`;
    case 'sweep':
      return `${r} p${e.process} sweep → removed ${ids(e.removed)}`;
    case 'sweep-hold':
      return `${r} p${e.process} sweep-hold id=${e.sharedId}`;
    case 'sweep-release':
      return `${r} p${e.process} sweep-release id=${e.sharedId} → closed=${e.closed}`;
    case 'drop':
      return `${r} w${e.worker} drop id=${e.sharedId} → closed=${e.closed}`;
    case 'fault':
      return `${r} fault ${e.op} → ${e.fault}`;
    case 'abort':
      return `${r} abort (${e.reason})`;
    case 'restart':
      return `${r} restart → lower ${e.lower}`;
    case 'cleanup':
      return `${r} cleanup → deleted ${e.deleted}`;
  }
}

/** A trace, one event per line, numbered from 1; the last event (the one that reached the state) marked `>>`. */
export function formatTrace(trace: readonly TraceEvent[], indent: string): string[] {
  const width = String(trace.length).length;
  return trace.map((e, i) => `${indent}${i === trace.length - 1 ? '>>' : '  '} ${String(i + 1).padStart(width)}  ${formatTraceEvent(e)}`);
}

function verdictText(p: PropertyOutcome): string {
  switch (p.verdict) {
    case 'holds':
      return 'holds';
    case 'violated':
      return `VIOLATED (${plural(p.trace?.length ?? 0, 'event')})`;
    case 'unknown':
      return 'UNKNOWN (no violation in the states explored; search incomplete)';
    case 'witnessed':
      return `witnessed (${p.trace?.length ?? 0}-event example)`;
    case 'not-witnessed':
      return p.note === undefined ? 'NOT witnessed' : `NOT witnessed (${p.note})`;
  }
}

function headerLines(req: ModelCheckRequest): string[] {
  return [
    `model check: ${describeShape(req)}; model bug: ${req.modelBug ?? 'none'}; ${req.faults === true || req.modelBug === 'indeterminate-cas-deletes-batches' ? `fault world: ≤ ${CHECK_FAULTS.aborts} abort, ≤ ${CHECK_FAULTS.indeterminate} indeterminate compare-and-set, cleanup; ` : ''}limit ${thousands(req.maxStates)} states per variant`,
    ...WORKLOAD_LINES.map((l) => `  ${l}`),
  ];
}

function variantLine(v: VariantCheck, maxStates: number): string {
  const complete = v.complete ? 'complete' : `INCOMPLETE (hit --max-states ${thousands(maxStates)})`;
  return `${v.variant}: ${plural(v.states, 'state')} explored, ${thousands(v.finals)} final, ${complete}, ${millis(v.ms)}`;
}

/** The full text output: header, then per variant its counts and every property with its verdict. */
export function renderModelCheck(r: ModelCheckResult): string {
  const lines = headerLines(r.request);
  const nameWidth = Math.max(...r.variants.flatMap((v) => v.properties.map((p) => p.name.length)));
  for (const v of r.variants) {
    lines.push('', variantLine(v, r.request.maxStates));
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
    const violated = judged.filter((p) => p.verdict === 'violated').map((p) => p.name);
    const sometimes = v.properties.filter((p) => p.kind === 'sometimes');
    return [
      v.variant,
      thousands(v.states),
      thousands(v.finals),
      v.complete ? 'yes' : 'NO',
      violated.length > 0 ? `VIOLATED: ${violated.join(', ')}` : `${held}/${judged.length} hold`,
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
  const { variants, maxStates, modelBug, ...shape } = r.request;
  return {
    exitCode: r.exitCode,
    summary: r.summary,
    config: {
      ...shape,
      variants,
      maxStates,
      modelBug: modelBug ?? null,
      workload: { updates: 'one per worker per interval', sizes: [UPDATE_SIZES.small, UPDATE_SIZES.large], knobChoices: KNOB_CHOICES, persist: CHECK_PERSIST },
    },
    variants: r.variants.map((v) => ({
      ...v,
      properties: v.properties.map((p) => ({ ...p, ...(p.trace === undefined ? {} : { events: p.trace.length, text: p.trace.map(formatTraceEvent) }) })),
    })),
  };
}
