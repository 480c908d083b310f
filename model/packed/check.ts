/**
 * The packed check of one configuration: the reductions chosen, the search run, and — when the
 * partial-order reduction found violations — a second breadth-first search without it (symmetry kept,
 * which preserves lengths) that stops once it has found each of them again, so that every reported
 * counterexample is a shortest one; one it does not reach within its limits keeps the first trace,
 * marked not shortest.
 */
import type { Property } from '../../spec/properties.ts';
import type { ModelConfig } from '../config.ts';
import { Engine } from './engine.ts';
import { searchPacked, type PackedSearchResult, type PackedViolation } from './search.ts';
import { SymmetryReducer } from './symmetry.ts';
import { searchParallel } from './parallel.ts';

export interface PackedCheckOptions {
  readonly properties: readonly Property[];
  readonly maxStates: number;
  readonly maxBytes?: number;
  readonly memory?: () => number;
  /** Wall-clock budget of each search in ms (the check and, separately, the re-search), on `now`. */
  readonly maxMillis?: number;
  readonly now?: () => number;
  /** Symmetry reduction (default on). */
  readonly symmetry?: boolean;
  /** Partial-order reduction (default on). */
  readonly por?: boolean;
  readonly shard?: { readonly index: number; readonly count: number };
  /** Stop at the first violated property (its counterexample still re-searched to be shortest). */
  readonly firstViolation?: boolean;
  readonly onProgress?: (expanded: number, states: number) => void;
}

export interface PackedCheck extends PackedSearchResult {
  /** Per violated property: whether its trace is a shortest one overall (false: shortest within the
   * partial-order-reduced graph only, because the re-search did not fit the limits). */
  readonly shortest: Readonly<Record<string, boolean>>;
  /** States of the re-search for shortest counterexamples (0 when none ran). */
  readonly refineStates: number;
}

export function checkPacked(cfg: ModelConfig, opts: PackedCheckOptions): PackedCheck {
  const symmetry = opts.symmetry !== false;
  const por = opts.por !== false;
  const engine = new Engine(cfg, opts.properties);
  const base = {
    maxStates: opts.maxStates,
    ...(opts.maxBytes === undefined ? {} : { maxBytes: opts.maxBytes }),
    ...(opts.memory === undefined ? {} : { memory: opts.memory }),
    ...(opts.onProgress === undefined ? {} : { onProgress: opts.onProgress }),
  };
  const deadline = (): { timeUp?: () => boolean } => {
    if (opts.maxMillis === undefined) return {};
    const now = opts.now ?? (() => performance.now());
    const until = now() + opts.maxMillis;
    return { timeUp: () => now() >= until };
  };
  const r = searchPacked(
    cfg,
    {
      ...base,
      ...deadline(),
      ...(symmetry ? { reducer: new SymmetryReducer(engine) } : {}),
      por,
      ...(opts.shard === undefined ? {} : { shard: opts.shard }),
      ...(opts.firstViolation === true ? { stopAtFirstViolation: true } : {}),
    },
    engine,
  );
  if (!por || r.violations.length === 0) return withShortest(r, por);
  // the re-search has its own budget: BFS finds the shallow counterexamples first, so what it settles
  // before a limit is still the shortest (the others keep the reduced search's traces)
  const again = searchPacked(
    cfg,
    {
      ...base,
      ...deadline(),
      ...(symmetry ? { reducer: new SymmetryReducer(engine) } : {}),
      until: r.violations.map((v) => v.property),
      ...(opts.shard === undefined ? {} : { shard: opts.shard }),
    },
    engine,
  );
  return withShortest(r, por, again);
}

/**
 * The check's result from the search `r` and, when one ran, the re-search without the partial-order
 * reduction: each violation it found again replaces the first one's trace and is shortest; without
 * the reduction every trace already is.
 */
function withShortest(r: PackedSearchResult, por: boolean, again?: PackedSearchResult): PackedCheck {
  const shortest: Record<string, boolean> = {};
  const violations: PackedViolation[] = r.violations.map((v) => {
    const found = again?.violations.find((x) => x.property === v.property);
    shortest[v.property] = found !== undefined || !por;
    return found ?? v;
  });
  return { ...r, violations, shortest, refineStates: again?.states ?? 0 };
}

/**
 * `checkPacked` with the searches spread over `jobs` worker threads (parallel.ts): the same states,
 * verdicts and shortest counterexample lengths (representatives are chosen by content, symmetry.ts). The
 * threads read the process's RSS and `Date.now()`: `memory` and `now` do not reach them. `jobs` 1 is
 * `checkPacked` itself.
 */
export async function checkPackedJobs(cfg: ModelConfig, opts: PackedCheckOptions & { readonly jobs: number }): Promise<PackedCheck> {
  if (opts.jobs <= 1) return checkPacked(cfg, opts);
  const symmetry = opts.symmetry !== false;
  const por = opts.por !== false;
  if (opts.shard !== undefined) throw new RangeError('checkPackedJobs: --shard and --jobs do not combine (each shard is one thread)');
  const base = {
    jobs: opts.jobs,
    properties: opts.properties,
    maxStates: opts.maxStates,
    symmetry,
    ...(opts.maxBytes === undefined ? {} : { maxBytes: opts.maxBytes }),
    ...(opts.maxMillis === undefined ? {} : { maxMillis: opts.maxMillis }),
    ...(opts.onProgress === undefined ? {} : { onProgress: opts.onProgress }),
  };
  const r = await searchParallel(cfg, { ...base, por, ...(opts.firstViolation === true ? { stopAtFirstViolation: true } : {}) });
  if (!por || r.violations.length === 0) return withShortest(r, por);
  // as in checkPacked: a re-search without the partial-order reduction makes counterexamples shortest
  return withShortest(r, por, await searchParallel(cfg, { ...base, por: false, until: r.violations.map((v) => v.property) }));
}
