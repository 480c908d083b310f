/**
 * The crash test's kill plan, drawn from the seed alone: for each kill, the shard upper it waits for,
 * a delay after that (so it lands anywhere in an interval), and which replica it aims at.
 */
import { STREAM, streamFor } from '../prng.ts';

export interface PlannedKill {
  /** The kill waits until the shard's upper reaches this. */
  readonly atUpper: number;
  /** Then this long (wall ms): uniform in [0, 2 × max(intervalMs, 10)). */
  readonly delayMs: number;
  /** The replica it aims at (the next running one if that one is not running). */
  readonly replica: number;
}

export interface KillPlan {
  readonly kills: readonly PlannedKill[];
  /** No kill lands when the shard is past this upper: a replica seals only at K, and a kill must find
   * its victim unsealed (`margin` intervals below K). */
  readonly lastUpper: number;
}

/** Kill delays span at least two of these (an unpaced sink's interval is a few ms of real work). */
const MIN_DELAY_SPAN_MS = 10;

export function killPlan(opts: { readonly seed: number; readonly kills: number; readonly replicas: number; readonly intervals: number; readonly intervalMs: number }): KillPlan {
  const rng = streamFor(opts.seed, STREAM.crashKills);
  const margin = Math.max(4, Math.floor(opts.intervals / 20));
  const lastUpper = Math.max(0, opts.intervals - margin);
  const kills = Array.from({ length: opts.kills }, () => ({
    atUpper: Math.floor(rng.next() * (lastUpper * 0.9)),
    delayMs: Math.round(rng.next() * 2 * Math.max(opts.intervalMs, MIN_DELAY_SPAN_MS)),
    replica: rng.below(opts.replicas),
  })).sort((a, b) => a.atUpper - b.atUpper);
  return { kills, lastUpper };
}
