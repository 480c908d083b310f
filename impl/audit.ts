/**
 * The audit of a finished run: decode every part the shard references (blob and inline), compare the
 * multiset of (key, value, time, diff) with the desired collection restricted to times < the shard's
 * upper, and list blobs that nothing references.
 *
 * - lost = Σ max(0, desired − found) over tuples; duplicated = Σ max(0, found − desired).
 * - leakedKeys: blob keys neither referenced by state nor deleted (i.e. still present, unreferenced).
 * - danglingKeys: keys state references but blob lacks (their updates count as lost).
 * Assumes the blob store and consensus key belong to this run.
 */
import type { Time } from '../vocab/index.ts';
import type { Blob } from './persist/blob.ts';
import type { ShardState } from './persist/state.ts';
import { decodePart, type DecodedUpdate } from './part-codec.ts';
import type { Update } from './update.ts';

export interface AuditRecord {
  readonly key: string;
  /** The value's bytes as lowercase hex. */
  readonly value: string;
  readonly time: Time;
  readonly diff: number;
  /** How many copies are missing (in `missing`) or extra (in `extra`). */
  readonly count: number;
}

export interface Audit {
  readonly upper: Time;
  readonly expectedUpdates: number;
  readonly foundUpdates: number;
  readonly lost: number;
  readonly duplicated: number;
  readonly leakedBlobs: number;
  readonly missing: readonly AuditRecord[];
  readonly extra: readonly AuditRecord[];
  readonly leakedKeys: readonly string[];
  readonly danglingKeys: readonly string[];
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

interface Tally {
  readonly update: DecodedUpdate;
  desired: number;
  found: number;
}

function record(t: Tally, count: number): AuditRecord {
  const u = t.update;
  return { key: u.key, value: hex(u.value), time: u.time, diff: u.diff, count };
}

export async function auditShard(state: ShardState, blob: Blob, desired: readonly Update[]): Promise<Audit> {
  // Tuples are grouped by (time, diff, key) — a short string; the numbers cannot contain ':' and the
  // key comes last, so no key can make two groups collide — and told apart within a group by their
  // value bytes (a native compare). Values can be kilobytes: keying a map by them cost a third of a run.
  const groups = new Map<string, Tally[]>();
  const tally = (u: DecodedUpdate): Tally => {
    const id = `${u.time}:${u.diff}:${u.key}`;
    let group = groups.get(id);
    if (group === undefined) {
      group = [];
      groups.set(id, group);
    }
    let t = group.find((x) => Buffer.compare(x.update.value, u.value) === 0);
    if (t === undefined) {
      t = { update: u, desired: 0, found: 0 };
      group.push(t);
    }
    return t;
  };

  let expectedUpdates = 0;
  for (const u of desired) {
    if (u.time >= state.upper) continue;
    tally(u).desired += 1;
    expectedUpdates += 1;
  }

  const referenced = new Set<string>();
  const danglingKeys: string[] = [];
  let foundUpdates = 0;
  for (const batch of state.batches) {
    for (const part of batch.parts) {
      let bytes: Uint8Array | undefined;
      if (part.kind === 'inline') bytes = part.data;
      else {
        referenced.add(part.key);
        bytes = await blob.get(part.key);
        if (bytes === undefined) {
          danglingKeys.push(part.key);
          continue;
        }
      }
      for (const u of decodePart(bytes)) {
        tally(u).found += 1;
        foundUpdates += 1;
      }
    }
  }

  const missing: AuditRecord[] = [];
  const extra: AuditRecord[] = [];
  let lost = 0;
  let duplicated = 0;
  for (const t of [...groups.values()].flat()) {
    if (t.desired > t.found) {
      lost += t.desired - t.found;
      missing.push(record(t, t.desired - t.found));
    } else if (t.found > t.desired) {
      duplicated += t.found - t.desired;
      extra.push(record(t, t.found - t.desired));
    }
  }
  const leakedKeys = (await blob.list()).filter((k) => !referenced.has(k));
  return {
    upper: state.upper,
    expectedUpdates,
    foundUpdates,
    lost,
    duplicated,
    leakedBlobs: leakedKeys.length,
    missing,
    extra,
    leakedKeys,
    danglingKeys,
  };
}
