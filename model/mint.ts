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
 *   incarnation starts with `lower` = `desired` = the shard's upper (what is below it is sealed; the input
 *   goes on from there).
 * - at most one description is `live`; `sharedId = seq` and `appendWorker = seq mod workers` (round robin).
 * - supersede: while a description is live, `SUPERSEDE` (the mint follows the persist frontier: another
 *   writer moved the shard's upper past the live lower, below the desired frontier; system.ts says when it
 *   may) sets `lower` to the shard's upper and mints a newer live description from there. Lowers still
 *   strictly increase, so a replica mints at most K − start descriptions.
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
  | { readonly type: 'MINT'; readonly maxBytes: number; readonly barrier: boolean }
  /** The shard's upper passed the live lower: mint a newer description from `lower` (the shard's upper).
   * `allowed`: the live description's append has not begun and no superseded one is pending (system.ts). */
  | { readonly type: 'SUPERSEDE'; readonly lower: Time; readonly allowed: boolean; readonly maxBytes: number; readonly barrier: boolean }
  /** The live description ended (appended, or abandoned after a mismatch) with this new lower. */
  | { readonly type: 'END'; readonly lower: Time }
  /** A restarted incarnation begins: sealed at once if its first lower is already K. */
  | { readonly type: 'RESUME' };

/** The next description from `lower` to the desired frontier, with the knob value and flag read at this mint. */
const nextDescription = (context: MintContext, lower: Time, knobs: { readonly maxBytes: number; readonly barrier: boolean }): Description => ({
  lower,
  upper: context.desired,
  appendWorker: context.seq % context.workers,
  sharedId: context.seq,
  maxBytes: knobs.maxBytes,
  barrier: knobs.barrier,
});

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
    passedBelowDesired: ({ context, event }) => {
      assertEvent(event, 'SUPERSEDE');
      return event.allowed && context.live !== null && event.lower > context.live.lower && event.lower < context.desired;
    },
  },
  actions: {
    advanceDesired: assign({ desired: ({ context }) => context.desired + 1 }),
    mintDescription: assign(({ context, event }) => {
      assertEvent(event, 'MINT');
      return { live: nextDescription(context, context.lower, event), seq: context.seq + 1 };
    }),
    supersedeDescription: assign(({ context, event }) => {
      assertEvent(event, 'SUPERSEDE');
      return { lower: event.lower, live: nextDescription(context, event.lower, event), seq: context.seq + 1 };
    }),
    endDescription: assign(({ event }) => {
      assertEvent(event, 'END');
      return { lower: event.lower, live: null };
    }),
  },
}).createMachine({
  id: 'mint',
  context: ({ input }) => ({ intervals: input.intervals, workers: input.workers, desired: input.start, lower: input.start, seq: 0, live: null }),
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
        SUPERSEDE: { guard: 'passedBelowDesired', actions: 'supersedeDescription' },
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
