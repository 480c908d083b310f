/**
 * How a batch's parts group into runs (persist's `max_runs`, vocab PersistConfig.maxRuns; Materialize
 * `src/persist-client/src/batch.rs`, `BatchBuilderConfig::max_runs` and `BatchParts`):
 * - a limit below 2 is `None`: the builder writes one unordered run and splits it into single-part runs
 *   at finish — every part is a run of its own;
 * - a limit m ≥ 2 compacts as parts are written: each part is a run pushed into a merge tree of width m
 *   (merge-tree.ts), and merging runs compacts them into one run, so the batch ends with at most m runs.
 *   Compaction reads the merged runs' parts back and writes them again (`rewrites` counts those part
 *   writes). The kit's parts hold ascending, unique updates cut greedily at the target size, so a merge of
 *   adjacent runs cuts the same parts again: only the grouping into runs changes.
 */
import { MergeTree } from './merge-tree.ts';

/** The builder's `max_runs` from the (validated: persist/config.ts) config value: `null` (= `None`) below 2,
 * as `BatchBuilderConfig::new` maps it. */
export function maxRunsLimit(configured: number | undefined): number | null {
  const value = configured ?? 1;
  return value >= 2 ? value : null;
}

export interface Runs {
  /** Runs of the finished batch (0 when it has no parts). */
  readonly runs: number;
  /** Part writes the compaction of merged runs costs while building (0 without a limit). */
  readonly rewrites: number;
}

/** The runs `parts` parts (in write order) end up in under `limit`. */
export function runsOf(parts: number, limit: number | null): Runs {
  if (limit === null) return { runs: parts, rewrites: 0 };
  let rewrites = 0;
  const tree = new MergeTree<number>(limit, (runs) => {
    const merged = runs.reduce((n, r) => n + r, 0);
    rewrites += merged;
    return merged;
  });
  for (let i = 0; i < parts; i++) tree.push(1);
  return { runs: tree.finish().length, rewrites };
}
