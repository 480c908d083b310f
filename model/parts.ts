/**
 * Persist's rules for turning updates into parts, as pure functions (vocab/PROTOCOL.md, "Batches and parts").
 *
 * Source: Materialize `src/persist-client/src/batch.rs` (part cuts at `blob_target_size`, inlining below
 * `inline_writes_single_max_bytes`) and `write.rs` (inline backpressure at `inline_writes_total_max_bytes`),
 * as used by PRs #37591/#37617, and how parts group into runs under `max_runs` (batch.rs `BatchParts`,
 * `src/persist-client/src/internal/merge.rs`). Abstracted away: encoding, compression, part headers
 * (PROTOCOL.md's **decision**: decisions measure payload bytes only), blob keys, consolidation.
 */
import type { BatchSummary, PartsSummary, PersistConfig, UpdateId } from '../vocab/index.ts';

/** A batch as the model holds it: its updates (ascending) and the payload bytes of each part, in cut order. */
export interface Batch {
  readonly updates: readonly UpdateId[];
  readonly partBytes: readonly number[];
}

/**
 * A batch being cut, as much as its future needs: the updates received (ascending, a multiset), the
 * payload bytes of each part cut so far (in cut order) and the bytes buffered for the next part (`null`:
 * nothing buffered). Which update went into which part, and the order they came in, decide nothing later:
 * two builders that received the same updates in different orders and cut the same parts are one state.
 */
export interface Cutting {
  readonly updates: readonly UpdateId[];
  readonly partBytes: readonly number[];
  readonly buffered: number | null;
}

export const NOTHING_CUT: Cutting = { updates: [], partBytes: [], buffered: null };

/**
 * Receives more updates, in order: after each update, a buffer whose payload bytes reach
 * `blobTargetSize` becomes a part.
 */
export function cutMore(
  from: Cutting,
  order: readonly UpdateId[],
  sizes: ReadonlyMap<UpdateId, number>,
  blobTargetSize: number,
): Cutting {
  if (order.length === 0) return from;
  const partBytes = [...from.partBytes];
  let buffered = from.buffered;
  for (const id of order) {
    buffered = (buffered ?? 0) + (sizes.get(id) ?? 0);
    if (buffered >= blobTargetSize) {
      partBytes.push(buffered);
      buffered = null;
    }
  }
  return { updates: mergeAscending(from.updates, order), partBytes, buffered };
}

/** `[...held, ...more]` in ascending order: a merge when both are ascending (a handle pushes its staged
 * updates in id order, and what an instance held came from here), a sort otherwise. (A comparator sort
 * of every chunk cost more than the rest of a push's step.) */
function mergeAscending(held: readonly UpdateId[], more: readonly UpdateId[]): UpdateId[] {
  if (!ascending(held) || !ascending(more)) return [...held, ...more].sort((a, b) => a - b);
  const out: UpdateId[] = [];
  let i = 0;
  let j = 0;
  while (i < held.length && j < more.length) out.push((more[j] as number) < (held[i] as number) ? (more[j++] as number) : (held[i++] as number));
  while (i < held.length) out.push(held[i++] as number);
  while (j < more.length) out.push(more[j++] as number);
  return out;
}

function ascending(xs: readonly UpdateId[]): boolean {
  for (let i = 1; i < xs.length; i++) if ((xs[i] as number) < (xs[i - 1] as number)) return false;
  return true;
}

/** The batch a finish takes from `cut`: a non-empty buffer is the last part; `null` when nothing was received. */
export function takeBatch(cut: Cutting): Batch | null {
  if (cut.updates.length === 0) return null;
  return { updates: cut.updates, partBytes: cut.buffered === null ? cut.partBytes : [...cut.partBytes, cut.buffered] };
}

/**
 * Builds the batch a builder finishes after receiving `order` (cut in that order: after each update, a
 * buffer whose payload bytes reach `blobTargetSize` becomes a part; a non-empty buffer at finish is the
 * last part); `null` when nothing was received.
 */
export function buildBatch(
  order: readonly UpdateId[],
  sizes: ReadonlyMap<UpdateId, number>,
  persist: PersistConfig,
): Batch | null {
  return takeBatch(cutMore(NOTHING_CUT, order, sizes, persist.blobTargetSize));
}

const isInline = (bytes: number, persist: PersistConfig): boolean => bytes < persist.inlineSingleMaxBytes;

function partsOf(partBytes: readonly number[], persist: PersistConfig): PartsSummary {
  let inline = 0;
  for (const b of partBytes) if (isInline(b, persist)) inline += 1;
  return { hollow: partBytes.length - inline, inline };
}

export function summarize(batch: Batch, persist: PersistConfig): BatchSummary {
  return { updates: batch.updates, parts: partsOf(batch.partBytes, persist), partBytes: batch.partBytes };
}

