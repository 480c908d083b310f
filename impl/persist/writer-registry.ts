/**
 * The shard's writer registry: which writer incarnations exist, and which can no longer append.
 *
 * Every start of a replica's sink (the first, and every restart) claims a fresh incarnation from
 * consensus, so the part keys it mints never collide with those of an earlier, a crashed or a
 * concurrent incarnation (persist names parts by a random writer id; this kit stays deterministic and
 * takes the number from consensus). A writer is *retired* once it can no longer append: `finished`
 * (its sink reached the end) or `expired` (a later incarnation of the same replica took over: the old
 * one was torn down or crashed). Leaked-blob cleanup (gc.ts) deletes only blobs of retired writers.
 *
 * The registry is a consensus key of its own (`<shardId>/writers`) whose versions are lists of events
 * (claim, retire); shard state (its key, seqNo and diffs) is untouched, so `consensusCommands` and
 * `stateDiffBytes` do not see it (its compare-and-sets are `writerRegistrations`).
 *
 * Invariants:
 * - incarnation n is the sequence number of the version that claimed it: distinct per shard;
 * - a claim by replica r expires every earlier, unretired incarnation of r in the same command;
 * - `writerId(n, r)` = `w<n>-r<r>` is the prefix of every part key the incarnation mints;
 * - a compare-and-set whose answer was lost (storage-indeterminate) is never taken as applied: the
 *   command is made again on the registry as it is then. A claim that did apply leaves an incarnation
 *   nobody holds, which the claim made again expires; a retirement that did apply is recorded twice,
 *   and the fold keeps the first. SUBTLE: reading the version back cannot tell: two claims for one
 *   replica racing with the same registry in view write the same bytes, so the loser of the race would
 *   take the winner's version for its own, and both would hold one writer id.
 */
import { ByteReader, ByteWriter } from '../bytes.ts';
import { SbkitError, isStorageFailure } from '../errors.ts';
import { pointAt } from '../runtime/where.ts';
import type { MetricsRecorder } from '../metrics.ts';
import type { Consensus, SeqNo, VersionedData } from './consensus.ts';
import { reportFault, retryExternal, type RetryContext } from './retry.ts';

export type Retired = 'finished' | 'expired';

export interface WriterRecord {
  readonly id: string;
  readonly incarnation: number;
  readonly replica: number;
  readonly retired: Retired | null;
}

/** The consensus key of a shard's writer registry. */
export function writerRegistryKey(shardId: string): string {
  return `${shardId}/writers`;
}

/** The writer id of `replica`'s incarnation `incarnation`: the prefix of its part keys. */
export function writerId(incarnation: number, replica: number): string {
  return `w${incarnation}-r${replica}`;
}

/** The writer id a part key was minted under (`w3-r1/part-7` → `w3-r1`), or undefined. */
export function writerOfKey(key: string): string | undefined {
  const m = /^(w\d+-r\d+)\//.exec(key);
  return m?.[1];
}

const CLAIM = 0;
const FINISHED = 1;
const EXPIRED = 2;

interface RegistryEvent {
  readonly kind: typeof CLAIM | typeof FINISHED | typeof EXPIRED;
  readonly incarnation: number;
  readonly replica: number;
}

function encode(events: readonly RegistryEvent[]): Uint8Array {
  const w = new ByteWriter(4 + events.length * 6).varint(events.length);
  for (const e of events) w.u8(e.kind).varint(e.incarnation).varint(e.replica);
  return w.finish();
}

function decode(data: Uint8Array): RegistryEvent[] {
  const r = new ByteReader(data, 'writer registry version');
  const n = r.varint();
  const out: RegistryEvent[] = [];
  for (let i = 0; i < n; i++) {
    const kind = r.u8();
    if (kind !== CLAIM && kind !== FINISHED && kind !== EXPIRED) throw new SbkitError('corrupt-data', `writer registry: unknown event ${kind}`);
    out.push({ kind, incarnation: r.varint(), replica: r.varint() });
  }
  r.expectEnd();
  return out;
}

/** One event of a registry version, as stored: a claim, or a retirement (finished or expired). */
export interface RegistryEntry {
  readonly kind: 'claim' | Retired;
  readonly id: string;
  readonly replica: number;
}

