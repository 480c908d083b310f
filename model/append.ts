/**
 * Append: the MV sink's append operator for one description, as an XState machine.
 *
 * Source: Materialize `src/storage-operators/src/persist.rs` / `src/compute/src/sink/materialized_view*.rs`
 * (collect every batch written for the description, then one `compare_and_append(batches, lower, upper)`;
 * on a mismatch caused by another replica, delete the batches and move on) with PR #37591's change that
 * several batches — shared, and fallback own batches — may arrive for one description and are appended
 * together; PR #37617 leaves it unchanged (with the barrier, at most one shared batch per process arrives).
 * vocab/PROTOCOL.md, "append" and "Inline backpressure".
 *
 * Abstracted away: consensus (one compare-and-set on the shard's upper, see system.ts), blob I/O, the
 * since, the bump for `current < lower` (unreachable here: lowers come from the shard's upper), stale
 * batches (a description stays live until appended, so none arrive late), retries (a retried call that
 * changes nothing is a stuttering step). A compare-and-set that applied but answered with an error
 * commits at that step (`committed`); the append learns it later (`APPEND`), or never (an abort).
 *
 * Invariants:
 * - append is enabled only once every worker of the replica handed (0 or 1 batch each);
 * - one compare-and-append per description; ok iff the shard's upper equals `lower`;
 * - after a mismatch, handed batches are deleted before the description ends (no leaked blobs).
 */
import { assertEvent, assign, setup } from 'xstate';
import type { AppendResult, PartsSummary, PersistConfig, Route, Time } from '../vocab/index.ts';
import { runner } from './local.ts';
import { commitParts, sumParts, type Batch } from './parts.ts';

export interface Hand {
  readonly route: Route;
  readonly batches: readonly Batch[];
}

export interface AppendInput {
  readonly lower: Time;
  readonly upper: Time;
  readonly workers: number;
}

export interface AppendContext {
  readonly lower: Time;
  readonly upper: Time;
  /** Per worker of the replica: what it handed, or null before it hands. */
  readonly handed: readonly (Hand | null)[];
  readonly result: AppendResult | null;
  readonly parts: PartsSummary | null;
  readonly inlineBytesAdded: number;
  /** The shard took this append through a compare-and-set that answered with an error. */
  readonly committed: boolean;
}

export type AppendEvent =
  | { readonly type: 'HAND'; readonly worker: number; readonly hand: Hand }
  | {
      readonly type: 'APPEND';
      readonly shardUpper: Time;
      readonly shardInlineBytes: number;
      readonly persist: PersistConfig;
    }
  | { readonly type: 'DELETE' }
  /** The compare-and-set applied but answered with an error (the shard took the append). */
  | {
      readonly type: 'INDETERMINATE_APPLIED';
      readonly shardUpper: Time;
      readonly shardInlineBytes: number;
      readonly persist: PersistConfig;
    }
  /** Model bug `indeterminateAsMismatch`: the append reads its own committed write as a mismatch. */
  | { readonly type: 'MISREAD'; readonly shardUpper: Time };

const handedBatches = (ctx: AppendContext): readonly Batch[] => ctx.handed.flatMap((h) => h?.batches ?? []);

const notYetHanded = (ctx: AppendContext, event: AppendEvent): boolean => {
  assertEvent(event, 'HAND');
  return ctx.handed[event.worker] === null;
};

export const appendMachine = setup({
  types: { context: {} as AppendContext, events: {} as AppendEvent, input: {} as AppendInput },
  guards: {
    completesHands: ({ context, event }) =>
      notYetHanded(context, event) && context.handed.filter((h) => h === null).length === 1,
    notYetHanded: ({ context, event }) => notYetHanded(context, event),
    matchesShardUpper: ({ context, event }) => {
      assertEvent(event, 'APPEND');
      return event.shardUpper === context.lower;
    },
    hasBatches: ({ context }) => handedBatches(context).length > 0,
    appliesAtShardUpper: ({ context, event }) => {
      assertEvent(event, 'INDETERMINATE_APPLIED');
      return event.shardUpper === context.lower;
    },
  },
  actions: {
    recordHand: assign({
      handed: ({ context, event }) => {
        assertEvent(event, 'HAND');
        return context.handed.map((h, w) => (w === event.worker ? event.hand : h));
      },
    }),
    commit: assign(({ context, event }) => {
      assertEvent(event, 'APPEND');
      const commit = commitParts(handedBatches(context), event.shardInlineBytes, event.persist);
      return { result: { ok: true } as const, parts: commit.parts, inlineBytesAdded: commit.inlineBytesAdded };
    }),
    refuse: assign(({ context, event }) => {
      assertEvent(event, 'APPEND');
      return {
        result: { ok: false, current: event.shardUpper } as const,
        parts: sumParts(handedBatches(context), event.persist),
      };
    }),
    commitUnanswered: assign(({ context, event }) => {
      assertEvent(event, 'INDETERMINATE_APPLIED');
      const commit = commitParts(handedBatches(context), event.shardInlineBytes, event.persist);
      return { result: { ok: true } as const, parts: commit.parts, inlineBytesAdded: commit.inlineBytesAdded, committed: true };
    }),
    misread: assign(({ event }) => {
      assertEvent(event, 'MISREAD');
      return { result: { ok: false, current: event.shardUpper } as const };
    }),
  },
}).createMachine({
  id: 'append',
  context: ({ input }) => ({
    lower: input.lower,
    upper: input.upper,
    handed: Array.from({ length: input.workers }, () => null),
    result: null,
    parts: null,
    inlineBytesAdded: 0,
    committed: false,
  }),
  initial: 'collecting',
  states: {
    collecting: {
      on: {
        HAND: [
          { guard: 'completesHands', target: 'ready', actions: 'recordHand' },
          { guard: 'notYetHanded', actions: 'recordHand' },
        ],
      },
    },
    ready: {
      on: {
        APPEND: [
          { guard: 'matchesShardUpper', target: 'appended', actions: 'commit' },
          { guard: 'hasBatches', target: 'mismatched', actions: 'refuse' },
          { target: 'abandoned', actions: 'refuse' },
        ],
        INDETERMINATE_APPLIED: { guard: 'appliesAtShardUpper', target: 'committed', actions: 'commitUnanswered' },
      },
    },
    // The shard took the append; the append worker has not learned it yet (it reads state back: its
    // idempotency token is there, so the answer is ok).
    committed: {
      on: {
        APPEND: 'appended',
        MISREAD: [
          { guard: 'hasBatches', target: 'mismatched', actions: 'misread' },
          { target: 'abandoned', actions: 'misread' },
        ],
      },
    },
    mismatched: { on: { DELETE: 'deleted' } },
    appended: { type: 'final' },
    deleted: { type: 'final' },
    abandoned: { type: 'final' },
  },
});

export const append = runner<AppendContext, AppendEvent, AppendInput>(appendMachine);
