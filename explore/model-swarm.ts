/**
 * `sbkit model --check --swarm`: for a configuration too big to search exhaustively, many short
 * searches (model/packed/swarm.ts: depth-first, each with its own random successor order, depth bound
 * and state budget, from the initial state), spread over `--jobs`. It reports every violation it finds
 * with the shortest trace found, the search that found it and the command that replays that search; it
 * never says a property holds — its verdict says what it covered.
 */
import type { Variant } from '../vocab/index.ts';
import { checkConfig, describeShape, formatTrace, type ModelBugName, type ModelCheckShape, type PropertyKind, WORKLOAD_LINES, CHECK_FAULTS } from './model-check.ts';
import { type Reason, incomplete, violation } from './command.ts';
import { fixed, millis, plural, thousands } from './format.ts';

export interface SwarmRequest extends ModelCheckShape {
  readonly variants: readonly Variant[];
  readonly modelBug?: ModelBugName | undefined;
  readonly faults?: boolean | undefined;
  readonly symmetry: boolean;
  readonly por: boolean;
  readonly seed: number;
  /** Searches per variant (null: as many as `maxSeconds` allows). */
  readonly searches: number | null;
  readonly depth: number;
  readonly statesPerSearch: number;
  /** States per variant over every search. */
  readonly maxStates: number;
  readonly maxSeconds?: number | undefined;
  readonly jobs: number;
}

/** Searches per variant when neither --searches nor --max-seconds is given. */
export const DEFAULT_SEARCHES = 64;
export const DEFAULT_STATES_PER_SEARCH = 20_000;

/** The default depth bound: a generous multiple of the events one run of the shape has (about seven per
 * worker per interval, and the replica's own). */
export const defaultDepth = (s: ModelCheckShape): number => 8 * s.workers * s.processes * s.intervals * s.replicas + 16;

export interface SwarmProperty {
  readonly name: string;
  readonly kind: PropertyKind;
  /** `violated` / `witnessed`: a search found it (the shortest trace found); `not-found`: no search did. */
  readonly verdict: 'violated' | 'witnessed' | 'not-found';
  readonly why?: string;
  readonly trace?: readonly import('../vocab/index.ts').TraceEvent[];
  readonly search?: number;
  readonly seed?: number;
}

export interface SwarmVariant {
  readonly variant: Variant;
  readonly searches: number;
  readonly states: number;
  readonly deepest: number;
  readonly ms: number;
  readonly properties: readonly SwarmProperty[];
}

export interface SwarmResult {
  /** 1: a violation found; 4: none found — a bounded search gives no verdict (never 0). */
  readonly exitCode: 1 | 4;
  readonly request: SwarmRequest;
  readonly variants: readonly SwarmVariant[];
  readonly summary: string;
}

export async function runModelSwarm(req: SwarmRequest, hooks: { readonly now: () => number; readonly onProgress?: (fraction: number, label: string) => void }): Promise<SwarmResult> {
  const [{ runSwarm }, { properties }] = await Promise.all([import('../model/packed/swarm-jobs.ts'), import('../spec/properties.ts')]);
  const variants: SwarmVariant[] = [];
  for (const [i, variant] of req.variants.entries()) {
    hooks.onProgress?.(i / req.variants.length, `${variant}: swarm`);
    const started = hooks.now();
    const run = await runSwarm(checkConfig(variant, req), {
      properties,
      seed: req.seed,
      searches: req.searches,
      maxStates: req.maxStates,
      ...(req.maxSeconds === undefined ? {} : { maxMillis: req.maxSeconds * 1000 }),
      jobs: req.jobs,
      depth: req.depth,
      statesPerSearch: req.statesPerSearch,
      symmetry: req.symmetry,
      por: req.por,
    });
    const props = properties.map((p): SwarmProperty => {
      const f = run.finds.find((x) => x.property === p.name);
      if (f === undefined) return { name: p.name, kind: p.kind, verdict: 'not-found' };
      return { name: p.name, kind: p.kind, verdict: p.kind === 'sometimes' ? 'witnessed' : 'violated', why: f.why, trace: f.trace, search: f.search, seed: f.seed };
    });
    variants.push({ variant, searches: run.searches, states: run.states, deepest: run.deepest, ms: Math.round(hooks.now() - started), properties: props });
  }
  const violated = variants.flatMap((v) => v.properties.filter((p) => p.verdict === 'violated').map((p) => `${v.variant}: ${p.name}`));
  const covered = `${plural(variants.reduce((n, v) => n + v.searches, 0), 'search', 'searches')}, ${plural(variants.reduce((n, v) => n + v.states, 0), 'state')} visited`;
  const summary =
    violated.length > 0
      ? `sbkit model --check --swarm: FAILED (${covered}): ${violated.join('; ')} VIOLATED`
      : `sbkit model --check --swarm: no violation found (${covered}; a bounded search: it does not show that any property holds)`;
  return { exitCode: violated.length > 0 ? 1 : 4, request: req, variants, summary };
}

/** Why the swarm exits non-zero: each violation it found, or — none found — that a bounded search gives
 * no verdict (exit 4, incomplete: the swarm never shows that a property holds). */
