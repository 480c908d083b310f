/**
 * The whole system's state as plain data: one `Local` (value + context) per machine instance, the shard,
 * and the history the properties need. Built and changed only by system.ts.
 *
 * Invariants:
 * - plain JSON data, built by fixed code paths, so `JSON.stringify` is canonical (serialize);
 * - `workers`/`handles` describe the live (or last) description, except a worker still on the superseded
 *   one; they are reset at each mint (a worker still on a superseded description when it hands);
 * - `registries[p].builders[sharedId]` is null until the first builder(id)/noteSkip of that id;
 * - `history` only grows: it is what distinguishes two runs that reach the same present.
 */
import type { Description, Time } from '../vocab/index.ts';
import type { AppendView, BuilderView } from '../spec/view.ts';
import type { AppendContext } from './append.ts';
import type { BuilderContext } from './builder.ts';
import type { HandleContext } from './handle.ts';
import type { Local } from './local.ts';
import type { MintContext } from './mint.ts';
import type { SweepContext } from './sweep.ts';
import type { WorkerContext } from './worker.ts';

export interface Registry {
  readonly sweep: Local<SweepContext>;
  readonly builders: readonly (Local<BuilderContext> | null)[];
}

export interface Superseded {
  readonly desc: Description;
  readonly append: Local<AppendContext>;
}

export interface ReplicaState {
  /** false between an abort and the restart: nothing of the replica runs. */
  readonly up: boolean;
  /** Which start of the replica this is (0, then one more per restart). */
  readonly incarnation: number;
  readonly mint: Local<MintContext>;
  /** The live description's append operator; null between descriptions. */
  readonly append: Local<AppendContext> | null;
  /** A description superseded before its append began, with its append operator (collecting the hands of
   * the workers still on it — `handed[w] === null` — then deleting them as stale); null when none is
   * pending. A worker whose slot there is null is on this description, every other one on the live one. */
  readonly superseded: Superseded | null;
  readonly workers: readonly Local<WorkerContext>[];
  readonly handles: readonly (Local<HandleContext> | null)[];
  readonly registries: readonly Registry[];
}

export interface History {
  readonly appends: readonly AppendView[];
  readonly shardUppers: readonly Time[];
  readonly finishesBegun: number;
  readonly finishesEnded: number;
  readonly ownBatches: number;
  readonly deleted: number;
  /** The fault world (cfg.faults); all 0 / empty without it. */
  readonly faults: FaultHistory;
}

export interface FaultHistory {
  readonly aborts: number;
  /** Appends that committed through an indeterminate compare-and-set. */
  readonly indeterminate: number;
  /** Builder instances of aborted incarnations, as the view shows them. */
  readonly retiredBuilders: readonly BuilderView[];
  /** Cleanups owed: one per restart (and the final one once every replica sealed). */
  readonly pendingCleanups: number;
  readonly finalCleanup: boolean;
  /** Leak units (batches and builder instances with data) that aborted incarnations left behind:
   * per replica, not yet expired (the replica has not restarted); expired and not yet collected;
   * collected by a cleanup. */
  readonly leakingByReplica: readonly number[];
  readonly leaksExpired: number;
  readonly leaksCollected: number;
  /** Batches deleted although the shard references them (committed appends). */
  readonly referencedDeleted: number;
  /** What aborts abandoned: finishes begun and never returned, batches written and never appended
   * or deleted (spec/view.ts `finishes.abandoned`, `batches.abandoned`). */
  readonly finishesAbandoned: number;
  readonly batchesAbandoned: number;
}

export interface SystemState {
  /** The persist shard every replica writes: its upper and the inline bytes in its state. */
  readonly shard: { readonly upper: Time; readonly inlineBytes: number };
  readonly replicas: readonly ReplicaState[];
  readonly history: History;
}
