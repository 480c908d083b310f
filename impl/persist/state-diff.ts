/**
 * The bytes of a state diff, as written to consensus by each successful command. Their size is what
 * `stateDiffBytes` measures: one entry per part, inline parts carrying their data.
 *
 * Layout (integers LEB128 varints):
 *
 *     diff  := version(=2) seqNo upper since writer(string) token hasBatch(0|1) [batch]
 *     batch := lower upper partCount part*
 *     part  := 0 payloadBytes updates key encodedBytes      (hollow: a blob reference)
 *            | 1 payloadBytes updates data                  (inline: the part's bytes)
 */
import { ByteReader, ByteWriter } from '../bytes.ts';
import { SbkitError } from '../errors.ts';
import type { Part } from './part.ts';
import type { StateBatch, StateDiff } from './state.ts';

const VERSION = 2;
const HOLLOW = 0;
const INLINE = 1;

export function encodeDiff(diff: StateDiff): Uint8Array {
  const w = new ByteWriter(48 + (diff.batch?.parts.length ?? 0) * 24);
  w.u8(VERSION).varint(diff.seqNo).varint(diff.upper).varint(diff.since).string(diff.writer).varint(diff.token);
  if (diff.batch === null) return w.u8(0).finish();
  w.u8(1).varint(diff.batch.lower).varint(diff.batch.upper).varint(diff.batch.parts.length);
  for (const p of diff.batch.parts) {
    if (p.kind === 'hollow') {
      w.u8(HOLLOW).varint(p.payloadBytes).varint(p.updates).string(p.key).varint(p.encodedBytes);
    } else {
      w.u8(INLINE).varint(p.payloadBytes).varint(p.updates).bytes(p.data);
    }
  }
  return w.finish();
}

export function decodeDiff(bytes: Uint8Array): StateDiff {
  const r = new ByteReader(bytes, 'state diff');
  const version = r.u8();
  if (version !== VERSION) throw new SbkitError('corrupt-data', `state diff: unknown version ${version}`);
  const seqNo = r.varint();
  const upper = r.varint();
  const since = r.varint();
  const writer = r.string();
  const token = r.varint();
  const hasBatch = r.u8();
  let batch: StateBatch | null = null;
  if (hasBatch === 1) {
    const lower = r.varint();
    const batchUpper = r.varint();
    const count = r.varint();
    const parts: Part[] = [];
    for (let i = 0; i < count; i++) {
      const kind = r.u8();
      const payloadBytes = r.varint();
      const updates = r.varint();
      if (kind === HOLLOW) {
        parts.push({ kind: 'hollow', payloadBytes, updates, key: r.string(), encodedBytes: r.varint() });
      } else if (kind === INLINE) {
        parts.push({ kind: 'inline', payloadBytes, updates, data: r.bytes() });
      } else throw new SbkitError('corrupt-data', `state diff: unknown part kind ${kind}`);
    }
    batch = { lower, upper: batchUpper, parts };
  } else if (hasBatch !== 0) throw new SbkitError('corrupt-data', `state diff: bad batch flag ${hasBatch}`);
  r.expectEnd();
  return { seqNo, upper, since, batch, writer, token };
}
