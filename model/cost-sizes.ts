/**
 * The sizes of what a run stores, as vocab/PROTOCOL.md "Cost" states the formats: what a hollow part
 * PUTs to blob, and what each committed state diff writes to consensus. The model computes them from
 * the trace's parts (payload bytes, updates per part) and the writer's names; nothing here is read from
 * the implementation.
 *
 * Integers are LEB128 varints; a string is its UTF-8 length (varint) and its bytes (every name here is
 * ASCII).
 */

/** Bytes of `n` (a non-negative integer) as a LEB128 varint. */
export function varintBytes(n: number): number {
  let bytes = 1;
  for (let v = Math.floor(n / 128); v > 0; v = Math.floor(v / 128)) bytes += 1;
  return bytes;
}

/** Bytes of an ASCII string as stored: its length, then its characters. */
export function stringBytes(length: number): number {
  return varintBytes(length) + length;
}

/** The decimal digits of a non-negative integer. */
export function digits(n: number): number {
  return String(n).length;
}

/** A part's header: 'S' 'B' version, then its update count. */
export function partHeaderBytes(updates: number): number {
  return 3 + varintBytes(updates);
}

/** What one hollow part PUTs to blob: its header and its payload. */
export function partObjectBytes(payload: number, updates: number): number {
  return partHeaderBytes(updates) + payload;
}

/** The writer id `w<incarnation>-r<replica>`: its length. */
export function writerIdLength(incarnation: number, replica: number): number {
  return 1 + digits(incarnation) + 2 + digits(replica);
}

/** A part key `<writer>/part-<n>`: its length. */
export function partKeyLength(writerLength: number, n: number): number {
  return writerLength + 6 + digits(n);
}

/**
 * A state diff without its parts' keys: version, seqNo, upper, since (0: the shard never compacts),
 * writer, token, and the batch (absent for a command that only moves the upper: an empty append, a
 * bump). Each part: kind, payload bytes, updates, then a hollow part's key (counted apart: keys depend
 * on which part numbers the schedule gave the parts) and object size, or an inline part's bytes.
 */
export function diffBytesWithoutKeys(d: {
  readonly seqNo: number;
  readonly upper: number;
  readonly writerLength: number;
  readonly token: number;
  readonly batch: { readonly lower: number; readonly parts: readonly { readonly payload: number; readonly updates: number; readonly hollow: boolean }[] } | null;
}): number {
  let n = 1 + varintBytes(d.seqNo) + varintBytes(d.upper) + varintBytes(0) + stringBytes(d.writerLength) + varintBytes(d.token) + 1;
  if (d.batch === null) return n;
  n += varintBytes(d.batch.lower) + varintBytes(d.upper) + varintBytes(d.batch.parts.length);
  for (const p of d.batch.parts) {
    n += 1 + varintBytes(p.payload) + varintBytes(p.updates);
    const object = partObjectBytes(p.payload, p.updates);
    n += p.hollow ? varintBytes(object) : stringBytes(object);
  }
  return n;
}

/**
 * Bounds on Σ stringBytes(key) over `committed` of the part numbers 0 … minted − 1 a writer minted:
 * which numbers those are is the schedule's (the order parts were cut across workers, and which
 * batches a mismatch deleted), so the fewest and the most digits. Exact when every minted part is
 * committed, or when every number has as many digits.
 */
export function keyBytesBounds(writerLength: number, minted: number, committed: number): { min: number; max: number } {
  const key = (n: number): number => stringBytes(partKeyLength(writerLength, n));
  let min = 0;
  let max = 0;
  for (let i = 0; i < committed; i++) {
    min += key(i);
    max += key(Math.max(0, minted - 1 - i));
  }
  return { min, max: Math.max(min, max) };
}
