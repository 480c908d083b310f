/**
 * `sbkit model --combine`: the verdict of a sharded model check from its shards' `--json` outputs.
 *
 * Every shard searched the same BFS prefix and then the states below one hash-partition of the frontier
 * (model/packed/search.ts), so together they cover every reachable state, and a state below the split
 * may be visited by several shards (state counts add up with that overlap). Combined: a property is
 * violated if any shard found a violation (the shortest trace wins: each shard's BFS is shortest within
 * its part, and every shortest path runs through some shard's part); it holds only if every shard of
 * 1…n completed; a `sometimes` is witnessed if any shard witnessed it.
 */
import type { TraceEvent, Variant } from '../vocab/index.ts';
import type { ModelCheckRequest, ModelCheckResult, PropertyOutcome, SearchFigures, VariantCheck } from './model-check.ts';
import { combineSummary, heldIn } from './model-check.ts';

interface ShardJson {
  readonly config: {
    readonly workers: number;
    readonly processes: number;
    readonly replicas: number;
    readonly intervals: number;
    readonly variants: readonly Variant[];
    readonly maxStates: number;
    readonly modelBug: ModelCheckRequest['modelBug'] | null;
    readonly search: 'packed' | 'plain';
    readonly symmetry: boolean;
    readonly por: boolean;
    readonly maxMemory: number;
    readonly maxSeconds: number | null;
    readonly shard: { readonly index: number; readonly count: number } | null;
    readonly core: { readonly parts: number } | null;
  };
  readonly variants: readonly (VariantCheck & { readonly properties: readonly PropertyOutcome[] })[];
}

/** A shard file that cannot be combined: `file` names it. */
export class CombineError extends Error {
  override readonly name = 'CombineError';
  constructor(
    readonly file: string,
    problem: string,
  ) {
    super(`${file}: ${problem}`);
  }
}

function parseShard(file: string, text: string): ShardJson {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new CombineError(file, `not JSON (${(e as Error).message})`);
  }
  const j = json as Partial<ShardJson>;
  if (typeof j !== 'object' || j === null || j.config === undefined || !Array.isArray(j.variants)) {
    throw new CombineError(file, 'not the --json output of sbkit model --check');
  }
  if (j.config.shard === null || j.config.shard === undefined) throw new CombineError(file, 'was not run with --shard');
  return j as ShardJson;
}

/** Combines shard outputs (file name → JSON text) into one result; throws CombineError naming a bad file. */
export function combineModelChecks(files: readonly { readonly file: string; readonly text: string }[]): ModelCheckResult {
  const shards = files.map((f) => ({ file: f.file, json: parseShard(f.file, f.text) }));
  const first = shards[0];
  if (first === undefined) throw new CombineError('--combine', 'needs at least one file');
  const { shard: _ignored, ...same } = first.json.config;
  const count = first.json.config.shard?.count ?? 0;
  const seen = new Map<number, string>();
  for (const s of shards) {
    const { shard, ...rest } = s.json.config;
    if (JSON.stringify(rest) !== JSON.stringify(same)) throw new CombineError(s.file, `was run with a different configuration than ${first.file}`);
    if (shard === null || shard.count !== count) throw new CombineError(s.file, `is a shard of ${shard?.count} (${first.file}: of ${count})`);
    const other = seen.get(shard.index);
    if (other !== undefined) throw new CombineError(s.file, `is shard ${shard.index + 1}/${count} again (also ${other})`);
    seen.set(shard.index, s.file);
  }
  const missing = Array.from({ length: count }, (_, i) => i).filter((i) => !seen.has(i));
  const request: ModelCheckRequest = {
    workers: same.workers,
    processes: same.processes,
    replicas: same.replicas,
    intervals: same.intervals,
    variants: same.variants,
    maxStates: same.maxStates,
    modelBug: same.modelBug ?? undefined,
    search: same.search,
    symmetry: same.symmetry,
    por: same.por,
    maxMemory: same.maxMemory,
    ...(same.maxSeconds === null || same.maxSeconds === undefined ? {} : { maxSeconds: same.maxSeconds }),
    ...(same.core === null ? {} : { core: same.core }),
  };
  const variants = same.variants.map((variant): VariantCheck => {
    const parts = shards.map((s) => {
      const v = s.json.variants.find((x) => x.variant === variant);
      if (v === undefined) throw new CombineError(s.file, `has no result for ${variant}`);
      return v;
    });
    const complete = missing.length === 0 && parts.every((v) => v.complete);
    const names = (parts[0] as VariantCheck).properties;
    const properties = names.map((p): PropertyOutcome => {
      const outcomes = parts.map((v) => v.properties.find((x) => x.name === p.name));
      const shortest = (verdict: PropertyOutcome['verdict']) =>
        outcomes
          .filter((o): o is PropertyOutcome => o?.verdict === verdict)
          .sort((a, b) => (a.trace?.length ?? 0) - (b.trace?.length ?? 0))[0];
      const violated = shortest('violated');
      if (violated !== undefined) return { ...strip(violated) };
      const witnessed = shortest('witnessed');
      if (witnessed !== undefined) return { ...strip(witnessed) };
      if (p.kind === 'sometimes') {
        const note = outcomes.find((o) => o?.note !== undefined)?.note;
        return { name: p.name, kind: p.kind, verdict: 'not-witnessed', ...(complete ? (note === undefined ? {} : { note }) : { note: 'search incomplete' }) };
      }
      return complete ? heldIn(p, variant, request) : { name: p.name, kind: p.kind, verdict: 'unknown' };
    });
    const sum = (f: (v: VariantCheck) => number) => parts.reduce((n, v) => n + f(v), 0);
    const figures: SearchFigures = {
      ...(parts[0] as VariantCheck).figures,
      transitions: sum((v) => v.figures.transitions),
      storeBytes: sum((v) => v.figures.storeBytes),
      memoBytes: sum((v) => v.figures.memoBytes),
      frontier: sum((v) => v.figures.frontier),
      dropped: sum((v) => v.figures.dropped),
      depth: Math.max(...parts.map((v) => v.figures.depth)),
      peakRssBytes: Math.max(...parts.map((v) => v.figures.peakRssBytes)),
      refineStates: sum((v) => v.figures.refineStates),
      reduction: `${(parts[0] as VariantCheck).figures.reduction}; ${seen.size} of ${count} shards combined (states below the split may be counted by several)`,
    };
    delete (figures as { shard?: unknown }).shard;
    // (shards overlap below their split, so their orbits do not add up to the whole search's)
    return { variant, states: sum((v) => v.states), unreduced: null, finals: sum((v) => v.finals), complete, ms: sum((v) => v.ms), properties, figures };
  });
  const result = combineSummary(request, variants);
  if (missing.length > 0) {
    const names = missing.map((i) => `${i + 1}/${count}`);
    return { ...result, missingShards: names, summary: `${result.summary} (shards ${names.join(', ')} missing)` };
  }
  return result;
}

/** A PropertyOutcome from JSON without the JSON-only fields (`events`, `text`). */
function strip(p: PropertyOutcome & { events?: number; text?: readonly string[] }): PropertyOutcome {
  const { events: _e, text: _t, ...rest } = p;
  return { ...rest, ...(rest.trace === undefined ? {} : { trace: rest.trace as readonly TraceEvent[] }) };
}
