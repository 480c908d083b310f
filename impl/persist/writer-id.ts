/**
 * Writer incarnations: every start of a writer (one runSink) claims a fresh incarnation number from
 * consensus, so the part keys its replicas mint never collide with those of an earlier run, a crashed
 * run or a concurrent run on the same blob store (persist names parts by a random writer id; this kit
 * stays deterministic and takes the number from consensus instead).
 *
 * The claim is one compare-and-set on the shard's writer registry, a consensus key of its own
 * (`<shardId>/writers`): the registry's versions are the incarnations, so the n-th claim gets n — a
 * fresh store starts at 0. A lost race is retried on the fresh head. Shard state (its key, its seqNo,
 * its state diffs) is untouched, so `consensusCommands` and `stateDiffBytes` do not see the claim; it
 * is counted in `writerRegistrations`.
 *
 * Invariants:
 * - incarnations of one shard are distinct (consensus CaS on the registry's sequence number);
 * - `writerId(incarnation, replica)` is distinct per (incarnation, replica) and is the prefix of every
 *   part key that replica mints in that run.
 */
import { ByteWriter } from '../bytes.ts';
import type { MetricsRecorder } from '../metrics.ts';
import type { Consensus } from './consensus.ts';

/** The consensus key of a shard's writer registry. */
export function writerRegistryKey(shardId: string): string {
  return `${shardId}/writers`;
}

/** Claims the next incarnation number of `shardId`'s writers (0 on a fresh store). */
export async function claimIncarnation(consensus: Consensus, shardId: string, metrics: MetricsRecorder): Promise<number> {
  const key = writerRegistryKey(shardId);
  for (;;) {
    const head = await consensus.head(key);
    const expected = head === undefined ? null : head.seqNo;
    const incarnation = expected === null ? 0 : expected + 1;
    metrics.c.writerRegistrations += 1;
    const cas = await consensus.compareAndSet(key, expected, { seqNo: incarnation, data: new ByteWriter(8).varint(incarnation).finish() });
    if (cas.ok) return incarnation;
  }
}

/** The writer id of `replica` in the run that claimed `incarnation`: the prefix of its part keys. */
export function writerId(incarnation: number, replica: number): string {
  return `w${incarnation}-r${replica}`;
}
