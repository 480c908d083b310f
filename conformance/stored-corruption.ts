/**
 * Corrupt stored data, as a property of every settled run: "bad input gets a clear, typed error naming
 * what was wrong, never silent data loss" — for what comes back from consensus, too. A remote store can
 * hand back bytes that are not what was written (a torn write, a bad disk, another program's key), or a
 * history that breaks its contract (a gap in the sequence numbers). The implementation's readers must
 * refuse both with a typed error, never fold them into a state that silently drops or invents a batch.
 *
 * After a run settles, this takes the versions the run really wrote (its shard's state diffs and its
 * writer registry, with whatever parts, inline data and writers that run produced), corrupts one
 * version in each way below, and reads the result back with the implementation's own readers
 * (`loadShardState`, `readWriters`; a state diff's refusal with the fold `loadShardState` is made of,
 * `applyVersions`, resumed from the clean prefix's state). Each corruption must be refused with the error code it names and a
 * message that says what was wrong. One history is valid though unusual (a command that moves nothing)
 * and must be *accepted*, with the same batches and upper: a reader that refuses too much is as wrong as
 * one that refuses too little.
 *
 * The fault world fails calls and loses answers; it never corrupts bytes (faults.ts): this is where
 * corrupt data is checked, on realistic histories, in every run. Which version each corruption hits
 * follows from the history alone (deterministic, replayable).
 */
import { SbkitError, type SbkitErrorCode } from '../impl/errors.ts';
import type { Consensus, VersionedData } from '../impl/persist/consensus.ts';
import { MemConsensus } from '../impl/persist/consensus.ts';
import { encodeDiff, decodeDiff } from '../impl/persist/state-diff.ts';
import { applyVersions, EMPTY_SHARD_STATE, loadShardState, type ShardState, type StateDiff } from '../impl/persist/state.ts';
import { readWriters, writerRegistryKey } from '../impl/persist/writer-registry.ts';

/** The history a run left: its shard's versions (decoded alongside) and its registry's versions. */
export interface StoredHistory {
  readonly shardId: string;
  readonly state: readonly VersionedData[];
  readonly diffs: readonly StateDiff[];
  readonly registry: readonly VersionedData[];
}

type Store = 'state' | 'registry';

export interface StoredCorruption {
  readonly name: string;
  readonly describe: string;
  readonly store: Store;
  /** The refusal required: its code and what its message must name. Undefined: must be accepted. */
  readonly refused?: { readonly code: SbkitErrorCode; readonly names: string };
  /** The indexes of the versions this corruption can hit. */
  readonly eligible: (h: StoredHistory) => readonly number[];
  /** The store's versions with version `i` corrupted. */
  readonly corrupt: (h: StoredHistory, i: number) => VersionedData[];
}

const indexes = (n: number, from = 0): number[] => Array.from({ length: Math.max(0, n - from) }, (_, k) => k + from);
const withBatch = (h: StoredHistory): number[] => indexes(h.diffs.length).filter((i) => (h.diffs[i]?.batch ?? null) !== null);

/** `versions` with version `i`'s bytes replaced by `data`. */
const replacedIn = (versions: readonly VersionedData[], i: number, data: Uint8Array): VersionedData[] =>
  versions.map((v, k) => (k === i ? { seqNo: v.seqNo, data } : v));

/** Version `i` of the shard replaced by `data`. */
const replaced = (h: StoredHistory, i: number, data: Uint8Array): VersionedData[] => replacedIn(h.state, i, data);

/** Version `i` of the shard re-encoded after `change`. */
const rewritten = (h: StoredHistory, i: number, change: (d: StateDiff) => StateDiff): VersionedData[] =>
  replaced(h, i, encodeDiff(change(diffAt(h, i))));

/** A copy of version `i`'s bytes with byte `at` set to `b`. */
const patched = (data: Uint8Array, at: number, b: number): Uint8Array => {
  const out = data.slice();
  out[at] = b;
  return out;
};

function diffAt(h: StoredHistory, i: number): StateDiff {
  const d = h.diffs[i];
  if (d === undefined) throw new RangeError(`stored history: no state diff ${i} of ${h.diffs.length}`);
  return d;
}

