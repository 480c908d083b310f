/**
 * Routing (PROTOCOL.md "Routing"): what a worker does with its staged updates for one description.
 *
 *     sharing = the variant shares (its SharingPolicy) ∧ maxBytes > 0
 *     no staged updates → empty if sharing ∧ noData = finish, else none;
 *     sharing ∧ bytes < maxBytes (strict) → shared;  otherwise → own
 *
 * Every knob is read once per description, at mint, and carried on it (the description's `maxBytes`
 * and `barrier`): every worker of one interval must decide alike.
 */
import type { NoDataPolicy, Route } from '../../vocab/index.ts';
import type { BugSwitches } from '../bugs.ts';
import { SbkitError, requireInteger, show } from '../errors.ts';
import type { SharingPolicy } from '../variants/index.ts';

export function sharingOn(policy: SharingPolicy, maxBytes: number): boolean {
  return policy.sharing && maxBytes > 0;
}

export function decideRoute(policy: SharingPolicy, maxBytes: number, staged: number, bytes: number, bugs: BugSwitches, noData: NoDataPolicy = 'skip'): Route {
  // A worker with no data does nothing (`skip`), or, with `finish` and the description shared, opens a
  // handle and finishes it empty (route `empty`): it reports by finish, as every participant must.
  if (staged === 0) return noData === 'finish' && sharingOn(policy, maxBytes) ? 'empty' : 'none';
  if (!sharingOn(policy, maxBytes)) return 'own';
  // BUG (threshold-inclusive): `<=` lets a worker exactly at the threshold share.
  const fits = bugs.has('threshold-inclusive') ? bytes <= maxBytes : bytes < maxBytes;
  return fits ? 'shared' : 'own';
}

/**
 * When a knob is read: by which replica, for which description (its lower and mint sequence number),
 * and the replica's desired frontier at that moment (a dynamic config that flips does so at some moment;
 * the input frontier is how a deterministic run names that moment).
 */
export interface KnobContext {
  readonly replica: number;
  readonly lower: number;
  readonly seq: number;
  readonly desired: number;
}

/** The `shared_batch_max_bytes` knob: a constant, or read per description at mint. */
export type MaxBytesKnob = number | ((ctx: KnobContext) => number);

/** Reads the knob once for a description; a bad value is `invalid-max-bytes`. */
export function readMaxBytes(knob: MaxBytesKnob, ctx: KnobContext): number {
  if (typeof knob === 'number') return requireInteger(knob, 0, 'maxBytes', 'invalid-max-bytes');
  const value = knob(ctx);
  return requireInteger(value, 0, `maxBytes (read for replica ${ctx.replica}, description ${ctx.seq})`, 'invalid-max-bytes');
}

/** The `enable_compute_sync_mv_sink_shared_batches_barrier` flag: a constant, or read per description
 * at mint (and carried on it, so every worker of the description sees one value). */
export type BarrierKnob = boolean | ((ctx: KnobContext) => boolean);

/** Reads the flag; a value that is not a boolean is `invalid-config`. */
export function readBarrier(knob: BarrierKnob, ctx: KnobContext): boolean {
  const value: unknown = typeof knob === 'boolean' ? knob : knob(ctx);
  if (typeof value !== 'boolean') {
    throw new SbkitError('invalid-config', `barrier flag (read for replica ${ctx.replica}, description ${ctx.seq}) must be a boolean, got ${show(value)}`);
  }
  return value;
}
