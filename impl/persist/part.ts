/**
 * A part of a batch: hollow (its bytes are one blob object) or inline (its bytes live in state).
 *
 * Invariants:
 * - `payloadBytes` = Σ encodedUpdateSize of its updates; inline iff payloadBytes < inlineSingleMaxBytes
 *   when written (inline backpressure may later flush an inline part to a hollow one);
 * - `encodedBytes` (hollow) = the blob object's length, header included.
 */
import type { PartsSummary } from '../../vocab/index.ts';

export interface HollowPart {
  readonly kind: 'hollow';
  readonly key: string;
  readonly encodedBytes: number;
  readonly payloadBytes: number;
  readonly updates: number;
}

export interface InlinePart {
  readonly kind: 'inline';
  readonly data: Uint8Array;
  readonly payloadBytes: number;
  readonly updates: number;
}

export type Part = HollowPart | InlinePart;

export function countParts(parts: readonly Part[]): PartsSummary {
  let hollow = 0;
  for (const p of parts) if (p.kind === 'hollow') hollow += 1;
  return { hollow, inline: parts.length - hollow };
}
