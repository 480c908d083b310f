/**
 * One update of the desired collection, its encoded size and the worker that holds it.
 *
 * Invariants (checked by runSink's config validation, assumed here):
 * - `time` is a non-negative safe integer, `id` unique within a collection;
 * - `diff` is an integer with |diff| ≤ MAX_ABS_DIFF, so zigzag(diff) is a safe integer (a varint);
 * - `key` is well-formed UTF-16 (no lone surrogate), so its UTF-8 bytes decode back to the same key.
 * - `encodedUpdateSize(u)` is exactly the bytes `encodePart` spends on `u`, so a part's payload is the
 *   sum over its updates (PROTOCOL.md: thresholds and the inline rule measure payload bytes).
 */
import type { Time, UpdateId } from '../vocab/index.ts';
import { utf8Length, varintSize, zigzag } from './bytes.ts';
import { requireInteger } from './errors.ts';

export interface Update {
  readonly id: UpdateId;
  readonly key: string;
  readonly value: Uint8Array;
  readonly time: Time;
  readonly diff: number;
}

/** The largest |diff| an update may carry: zigzag(±(2^52 − 1)) ≤ 2^53 − 3 stays a safe integer. */
export const MAX_ABS_DIFF = 2 ** 52 - 1;

/** Index of the first lone surrogate in `s` (a code unit UTF-8 cannot encode), or −1 if well-formed. */
export function loneSurrogateAt(s: string): number {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) continue;
    const next = i + 1 < s.length ? s.charCodeAt(i + 1) : 0;
    if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      i += 1; // a pair
      continue;
    }
    return i;
  }
  return -1;
}

/** Payload bytes of `u` in a part: key, value, time and diff as laid out by part-codec.ts. Additive. */
export function encodedUpdateSize(u: Update): number {
  const keyBytes = utf8Length(u.key);
  return (
    varintSize(keyBytes) +
    keyBytes +
    varintSize(u.value.length) +
    u.value.length +
    varintSize(u.time) +
    varintSize(zigzag(u.diff))
  );
}

/** Payload bytes of several updates. */
export function payloadBytes(updates: readonly Update[]): number {
  let sum = 0;
  for (const u of updates) sum += encodedUpdateSize(u);
  return sum;
}

/** The worker in [0, workers) that holds `key`: FNV-1a (32 bit) over the key's UTF-16 code units. */
export function partitionWorker(key: string, workers: number): number {
  requireInteger(workers, 1, 'workers', 'invalid-workers');
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % workers;
}