function dataAt(versions: readonly VersionedData[], i: number): Uint8Array {
  const v = versions[i];
  if (v === undefined) throw new RangeError(`stored history: no version ${i} of ${versions.length}`);
  return v.data;
}

function batchOf(d: StateDiff): NonNullable<StateDiff['batch']> {
  if (d.batch === null) throw new RangeError(`stored history: state diff ${d.seqNo} has no batch`);
  return d.batch;
}

const CORRUPT: SbkitErrorCode = 'corrupt-data';
const BROKEN: SbkitErrorCode = 'consensus-invariant';

export const STORED_CORRUPTIONS: readonly StoredCorruption[] = [
  {
    name: 'diff-version',
    describe: 'a state diff whose version byte is 9',
    store: 'state',
    refused: { code: CORRUPT, names: 'unknown version 9' },
    eligible: (h) => indexes(h.state.length),
    corrupt: (h, i) => replaced(h, i, patched(dataAt(h.state, i), 0, 9)),
  },
  {
    name: 'diff-batch-flag',
    describe: 'a state diff whose batch flag is 2',
    store: 'state',
    refused: { code: CORRUPT, names: 'bad batch flag 2' },
    eligible: (h) => indexes(h.state.length),
    // The flag is the last byte of the diff without its batch.
    corrupt: (h, i) => replaced(h, i, patched(dataAt(h.state, i), encodeDiff({ ...diffAt(h, i), batch: null }).length - 1, 2)),
  },
  {
    name: 'diff-part-kind',
    describe: "a state diff whose first part's kind byte is 5",
    store: 'state',
    refused: { code: CORRUPT, names: 'unknown part kind 5' },
    // (a part count below 128 is one byte, as the count 0 is: the first part starts where the partless diff ends)
    eligible: (h) => withBatch(h).filter((i) => { const n = batchOf(diffAt(h, i)).parts.length; return n > 0 && n < 128; }),
    corrupt: (h, i) => {
      const d = diffAt(h, i);
      return replaced(h, i, patched(dataAt(h.state, i), encodeDiff({ ...d, batch: { ...batchOf(d), parts: [] } }).length, 5));
    },
  },
  {
    name: 'diff-truncated',
    describe: 'a state diff missing its last byte',
    store: 'state',
    refused: { code: CORRUPT, names: 'state diff: ' },
    eligible: (h) => indexes(h.state.length),
    corrupt: (h, i) => { const d = dataAt(h.state, i); return replaced(h, i, d.slice(0, d.length - 1)); },
  },
  {
    name: 'diff-trailing',
    describe: 'a state diff with a byte after its end',
    store: 'state',
    refused: { code: CORRUPT, names: 'state diff: trailing bytes' },
    eligible: (h) => indexes(h.state.length),
    corrupt: (h, i) => { const d = dataAt(h.state, i); const out = new Uint8Array(d.length + 1); out.set(d); return replaced(h, i, out); },
  },
  {
    name: 'diff-seqno-gap',
    describe: 'a state diff one sequence number ahead of its place',
    store: 'state',
    refused: { code: BROKEN, names: `expected seqNo` },
    eligible: (h) => indexes(h.state.length),
    corrupt: (h, i) => rewritten(h, i, (d) => ({ ...d, seqNo: d.seqNo + 1 })),
  },
  {
    name: 'diff-upper-regress',
    describe: 'a state diff whose upper is below the upper before it',
    store: 'state',
    refused: { code: BROKEN, names: 'upper regresses' },
    eligible: (h) => indexes(h.diffs.length, 1).filter((i) => (h.diffs[i - 1]?.upper ?? 0) > 0),
    corrupt: (h, i) => rewritten(h, i, (d) => ({ ...d, upper: diffAt(h, i - 1).upper - 1, batch: null })),
  },
  {
    name: 'diff-batch-lower',
    describe: "a state diff whose batch starts above the shard's upper",
    store: 'state',
    refused: { code: BROKEN, names: 'does not extend upper' },
    eligible: withBatch,
    corrupt: (h, i) => rewritten(h, i, (d) => ({ ...d, batch: { ...batchOf(d), lower: batchOf(d).lower + 1 } })),
  },
  {
    name: 'diff-batch-upper',
    describe: "a state diff whose batch ends past the diff's upper",
    store: 'state',
    refused: { code: BROKEN, names: 'does not extend upper' },
    eligible: withBatch,
    corrupt: (h, i) => rewritten(h, i, (d) => ({ ...d, batch: { ...batchOf(d), upper: batchOf(d).upper + 1 } })),
  },
  {
    name: 'diff-idle',
    describe: 'a valid extra command that moves nothing (same upper, no batch): must be accepted',
    store: 'state',
    eligible: (h) => (h.state.length === 0 ? [] : [h.state.length - 1]),
    corrupt: (h, i) => {
      const last = diffAt(h, i);
      const idle: StateDiff = { ...last, seqNo: last.seqNo + 1, batch: null };
      return [...h.state, { seqNo: idle.seqNo, data: encodeDiff(idle) }];
    },
  },
  {
    name: 'registry-event',
    describe: "a writer registry version whose first event's kind byte is 7",
    store: 'registry',
    refused: { code: CORRUPT, names: 'writer registry: unknown event 7' },
    // (a version's event count is one byte below 128: its first event's kind is byte 1)
    eligible: (h) => indexes(h.registry.length).filter((i) => { const d = dataAt(h.registry, i); return d.length > 1 && (d[0] ?? 0) > 0 && (d[0] ?? 0) < 128; }),
    corrupt: (h, i) => replacedIn(h.registry, i, patched(dataAt(h.registry, i), 1, 7)),
  },
  {
    name: 'registry-truncated',
    describe: 'a writer registry version missing its last byte',
    store: 'registry',
    refused: { code: CORRUPT, names: 'writer registry version: ' },
    eligible: (h) => indexes(h.registry.length),
    corrupt: (h, i) => { const d = dataAt(h.registry, i); return replacedIn(h.registry, i, d.slice(0, d.length - 1)); },
  },
];

