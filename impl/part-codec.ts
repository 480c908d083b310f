/**
 * The bytes of a part: what a hollow part PUTs to blob and what an inline part stores in state.
 *
 * Layout (all integers LEB128 varints; `diff` zigzag-encoded):
 *
 *     part   := 'S' 'B' version(=1) count update*count
 *     update := keyLen key(UTF-8) valueLen value time zigzag(diff)
 *
 * The header (3 bytes + varint count) is counted in blob bytes but not in *payload* bytes, which are
 * Σ encodedUpdateSize (update.ts) — the quantity the cut, inline and threshold rules compare.
 */
import { ByteReader, ByteWriter, unzigzag, varintSize, zigzag } from './bytes.ts';
import { SbkitError } from './errors.ts';
import type { Update } from './update.ts';

const MAGIC_0 = 0x53; // 'S'
const MAGIC_1 = 0x42; // 'B'
const VERSION = 1;

/** An update as it comes back from storage: ids are not persisted. */
export interface DecodedUpdate {
  readonly key: string;
  /** A view into the part's bytes (not a copy): treat it as read-only. */
  readonly value: Uint8Array;
  readonly time: number;
  readonly diff: number;
}

/** Header bytes of a part with `count` updates. */
export function partHeaderSize(count: number): number {
  return 3 + varintSize(count);
}

export function encodePart(updates: readonly Update[], payload: number): Uint8Array {
  const w = new ByteWriter(partHeaderSize(updates.length) + payload);
  w.u8(MAGIC_0).u8(MAGIC_1).u8(VERSION).varint(updates.length);
  for (const u of updates) {
    w.string(u.key).bytes(u.value).varint(u.time).varint(zigzag(u.diff));
  }
  return w.finish();
}

export function decodePart(bytes: Uint8Array): DecodedUpdate[] {
  const r = new ByteReader(bytes, 'part');
  if (r.u8() !== MAGIC_0 || r.u8() !== MAGIC_1) throw new SbkitError('corrupt-data', 'part: bad magic');
  const version = r.u8();
  if (version !== VERSION) throw new SbkitError('corrupt-data', `part: unknown version ${version}`);
  const count = r.varint();
  const out: DecodedUpdate[] = [];
  for (let i = 0; i < count; i++) {
    const key = r.string();
    const value = r.view();
    const time = r.varint();
    const diff = unzigzag(r.varint());
    out.push({ key, value, time, diff });
  }
  r.expectEnd();
  return out;
}
