/**
 * Byte-level encoding shared by parts and state diffs: LEB128 varints for non-negative safe integers,
 * zigzag for signed ones, length-prefixed UTF-8 strings and byte strings.
 *
 * Arithmetic (not bit operators) keeps the full safe-integer range: `x >>> 7` would truncate to 32 bits.
 */
import { SbkitError } from './errors.ts';

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder('utf-8', { fatal: true });

/** Bytes of `n` (a non-negative safe integer) as a LEB128 varint. */
export function varintSize(n: number): number {
  let size = 1;
  while (n >= 128) {
    n = Math.floor(n / 128);
    size += 1;
  }
  return size;
}

/** Signed → unsigned so that small magnitudes stay small: 0,-1,1,-2 → 0,1,2,3. */
export function zigzag(n: number): number {
  return n >= 0 ? 2 * n : -2 * n - 1;
}

export function unzigzag(z: number): number {
  return z % 2 === 0 ? z / 2 : -(z + 1) / 2;
}

/** UTF-8 length of `s` without encoding it (hot path: every staged update is measured). */
export function utf8Length(s: string): number {
  let bytes = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const next = s.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i += 1;
      } else bytes += 3; // lone high surrogate: TextEncoder writes U+FFFD (3 bytes)
    } else bytes += 3;
  }
  return bytes;
}

/** Appends to a growable buffer. */
export class ByteWriter {
  #buf: Uint8Array;
  #len = 0;
  /** `finish` returned `#buf` itself: it must not be written again. */
  #handedOver = false;

  constructor(initialCapacity = 64) {
    this.#buf = new Uint8Array(Math.max(16, initialCapacity));
  }

  #reserve(extra: number): void {
    if (this.#len + extra <= this.#buf.length && !this.#handedOver) return;
    this.#handedOver = false;
    let cap = this.#buf.length * 2;
    while (cap < this.#len + extra) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.#buf.subarray(0, this.#len));
    this.#buf = next;
  }

  u8(n: number): this {
    this.#reserve(1);
    this.#buf[this.#len++] = n & 0xff;
    return this;
  }

  varint(n: number): this {
    if (!Number.isSafeInteger(n) || n < 0) {
      throw new SbkitError('corrupt-data', `cannot encode ${n} as a varint: not a non-negative safe integer`);
    }
    this.#reserve(varintSize(n));
    while (n >= 128) {
      this.#buf[this.#len++] = (n % 128) + 128;
      n = Math.floor(n / 128);
    }
    this.#buf[this.#len++] = n;
    return this;
  }

  bytes(b: Uint8Array): this {
    this.varint(b.length);
    this.#reserve(b.length);
    this.#buf.set(b, this.#len);
    this.#len += b.length;
    return this;
  }

  string(s: string): this {
    const len = utf8Length(s);
    this.varint(len);
    this.#reserve(len);
    if (len === s.length) {
      // ASCII fast path (the common case for keys): one byte per code unit.
      for (let i = 0; i < len; i++) this.#buf[this.#len + i] = s.charCodeAt(i);
    } else {
      utf8Encoder.encodeInto(s, this.#buf.subarray(this.#len, this.#len + len));
    }
    this.#len += len;
    return this;
  }

  finish(): Uint8Array {
    // Sized exactly (parts are: part-codec.ts): hand the buffer over instead of copying it; a later
    // write then reallocates first, so the bytes returned never change.
    if (this.#len === this.#buf.length && !this.#handedOver) {
      this.#handedOver = true;
      return this.#buf;
    }
    return this.#buf.slice(0, this.#len);
  }
}

/** Reads what ByteWriter wrote; every overrun or malformed value is `corrupt-data`. */
export class ByteReader {
  #pos = 0;
  constructor(
    private readonly buf: Uint8Array,
    private readonly what: string,
  ) {}

  get done(): boolean {
    return this.#pos === this.buf.length;
  }

  #fail(why: string): never {
    throw new SbkitError('corrupt-data', `${this.what}: ${why} at byte ${this.#pos}`);
  }

  u8(): number {
    const b = this.buf[this.#pos];
    if (b === undefined) this.#fail('unexpected end');
    this.#pos += 1;
    return b;
  }

  varint(): number {
    let n = 0;
    let scale = 1;
    for (;;) {
      const b = this.u8();
      n += (b % 128) * scale;
      if (b < 128) break;
      scale *= 128;
      if (scale > Number.MAX_SAFE_INTEGER) this.#fail('varint too long');
    }
    return n;
  }

  /** A length-prefixed view into the buffer (not a copy). */
  #prefixed(): Uint8Array {
    const len = this.varint();
    if (this.#pos + len > this.buf.length) this.#fail(`length ${len} overruns the buffer`);
    const view = this.buf.subarray(this.#pos, this.#pos + len);
    this.#pos += len;
    return view;
  }

  bytes(): Uint8Array {
    return this.#prefixed().slice();
  }

  /** Like bytes(), but a view into the buffer: no copy (the caller must not write to it). */
  view(): Uint8Array {
    return this.#prefixed();
  }

  string(): string {
    const raw = this.#prefixed();
    let ascii = true;
    for (let i = 0; i < raw.length && ascii; i++) ascii = (raw[i] as number) < 0x80;
    if (ascii) return Buffer.from(raw.buffer, raw.byteOffset, raw.length).toString('latin1'); // fast path
    try {
      return utf8Decoder.decode(raw);
    } catch {
      return this.#fail('invalid UTF-8');
    }
  }

  expectEnd(): void {
    if (!this.done) this.#fail('trailing bytes');
  }
}