/** The history the run left in `consensus` for `shardId` (a store that is not in memory: undefined). */
export async function storedHistory(consensus: Consensus | undefined, shardId: string): Promise<StoredHistory | undefined> {
  if (!(consensus instanceof MemConsensus)) return undefined;
  const state = await consensus.scan(shardId, 0);
  return { shardId, state, diffs: state.map((v) => decodeDiff(v.data)), registry: await consensus.scan(writerRegistryKey(shardId), 0) };
}

/** A store that only reads, holding `versions` under `key` (a class: a read-back per corruption builds
 * one, and its methods are not closures made anew each time). */
class ReadOnly implements Consensus {
  constructor(
    readonly key: string,
    readonly versions: readonly VersionedData[],
  ) {}
  async head(k: string): Promise<VersionedData | undefined> {
    return k === this.key ? this.versions.at(-1) : undefined;
  }
  async scan(k: string, from: number): Promise<VersionedData[]> {
    return k === this.key ? this.versions.filter((v) => v.seqNo >= from) : [];
  }
  async compareAndSet(): Promise<never> {
    throw new Error('stored-corruption: the read-back store only reads');
  }
}

/** Reads `versions` of `store` back with the implementation's reader: what it built, or what it threw. */
async function readBack(h: StoredHistory, store: Store, versions: readonly VersionedData[]): Promise<ReadBack> {
  try {
    if (store === 'state') return { ok: true, summary: stateSummary(await loadShardState(new ReadOnly(h.shardId, versions), h.shardId)) };
    const writers = await readWriters(new ReadOnly(writerRegistryKey(h.shardId), versions), h.shardId);
    return { ok: true, summary: `${writers.size} writer(s)` };
  } catch (error) {
    return { ok: false, error };
  }
}

type ReadBack = { ok: true; summary: string } | { ok: false; error: unknown };

const stateSummary = (s: ShardState): string => `upper ${s.upper}, ${s.batches.length} batch(es), ${s.inlineBytes} inline bytes`;

/**
 * The shard's state after each clean prefix of its versions (`at(i)`: after versions 0 … i − 1), as the
 * implementation's fold (`applyVersions`, which `loadShardState` is from the empty state) builds it, one
 * version further at a time.
 */
