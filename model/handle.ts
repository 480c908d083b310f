/**
 * Handle: what `SharedBatches::builder(id, desc[, participants])` returns to one worker, as an XState machine.
 *
 * Source: PR #37591 (`SharedBatchHandle`: push parts into the shared builder's channel, then `finish()`;
 * only the handle dropping the last strong reference receives the batch) and PR #37617 (`finish()` waits
 * on the barrier; the deliverer receives). vocab/PROTOCOL.md, "Per worker" and "Best-effort"/"Barrier".
 *
 * Abstracted away: the channel (capacity 4: a full channel only delays a push, i.e. another
 * interleaving), part encoding (pushes carry update ids), Arc/Weak mechanics (builder.ts counts refs).
 *
 * Invariants:
 * - pushes are consecutive non-empty chunks of the staged updates, in staged order, covering all of them
 *   before finish begins (a handle with nothing staged — the no-data policy `finish` — begins its finish
 *   right after it opened, pushing nothing); a handle never finishes twice.
 * - finish returns a batch only to the builder instance's receiver; every other handle gets none.
 */
import { assertEvent, assign, setup } from 'xstate';
import type { UpdateId } from '../vocab/index.ts';
import { runner } from './local.ts';
import type { Batch } from './parts.ts';

export interface HandleInput {
  readonly staged: readonly UpdateId[];
  /** Which builder instance of its (process, sharedId) entry this handle joined. */
  readonly instance: number;
}

export interface HandleContext extends HandleInput {
  readonly pushed: number;
  readonly last: boolean | null;
}

export type HandleEvent =
  | { readonly type: 'PUSH'; readonly updates: readonly UpdateId[] }
  | { readonly type: 'FINISH_BEGIN'; readonly last: boolean }
  /** `released`: finish may return (always for best-effort; once finalized for the barrier). */
  | { readonly type: 'FINISH_END'; readonly released: boolean; readonly batch: Batch | null };

export const handleMachine = setup({
  types: { context: {} as HandleContext, events: {} as HandleEvent, input: {} as HandleInput },
  guards: {
    continuesStagedOrder: ({ context, event }) => {
      assertEvent(event, 'PUSH');
      const { updates } = event;
      if (updates.length === 0 || context.pushed + updates.length > context.staged.length) return false;
      return updates.every((id, i) => context.staged[context.pushed + i] === id);
    },
    pushedEverything: ({ context }) => context.pushed === context.staged.length,
    receivesBatch: ({ event }) => {
      assertEvent(event, 'FINISH_END');
      return event.released && event.batch !== null;
    },
    isReleased: ({ event }) => {
      assertEvent(event, 'FINISH_END');
      return event.released;
    },
  },
  actions: {
    advancePushed: assign({
      pushed: ({ context, event }) => {
        assertEvent(event, 'PUSH');
        return context.pushed + event.updates.length;
      },
    }),
    recordLast: assign({
      last: ({ event }) => {
        assertEvent(event, 'FINISH_BEGIN');
        return event.last;
      },
    }),
  },
}).createMachine({
  id: 'handle',
  context: ({ input }) => ({ ...input, pushed: 0, last: null }),
  initial: 'opened',
  states: {
    opened: {
      on: {
        PUSH: { guard: 'continuesStagedOrder', target: 'pushing', actions: 'advancePushed' },
        FINISH_BEGIN: { guard: 'pushedEverything', target: 'finishing', actions: 'recordLast' },
      },
    },
    pushing: {
      on: {
        PUSH: { guard: 'continuesStagedOrder', actions: 'advancePushed' },
        FINISH_BEGIN: { guard: 'pushedEverything', target: 'finishing', actions: 'recordLast' },
      },
    },
    finishing: {
      on: {
        FINISH_END: [
          { guard: 'receivesBatch', target: 'receivedBatch' },
          { guard: 'isReleased', target: 'gotNone' },
        ],
      },
    },
    receivedBatch: { type: 'final' },
    gotNone: { type: 'final' },
  },
});

export const handle = runner<HandleContext, HandleEvent, HandleInput>(handleMachine);
