/**
 * Worker: one MV sink worker's part in one batch description, as an XState machine.
 *
 * Source: PR #37591 (stage the interval's updates; share them below `shared_batch_max_bytes`, else write
 * an own batch — the threshold/fallback of the final version) and PR #37617 (with the barrier, a worker
 * that does not share reports a skip; the code's doc "all workers must call finish even if they did not
 * push" gives the no-data policy `finish`). vocab/PROTOCOL.md, "Per worker" and "Routing".
 *
 * Abstracted away: key hashing (the workload says which worker holds an update), encoding, the
 * channel's capacity (pushes are chunks; waiting on a full channel is just a later push), the batch
 * builder internals (see parts.ts), the handle (handle.ts) and builder (builder.ts) it talks to.
 *
 * Invariants:
 * - the route is decided once, at STAGE, from the staged bytes and the description's knob:
 *   no updates → empty if sharing ∧ noData = finish (it opens and finishes a handle, pushing nothing,
 *   on the shared path), else none; sharing ∧ bytes < maxBytes (strict) → shared; otherwise → own.
 * - every worker reports exactly once per description under the barrier (shared, empty: finish; else skip).
 * - a worker hands at most one batch, and only after its finish returned or its own batch is written.
 * - supersede: a worker that has not staged a description when a newer one is minted takes `SUPERSEDED`
 *   instead of `STAGE`: it writes nothing, reports a skip under the barrier (sharing on), and hands nothing.
 */
import { assertEvent, assign, setup } from 'xstate';
import type { Route, UpdateId } from '../vocab/index.ts';
import { runner } from './local.ts';
import type { Batch } from './parts.ts';

export interface WorkerContext {
  readonly staged: readonly UpdateId[];
  readonly bytes: number;
  readonly route: Route | null;
  /** What this worker will hand: its received shared batch or its own batch. */
  readonly batch: Batch | null;
}

export type WorkerEvent =
  | {
      readonly type: 'STAGE';
      readonly updates: readonly UpdateId[];
      readonly bytes: number;
      readonly maxBytes: number;
      /** variant ≠ off ∧ maxBytes > 0 */
      readonly sharing: boolean;
      /** variant = barrier ∧ sharing: a worker that does not share reports a skip. */
      readonly reportsSkips: boolean;
      /** sharing ∧ noData = finish: a worker with no updates opens a handle and finishes it empty. */
      readonly finishesEmpty: boolean;
    }
  /** A newer description was minted before this worker staged this one (system.ts decides). */
  | { readonly type: 'SUPERSEDED'; readonly reportsSkips: boolean }
  | { readonly type: 'OPEN' }
  | { readonly type: 'FINISH_END'; readonly batch: Batch | null }
  | { readonly type: 'SKIP' }
  | { readonly type: 'OWN_BATCH'; readonly batch: Batch }
  | { readonly type: 'HAND' };

const stage = (route: Route) =>
  assign<WorkerContext, WorkerEvent, undefined, WorkerEvent, never>(({ event }) => {
    assertEvent(event, 'STAGE');
    return { staged: event.updates, bytes: event.bytes, route };
  });

export const workerMachine = setup({
  types: { context: {} as WorkerContext, events: {} as WorkerEvent },
  guards: {
    sharesBelowThreshold: ({ event }) => {
      assertEvent(event, 'STAGE');
      return event.updates.length > 0 && event.sharing && event.bytes < event.maxBytes;
    },
    fallsBackReportingSkip: ({ event }) => {
      assertEvent(event, 'STAGE');
      return event.updates.length > 0 && event.reportsSkips;
    },
    fallsBack: ({ event }) => {
      assertEvent(event, 'STAGE');
      return event.updates.length > 0;
    },
    finishesEmpty: ({ event }) => {
      assertEvent(event, 'STAGE');
      return event.updates.length === 0 && event.finishesEmpty;
    },
    supersededReportingSkip: ({ event }) => {
      assertEvent(event, 'SUPERSEDED');
      return event.reportsSkips;
    },
    idlesReportingSkip: ({ event }) => {
      assertEvent(event, 'STAGE');
      return event.reportsSkips;
    },
  },
  actions: {
    stageShared: stage('shared'),
    stageOwn: stage('own'),
    stageNone: stage('none'),
    stageEmpty: stage('empty'),
    keepReceived: assign(({ event }) => {
      assertEvent(event, 'FINISH_END');
      return { batch: event.batch };
    }),
    keepOwnBatch: assign(({ event }) => {
      assertEvent(event, 'OWN_BATCH');
      return { batch: event.batch };
    }),
  },
}).createMachine({
  id: 'worker',
  context: { staged: [], bytes: 0, route: null, batch: null },
  initial: 'idle',
  states: {
    idle: {
      on: {
        STAGE: [
          { guard: 'sharesBelowThreshold', target: 'shared', actions: 'stageShared' },
          { guard: 'fallsBackReportingSkip', target: 'fallback.reportingSkip', actions: 'stageOwn' },
          { guard: 'fallsBack', target: 'fallback.writing', actions: 'stageOwn' },
          { guard: 'finishesEmpty', target: 'shared', actions: 'stageEmpty' },
          { guard: 'idlesReportingSkip', target: 'noData.reportingSkip', actions: 'stageNone' },
          { target: 'handing', actions: 'stageNone' },
        ],
        SUPERSEDED: [{ guard: 'supersededReportingSkip', target: 'superseded.reportingSkip' }, { target: 'handing' }],
      },
    },
    shared: {
      initial: 'opening',
      states: {
        opening: { on: { OPEN: 'holdingHandle' } },
        holdingHandle: { on: { FINISH_END: { target: '#worker.handing', actions: 'keepReceived' } } },
      },
    },
    fallback: {
      initial: 'writing',
      states: {
        reportingSkip: { on: { SKIP: 'writing' } },
        writing: { on: { OWN_BATCH: { target: '#worker.handing', actions: 'keepOwnBatch' } } },
      },
    },
    noData: {
      initial: 'reportingSkip',
      states: {
        reportingSkip: { on: { SKIP: '#worker.handing' } },
      },
    },
    superseded: {
      initial: 'reportingSkip',
      states: {
        reportingSkip: { on: { SKIP: '#worker.handing' } },
      },
    },
    handing: { on: { HAND: 'done' } },
    done: { type: 'final' },
  },
});

export const worker = runner<WorkerContext, WorkerEvent, undefined>(workerMachine);