class CleanPrefixes {
  readonly #states: ShardState[] = [EMPTY_SHARD_STATE];
  constructor(private readonly h: StoredHistory) {}
  at(i: number): ShardState {
    for (let k = this.#states.length - 1; k < i; k++) this.#states.push(applyVersions(this.#states[k] as ShardState, [this.h.state[k] as VersionedData]));
    return this.#states[i] as ShardState;
  }
}

/**
 * Reads a refused state corruption of version `i` back: the clean prefix before it is the clean read's,
 * so the fold resumes from its state and reads version `i` — the same reader, from the same state, as a
 * read of versions 0 … i from the start, without decoding the clean prefix again per corruption.
 */
function resumeAt(prefixes: CleanPrefixes, i: number, corrupted: readonly VersionedData[]): ReadBack {
  try {
    return { ok: true, summary: stateSummary(applyVersions(prefixes.at(i), [corrupted[i] as VersionedData])) };
  } catch (error) {
    return { ok: false, error };
  }
}

/** Which eligible version a corruption hits: from the history's shape, so a replay hits the same one. */
function pick(h: StoredHistory, c: StoredCorruption, eligible: readonly number[]): number {
  return eligible[shapeHash(h, c.name.length) % eligible.length] as number;
}

function mix(k: number, x: number): number {
  return Math.imul(k ^ x, 16777619) >>> 0;
}

/** FNV-1a over the history's shape and a corruption's name length (`salt`). */
function shapeHash(h: StoredHistory, salt: number): number {
  let k = mix(mix(mix(2166136261, h.state.length), h.registry.length), salt);
  for (const v of h.state) k = mix(k, v.data.length);
  return k;
}

/** The corruptions the history allowed, each with its verdict: undefined when the reader judged it right. */
export async function corruptionsJudged(h: StoredHistory, corruptions: readonly StoredCorruption[] = STORED_CORRUPTIONS): Promise<{ tried: string[]; wrong: string[] }> {
  const tried: string[] = [];
  const wrong: string[] = [];
  const clean = await readBack(h, 'state', h.state);
  if (!clean.ok) return { tried, wrong: [`the uncorrupted history does not read back: ${String(clean.error)}`] };
  const prefixes = new CleanPrefixes(h);
  // The stack of an expected refusal is never looked at (see bad-input.ts): none is captured.
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    for (const c of corruptions) {
      const eligible = c.eligible(h);
      if (eligible.length === 0) continue;
      const i = pick(h, c, eligible);
      tried.push(c.name);
      // A refusal is read back only up to the version it corrupts: the clean prefix before it is the
      // clean read's, and a reader must refuse at that version, not at a later one that the corruption
      // made look wrong too (the full history would let such a reader pass). A state diff's refusal
      // resumes the fold from the clean prefix's state (resumeAt); the registry's versions are read from
      // the start (its reader has no resumable fold).
      const corrupted = c.corrupt(h, i);
      const got =
        c.refused === undefined ? await readBack(h, c.store, corrupted) : c.store === 'state' ? resumeAt(prefixes, i, corrupted) : await readBack(h, c.store, corrupted.slice(0, i + 1));
      const at = `${c.describe} (${c.store} version ${i})`;
      if (c.refused === undefined) {
        if (!got.ok) wrong.push(`${at}: refused (${String(got.error)})`);
        else if (got.summary !== clean.summary) wrong.push(`${at}: read back as ${got.summary}, not ${clean.summary}`);
      } else if (got.ok) {
        wrong.push(`${at}: accepted, read back as ${got.summary}`);
      } else if (!(got.error instanceof SbkitError)) {
        wrong.push(`${at}: threw ${got.error instanceof Error ? got.error.name : typeof got.error}, not a typed SbkitError (${String(got.error)})`);
      } else if (got.error.code !== c.refused.code || !got.error.message.includes(c.refused.names)) {
        wrong.push(`${at}: refused as ${got.error.code} "${got.error.message}", not ${c.refused.code} naming "${c.refused.names}"`);
      }
    }
  } finally {
    Error.stackTraceLimit = limit;
  }
  return { tried, wrong };
}
