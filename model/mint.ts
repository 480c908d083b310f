/**
 * Mint: the MV sink's mint operator of one replica, one worker, as an XState machine.
 *
 * Source: Materialize `src/storage-operators/src/persist.rs` / `src/compute/src/sink/materialized_view*.rs`
 * as changed by PR #37591 (a `sharedId` and the `shared_batch_max_bytes` knob on every description) and
 * PR #37617 (unchanged). vocab/PROTOCOL.md, "Per replica".
 *
 * Abstracted away: timestamps beyond a tick counter (the desired frontier advances by one per `FRONTIER`),
 * the broadcast channel (every worker sees the live description at once), dataflow frontiers, the
 * sink's correction buffer (what a mismatch leaves unwritten is simply desired again from the new lower).
 *
 * Invariants (on the context):
 * - `desired ≤ intervals`; lowers only grow, so descriptions' lowers strictly increase; a restarted
 *   incarnation starts with `lower` = the shard's upper and `desired` = 0 (its input catches up).
 * - at most one description is `live`; `sharedId = seq` and `appendWorker = seq mod workers` (round robin).
 */
import { assertEvent, assign, setup } from 'xstate';
import type { Description, Time } from '../vocab/index.ts';
import { runner } from './local.ts';

export interface MintInput {
  readonly intervals: number;
  /** P·W, the replica's workers: the append worker rotates over them. */
  readonly workers: number;
  /** The sink's first lower: 0, or the shard's upper when a restarted incarnation starts. */
  readonly start: Time;
}

export interface MintContext {
  readonly intervals: number;
  readonly workers: number;
  readonly desired: Time;
  readonly lower: Time;
  readonly seq: number;
  readonly live: Description | null;
}

export type MintEvent =
  | { readonly type: 'FRONTIER' }
  | { readonly type: 'MINT'; readonly maxBytes: number }
  /** The live description ended (appended, or abandoned after a mismatch) with this new lower. */
  | { readonly type: 'END'; readonly lower: Time }
  /** A restarted incarnation begins: sealed at once if its first lower is already K. */
  | { readonly type: 'RESUME' };

export const mintMachine = setup({
  types: { context: {} as MintContext, events: {} as MintEvent, input: {} as MintInput },
  guards: {
    desiredBelowIntervals: ({ context }) => context.desired < context.intervals,
    lagsDesired: ({ context }) => context.lower < context.desired,
    sealsLastInterval: ({ context, event }) => {
      assertEvent(event, 'END');
      return event.lower >= context.intervals;
    },
    startsSealed: ({ context }) => context.lower >= context.intervals,
  },
  actions: {
    advanceDesired: assign({ desired: ({ context }) => context.desired + 1 }),
    mintDescription: assign(({ context, event }) => {
      assertEvent(event, 'MINT');
      const live: Description = {
        lower: context.lower,
        upper: context.desired,
        appendWorker: context.seq % context.workers,
        sharedId: context.seq,
        maxBytes: event.maxBytes,
      };
      return { live, seq: context.seq + 1 };
    }),
    endDescription: assign(({ event }) => {
      assertEvent(event, 'END');
      return { lower: event.lower, live: null };
    }),
  },
}).createMachine({
  id: 'mint',
  context: ({ input }) => ({ intervals: input.intervals, workers: input.workers, desired: 0, lower: input.start, seq: 0, live: null }),
  initial: 'waiting',
  states: {
    waiting: {
      on: {
        FRONTIER: { guard: 'desiredBelowIntervals', actions: 'advanceDesired' },
        MINT: { guard: 'lagsDesired', target: 'live', actions: 'mintDescription' },
        RESUME: { guard: 'startsSealed', target: 'sealed' },
      },
    },
    live: {
      on: {
        FRONTIER: { guard: 'desiredBelowIntervals', actions: 'advanceDesired' },
        END: [
          { guard: 'sealsLastInterval', target: 'sealed', actions: 'endDescription' },
          { target: 'waiting', actions: 'endDescription' },
        ],
      },
    },
    // Not a final state: a replica sealed early (another replica moved the shard to K) still sees its
    // desired frontier advance.
    sealed: { on: { FRONTIER: { guard: 'desiredBelowIntervals', actions: 'advanceDesired' } } },
  },
});

export const mint = runner<MintContext, MintEvent, MintInput>(mintMachine);