/** What one successful compare_and_append commits. */
export interface AppendCommit {
  readonly parts: PartsSummary;
  /** Inline payload bytes added to shard state (0 when they were flushed to blob first). */
  readonly inlineBytesAdded: number;
}

/** Inline payload bytes of some batches' inline parts. */
export function inlineBytesOf(batches: readonly Batch[], persist: PersistConfig): number {
  let bytes = 0;
  for (const b of batches) for (const p of b.partBytes) if (isInline(p, persist)) bytes += p;
  return bytes;
}

/**
 * Inline backpressure: the append's inline bytes `I > 0` would bring the shard's inline bytes to
 * `inlineTotalMaxBytes` or more, so the compare-and-set is refused and every inline part must first be
 * flushed to blob (persist's `flush_to_blob`). The refusal is one step (`backpressure`); the flush's
 * PUTs and the retry come after it, so another writer can append in between.
 */
export function needsFlush(batches: readonly Batch[], shardInlineBytes: number, persist: PersistConfig): boolean {
  const inline = inlineBytesOf(batches, persist);
  return inline > 0 && shardInlineBytes + inline >= persist.inlineTotalMaxBytes;
}

/** Inline parts among some batches (what a flush moves to blob). */
export function inlineParts(batches: readonly Batch[], persist: PersistConfig): number {
  return sumParts(batches, persist).inline;
}

/** What a compare-and-append of `batches` commits: after a flush every part is hollow. */
export function commitParts(batches: readonly Batch[], persist: PersistConfig, flushed: boolean): AppendCommit {
  const parts = sumParts(batches, persist);
  if (flushed) return { parts: { hollow: parts.hollow + parts.inline, inline: 0 }, inlineBytesAdded: 0 };
  return { parts, inlineBytesAdded: inlineBytesOf(batches, persist) };
}

/** Σ parts of some batches as they are now (after a flush: all hollow); what a refused append reports. */
export function partsNow(batches: readonly Batch[], persist: PersistConfig, flushed: boolean): PartsSummary {
  return commitParts(batches, persist, flushed).parts;
}

/** Σ parts of some batches as written (inline iff below the single-part limit). */
export function sumParts(batches: readonly Batch[], persist: PersistConfig): PartsSummary {
  return partsOf(
    batches.flatMap((b) => b.partBytes),
    persist,
  );
}

/** What building a batch under a run limit comes to: its runs, and the part writes its compaction cost. */
export interface Compaction {
  readonly runs: number;
  /** Parts read back and written again by the merges of runs (vocab/PROTOCOL.md "Runs"). */
  readonly rewrites: number;
}

/**
 * A batch of `parts` parts built with run limit `maxRuns` (vocab PersistConfig.maxRuns; PROTOCOL.md
 * "Runs"): below 2 (`None`) every part is a run of its own and nothing is compacted; m ≥ 2 pushes each
 * part as a run into persist's merge tree of width m, which merges a full level into one run of the next,
 * and its finish flattens the levels into at most m runs (merging the shallower side when both do not
 * fit). A merge rewrites every part of the runs it merges. Only how many runs and parts a level holds
 * matters here, so levels are those two counts.
 */
export function compaction(parts: number, maxRuns: number | undefined): Compaction {
  const m = maxRuns ?? 1;
  if (m < 2) return { runs: parts, rewrites: 0 };
  let rewrites = 0;
  const levels = [{ runs: 0, parts: 0 }]; // shallowest first
  for (let i = 0; i < parts; i++) {
    const deepest = levels[levels.length - 1] as { runs: number; parts: number };
    if (deepest.runs === m) {
      // the deepest level is full: it becomes one run of a new, deeper level
      rewrites += deepest.parts;
      levels.push({ runs: 1, parts: deepest.parts });
      deepest.runs = 0;
      deepest.parts = 0;
    }
    let carry = 1; // parts of the run arriving at this level
    for (let depth = 0; depth < levels.length; depth++) {
      const level = levels[depth] as { runs: number; parts: number };
      level.runs += 1;
      level.parts += carry;
      if (level.runs < m || depth === levels.length - 1) break;
      // full: merged into one run of the next level
      rewrites += level.parts;
      carry = level.parts;
      level.runs = 0;
      level.parts = 0;
    }
  }
  let shallower = levels[0] as { runs: number; parts: number };
  for (let depth = 1; depth < levels.length; depth++) {
    const deeper = levels[depth] as { runs: number; parts: number };
    const fits = shallower.runs + deeper.runs <= m;
    if (!fits) rewrites += shallower.parts;
    shallower = { runs: deeper.runs + (fits ? shallower.runs : 1), parts: deeper.parts + shallower.parts };
  }
  return { runs: shallower.runs, rewrites };
}

/** Runs of a batch of `parts` parts built with run limit `maxRuns` (`compaction`). */
export function runsOf(parts: number, maxRuns: number | undefined): number {
  return compaction(parts, maxRuns).runs;
}
