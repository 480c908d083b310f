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
 * since, retries (a
 * retried call that changes nothing is a stuttering step). A compare-and-set that applied but answered
 * with an error commits at that step (`committed`); the append learns it later (`APPEND`), or never (an
 * abort). Two detours before the compare-and-set, each its own step:
 * - `BACKPRESSURE`: the shard's inline bytes would reach the limit, so the compare-and-set is refused and
 *   every inline part is flushed to blob (`flushed`); the retry comes later, against whatever the shard
 *   is then (another writer may have appended: a mismatch);
 * - `BUMP`: the shard is behind the description's lower (`current < lower`: a sink whose as-of is ahead
 *   of the shard): an empty compare-and-append advances it to `lower`, then the append retries.
 *
 * A superseded description's append (system.ts `superseded`) only collects hands; once every worker
 * handed, system.ts deletes what was handed (`delete`, reason stale) without firing this machine.
 *
 * Invariants:
 * - append is enabled only once every worker of the replica handed (0 or 1 batch each);
 * - one compare-and-append per description; ok iff the shard's upper equals `lower`;
 * - after a mismatch, handed batches are deleted before the description ends (no leaked blobs).
 */
import { assertEvent, assign, setup } from 'xstate';
import type { AppendResult, PartsSummary, PersistConfig, Route, Time } from '../vocab/index.ts';
import { runner } from './local.ts';
import { commitParts, needsFlush, partsNow, type Batch } from './parts.ts';

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
  /** Inline backpressure flushed every inline part of the handed batches to blob. */
  readonly flushed: boolean;
  /** A bump's compare-and-set applied but answered with an error: the shard moved from this upper; the
   * append worker's `bump` step, when it learns it, changes nothing more. */
  readonly bumpedFrom: Time | null;
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
  | { readonly type: 'BACKPRESSURE'; readonly shardUpper: Time; readonly shardInlineBytes: number; readonly persist: PersistConfig }
  /** The bump's empty compare-and-append committed now, or (after BUMP_UNANSWERED) the append worker
   * learned that it had. */
  | { readonly type: 'BUMP'; readonly shardUpper: Time }
  /** The bump's compare-and-set applied but answered with an error: the shard moved at this step. */
  | { readonly type: 'BUMP_UNANSWERED'; readonly shardUpper: Time }
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
    commits: ({ context, event }) => {
      assertEvent(event, 'APPEND');
      return (
        event.shardUpper === context.lower &&
        context.bumpedFrom === null &&
        (context.flushed || !needsFlush(handedBatches(context), event.shardInlineBytes, event.persist))
      );
    },
    refusedWithBatches: ({ context, event }) => {
      assertEvent(event, 'APPEND');
      return event.shardUpper > context.lower && handedBatches(context).length > 0;
    },
    refusedEmpty: ({ context, event }) => {
      assertEvent(event, 'APPEND');
      return event.shardUpper > context.lower;
    },
    refusedByBackpressure: ({ context, event }) => {
      assertEvent(event, 'BACKPRESSURE');
      return event.shardUpper === context.lower && !context.flushed && needsFlush(handedBatches(context), event.shardInlineBytes, event.persist);
    },
    bumps: ({ context, event }) => {
      assertEvent(event, 'BUMP');
      return context.bumpedFrom !== null || event.shardUpper < context.lower;
    },
    bumpsUnanswered: ({ context, event }) => {
      assertEvent(event, 'BUMP_UNANSWERED');
      return context.bumpedFrom === null && event.shardUpper < context.lower;
    },
    hasBatches: ({ context }) => handedBatches(context).length > 0,
    appliesAtShardUpper: ({ context, event }) => {
      assertEvent(event, 'INDETERMINATE_APPLIED');
      return event.shardUpper === context.lower && (context.flushed || !needsFlush(handedBatches(context), event.shardInlineBytes, event.persist));
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
      const commit = commitParts(handedBatches(context), event.persist, context.flushed);
      return { result: { ok: true } as const, parts: commit.parts, inlineBytesAdded: commit.inlineBytesAdded };
    }),
    refuse: assign(({ context, event }) => {
      assertEvent(event, 'APPEND');
      return {
        result: { ok: false, current: event.shardUpper } as const,
        parts: partsNow(handedBatches(context), event.persist, context.flushed),
      };
    }),
    flush: assign({ flushed: true }),
    learnBump: assign({ bumpedFrom: null }),
    bumpUnanswered: assign(({ event }) => {
      assertEvent(event, 'BUMP_UNANSWERED');
      return { bumpedFrom: event.shardUpper };
    }),
    commitUnanswered: assign(({ context, event }) => {
      assertEvent(event, 'INDETERMINATE_APPLIED');
      const commit = commitParts(handedBatches(context), event.persist, context.flushed);
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
    flushed: false,
    bumpedFrom: null,
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
        // SUBTLE: no APPEND is enabled while the shard is behind (a BUMP comes first) or while the
        // append needs a flush (a BACKPRESSURE comes first): both refuse before the compare-and-set.
        APPEND: [
          { guard: 'commits', target: 'appended', actions: 'commit' },
          { guard: 'refusedWithBatches', target: 'mismatched', actions: 'refuse' },
          { guard: 'refusedEmpty', target: 'abandoned', actions: 'refuse' },
        ],
        BACKPRESSURE: { guard: 'refusedByBackpressure', actions: 'flush' },
        BUMP: { guard: 'bumps', actions: 'learnBump' },
        BUMP_UNANSWERED: { guard: 'bumpsUnanswered', actions: 'bumpUnanswered' },
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