export function swarmReasons(r: SwarmResult): Reason[] {
  const found = r.variants.flatMap((v) =>
    v.properties.filter((p) => p.verdict === 'violated').map((p) => violation(`${v.variant}: ${p.kind} ${p.name} VIOLATED in ${plural(p.trace?.length ?? 0, 'event')} (found by search ${p.search}; its replay command is printed above)`)),
  );
  if (found.length > 0) return found;
  return [incomplete('no violation found, and none shown impossible: the swarm is a bounded search (run `sbkit model --check` without --swarm on a shape it can finish for a verdict)')];
}

/** The command that replays search `seed` alone (as the only search of a swarm with that seed). */
export function replayCommand(req: SwarmRequest, variant: Variant, seed: number): string {
  const flags = [
    `--workers ${req.workers}`,
    req.processes !== 1 ? `--processes ${req.processes}` : '',
    req.replicas !== 1 ? `--replicas ${req.replicas}` : '',
    req.intervals !== 1 ? `--intervals ${req.intervals}` : '',
    `--variant ${variant}`,
    req.modelBug === undefined ? '' : `--model-bug ${req.modelBug}`,
    req.faults === true ? '--faults' : '',
    req.symmetry ? '' : '--symmetry off',
    req.por ? '' : '--por off',
    `--depth ${req.depth}`,
  ].filter((f) => f !== '');
  return `sbkit model --check --swarm --seed ${seed} --searches 1 ${flags.join(' ')}`;
}

function header(req: SwarmRequest): string[] {
  const faults = req.faults === true || req.modelBug === 'indeterminate-cas-deletes-batches';
  const budget = [
    req.searches === null ? 'searches until the budget ends' : plural(req.searches, 'search', 'searches'),
    `≤ ${thousands(req.statesPerSearch)} states each`,
    `depth ≤ ${req.depth}`,
    Number.isFinite(req.maxStates) ? `≤ ${thousands(req.maxStates)} states in all` : '',
    req.maxSeconds === undefined ? '' : `≤ ${req.maxSeconds} s`,
  ].filter((x) => x !== '');
  return [
    `model check (swarm): ${describeShape(req)}; model bug: ${req.modelBug ?? 'none'}; ${faults ? `fault world: ≤ ${CHECK_FAULTS.aborts} abort, ≤ ${CHECK_FAULTS.indeterminate} indeterminate compare-and-set, cleanup; ` : ''}seed ${req.seed}; ${budget.join(', ')}${req.jobs > 1 ? `; ${req.jobs} threads` : ''}`,
    `  each search: depth-first from the initial state in its own random successor order, to its own depth bound (symmetry ${req.symmetry ? 'on' : 'off'}, partial order ${req.por ? 'on' : 'off'})`,
    ...WORKLOAD_LINES.map((l) => `  ${l}`),
  ];
}

export function renderModelSwarm(r: SwarmResult): string {
  const lines = header(r.request);
  for (const v of r.variants) {
    const width = Math.max(...v.properties.map((p) => p.name.length));
    lines.push(
      '',
      `${v.variant}: ${plural(v.searches, 'search', 'searches')}, ${plural(v.states, 'state')} visited, the deepest ${plural(v.deepest, 'event')} from the start, ${millis(v.ms)} ` +
        `(${fixed(v.ms === 0 ? 0 : (v.states * 1000) / v.ms, 0)} states/s) — not exhaustive: it shows violations, never that a property holds`,
    );
    for (const p of v.properties) {
      const verdict =
        p.verdict === 'violated'
          ? `VIOLATED (${plural(p.trace?.length ?? 0, 'event')}: the shortest the swarm found)`
          : p.verdict === 'witnessed'
            ? `witnessed (${p.trace?.length ?? 0}-event example)`
            : p.kind === 'sometimes'
              ? 'not witnessed in the states visited'
              : 'no violation found in the states visited (not exhaustive)';
      lines.push(`  ${p.kind.padEnd(10)}  ${p.name.padEnd(width)}  ${verdict}`);
      if (p.verdict === 'violated') {
        lines.push(`      ${p.why ?? ''}`, ...formatTrace(p.trace ?? [], '      '));
        lines.push(`      found by search ${p.search}; replay it alone: ${replayCommand(r.request, v.variant, p.seed ?? 0)}`);
      }
    }
  }
  lines.push('', r.summary);
  return `${lines.join('\n')}\n`;
}

export function modelSwarmJson(r: SwarmResult): unknown {
  const q = r.request;
  return {
    exitCode: r.exitCode,
    summary: r.summary,
    reasons: swarmReasons(r).map((x) => x.text),
    config: {
      swarm: true,
      workers: q.workers,
      processes: q.processes,
      replicas: q.replicas,
      intervals: q.intervals,
      variants: q.variants,
      modelBug: q.modelBug ?? null,
      faults: q.faults === true,
      symmetry: q.symmetry,
      por: q.por,
      seed: q.seed,
      searches: q.searches,
      depth: q.depth,
      statesPerSearch: q.statesPerSearch,
      maxStates: Number.isFinite(q.maxStates) ? q.maxStates : null,
      maxSeconds: q.maxSeconds ?? null,
      jobs: q.jobs,
    },
    variants: r.variants.map((v) => ({
      ...v,
      properties: v.properties.map((p) => ({
        ...p,
        ...(p.trace === undefined ? {} : { events: p.trace.length }),
        ...(p.verdict === 'violated' && p.seed !== undefined ? { replay: replayCommand(q, v.variant, p.seed) } : {}),
      })),
    })),
  };
}
