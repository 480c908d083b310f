/**
 * Routing (PROTOCOL.md "Routing"): what a worker does with its staged updates for one description.
 *
 *     sharing = variant ≠ off ∧ maxBytes > 0
 *     no staged updates → none;  sharing ∧ bytes < maxBytes (strict) → shared;  otherwise → own
 */
import type { Route, Variant } from '../../vocab/index.ts';
import type { BugSwitches } from '../bugs.ts';
import { requireInteger } from '../errors.ts';

export function sharingOn(variant: Variant, maxBytes: number): boolean {
  return variant !== 'off' && maxBytes > 0;
}

export function decideRoute(variant: Variant, maxBytes: number, staged: number, bytes: number, bugs: BugSwitches): Route {
  if (staged === 0) return 'none';
  if (!sharingOn(variant, maxBytes)) return 'own';
  // BUG (threshold-inclusive): `<=` lets a worker exactly at the threshold share.
  const fits = bugs.has('threshold-inclusive') ? bytes <= maxBytes : bytes < maxBytes;
  return fits ? 'shared' : 'own';
}

/** The `shared_batch_max_bytes` knob: a constant, or read per description at mint. */
export type MaxBytesKnob = number | ((ctx: { replica: number; lower: number; seq: number }) => number);

/** Reads the knob once for a description; a bad value is `invalid-max-bytes`. */
export function readMaxBytes(knob: MaxBytesKnob, ctx: { replica: number; lower: number; seq: number }): number {
  if (typeof knob === 'number') return requireInteger(knob, 0, 'maxBytes', 'invalid-max-bytes');
  const value = knob(ctx);
  return requireInteger(value, 0, `maxBytes (read for replica ${ctx.replica}, description ${ctx.seq})`, 'invalid-max-bytes');
}