/** What one registry version says, event by event (what a command wrote: audits and contract checks). */
export function registryEntries(data: Uint8Array): RegistryEntry[] {
  return decode(data).map((e) => ({ kind: e.kind === CLAIM ? 'claim' : e.kind === FINISHED ? 'finished' : 'expired', id: writerId(e.incarnation, e.replica), replica: e.replica }));
}

function fold(versions: readonly VersionedData[]): Map<string, WriterRecord> {
  const writers = new Map<string, WriterRecord>();
  for (const v of versions) {
    for (const e of decode(v.data)) {
      const id = writerId(e.incarnation, e.replica);
      if (e.kind === CLAIM) writers.set(id, { id, incarnation: e.incarnation, replica: e.replica, retired: null });
      else {
        const w = writers.get(id);
        if (w !== undefined && w.retired === null) writers.set(id, { ...w, retired: e.kind === FINISHED ? 'finished' : 'expired' });
      }
    }
  }
  return writers;
}

/** Calls through `io` (retries, each a scheduling point) when given; plainly otherwise (startup). */
const call = <T>(io: RetryContext | undefined, op: 'consensus.head' | 'consensus.scan', f: () => Promise<T>): Promise<T> =>
  io === undefined ? f() : retryExternal(io, op, f);

async function load(consensus: Consensus, key: string, io: RetryContext | undefined): Promise<{ head: SeqNo | null; writers: Map<string, WriterRecord> }> {
  const versions = await call(io, 'consensus.scan', () => consensus.scan(key, 0));
  return { head: versions.at(-1)?.seqNo ?? null, writers: fold(versions) };
}

/** Every writer the registry knows, by id. */
export async function readWriters(consensus: Consensus, shardId: string, io?: RetryContext): Promise<Map<string, WriterRecord>> {
  return (await load(consensus, writerRegistryKey(shardId), io)).writers;
}

/**
 * Appends the events `make(writers, seqNo)` returns as one registry version (a compare-and-set loop on
 * the registry's sequence number); returns the seqNo it committed at.
 */
async function commit(
  consensus: Consensus,
  shardId: string,
  metrics: MetricsRecorder,
  io: RetryContext | undefined,
  make: (writers: Map<string, WriterRecord>, seqNo: SeqNo) => readonly RegistryEvent[],
): Promise<SeqNo> {
  const key = writerRegistryKey(shardId);
  for (;;) {
    const { head, writers } = await load(consensus, key, io);
    const seqNo = head === null ? 0 : head + 1;
    const data = encode(make(writers, seqNo));
    metrics.c.writerRegistrations += 1;
    try {
      const cas = await consensus.compareAndSet(key, head, { seqNo, data });
      if (cas.ok) return seqNo;
    } catch (e) {
      if (io === undefined || !isStorageFailure(e)) throw e;
      reportFault(io, 'consensus.cas', e);
      if (e.code === 'storage-permanent') throw e;
      metrics.c.retries += 1;
      // Transient or indeterminate alike: made again (see the header: an applied one is made harmless).
      await pointAt(io.scheduler, 'retry.consensus.cas', io.where);
    }
  }
}

/** Claims a new incarnation for `replica`, expiring the replica's earlier unretired incarnations. */
export async function claimWriter(consensus: Consensus, shardId: string, replica: number, metrics: MetricsRecorder, io?: RetryContext): Promise<WriterRecord> {
  const seqNo = await commit(consensus, shardId, metrics, io, (writers, n) => [
    ...[...writers.values()]
      .filter((w) => w.replica === replica && w.retired === null)
      .map((w): RegistryEvent => ({ kind: EXPIRED, incarnation: w.incarnation, replica })),
    { kind: CLAIM, incarnation: n, replica },
  ]);
  return { id: writerId(seqNo, replica), incarnation: seqNo, replica, retired: null };
}

/** Marks a writer as one that can no longer append. */
export async function retireWriter(consensus: Consensus, shardId: string, writer: WriterRecord, reason: Retired, metrics: MetricsRecorder, io?: RetryContext): Promise<void> {
  await commit(consensus, shardId, metrics, io, () => [{ kind: reason === 'finished' ? FINISHED : EXPIRED, incarnation: writer.incarnation, replica: writer.replica }]);
}
