/**
 * Shard state as rebuilt from consensus: the fold of every state diff.
 *
 * Invariants (checked by applyDiff, each failure `consensus-invariant`):
 * - diffs apply in seqNo order without gaps; `upper` never regresses;
 * - batches are contiguous: each appended batch's lower is the previous upper;
 * - `inlineBytes` = Σ payload of inline parts in state (drives inline backpressure);
 * - `writers[id]` = the idempotency token of the last command writer `id` committed (persist keeps one
 *   per writer in state): a writer that lost the answer of its compare-and-set reads state back and
 *   knows its write applied iff its token is there.
 */
import type { Time } from '../../vocab/index.ts';
import { SbkitError } from '../errors.ts';
import type { Consensus, SeqNo } from './consensus.ts';
import type { Part } from './part.ts';
import { decodeDiff } from './state-diff.ts';

export interface StateBatch {
  readonly lower: Time;
  readonly upper: Time;
  readonly parts: readonly Part[];
}

export interface ShardState {
  /** null: no version written yet. */
  readonly seqNo: SeqNo | null;
  readonly upper: Time;
  readonly since: Time;
  readonly batches: readonly StateBatch[];
  readonly inlineBytes: number;
  readonly writers: ReadonlyMap<string, number>;
}

/** What one successful command changes. `batch` null: the command only advanced the upper. */
export interface StateDiff {
  readonly seqNo: SeqNo;
  readonly upper: Time;
  readonly since: Time;
  readonly batch: StateBatch | null;
  /** The committing writer and its command's idempotency token. */
  readonly writer: string;
  readonly token: number;
}

export const EMPTY_SHARD_STATE: ShardState = { seqNo: null, upper: 0, since: 0, batches: [], inlineBytes: 0, writers: new Map() };

export function inlinePayload(parts: readonly Part[]): number {
  let sum = 0;
  for (const p of parts) if (p.kind === 'inline') sum += p.payloadBytes;
  return sum;
}

export function applyDiff(state: ShardState, diff: StateDiff): ShardState {
  checkDiff(state.seqNo, state.upper, diff);
  return {
    seqNo: diff.seqNo,
    upper: diff.upper,
    since: diff.since,
    batches: diff.batch === null ? state.batches : [...state.batches, diff.batch],
    inlineBytes: state.inlineBytes + (diff.batch === null ? 0 : inlinePayload(diff.batch.parts)),
    writers: new Map(state.writers).set(diff.writer, diff.token),
  };
}

/** Throws `consensus-invariant` unless `diff` may follow a state at `seqNo` with `upper`. */
function checkDiff(seqNo: SeqNo | null, upper: Time, diff: StateDiff): void {
  const want = seqNo === null ? 0 : seqNo + 1;
  if (diff.seqNo !== want) brokenDiff(diff, `expected seqNo ${want}`);
  if (diff.upper < upper) brokenDiff(diff, `upper regresses from ${upper} to ${diff.upper}`);
  if (diff.batch !== null && (diff.batch.lower !== upper || diff.batch.upper !== diff.upper)) {
    brokenDiff(diff, `batch [${diff.batch.lower}, ${diff.batch.upper}) does not extend upper ${upper} to ${diff.upper}`);
  }
}

function brokenDiff(diff: StateDiff, why: string): never {
  throw new SbkitError('consensus-invariant', `state diff ${diff.seqNo}: ${why}`);
}

/**
 * Applies versions (as scanned from consensus) to `state`: `applyDiff` of each in turn, folded into one
 * new batch list and one writer map (a state per version would copy both for every version read).
 */
export function applyVersions(state: ShardState, versions: readonly { readonly data: Uint8Array }[]): ShardState {
  let { seqNo, upper, since, inlineBytes } = state;
  const batches = [...state.batches];
  const writers = new Map(state.writers);
  for (const v of versions) {
    const diff = decodeDiff(v.data);
    checkDiff(seqNo, upper, diff);
    seqNo = diff.seqNo;
    upper = diff.upper;
    since = diff.since;
    if (diff.batch !== null) {
      batches.push(diff.batch);
      inlineBytes += inlinePayload(diff.batch.parts);
    }
    writers.set(diff.writer, diff.token);
  }
  return { seqNo, upper, since, batches, inlineBytes, writers };
}

/** The shard's state as consensus has it now, read without scheduling points (audits, tools). */
export async function loadShardState(consensus: Consensus, shardId: string): Promise<ShardState> {
  return applyVersions(EMPTY_SHARD_STATE, await consensus.scan(shardId, 0));
}
