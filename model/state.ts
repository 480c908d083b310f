/**
 * The whole system's state as plain data: one `Local` (value + context) per machine instance, the shard,
 * and the history the properties need. Built and changed only by system.ts.
 *
 * Invariants:
 * - plain JSON data, built by fixed code paths, so `JSON.stringify` is canonical (serialize);
 * - `workers`/`handles` describe the live (or last) description only; they are reset at each mint;
 * - `registries[p].builders[sharedId]` is null until the first builder(id)/noteSkip of that id;
 * - `history` only grows: it is what distinguishes two runs that reach the same present.
 */
import type { Time } from '../vocab/index.ts';
import type { AppendView } from '../spec/view.ts';
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

export interface ReplicaState {
  readonly mint: Local<MintContext>;
  /** The live description's append operator; null between descriptions. */
  readonly append: Local<AppendContext> | null;
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
}

export interface SystemState {
  /** The persist shard every replica writes: its upper and the inline bytes in its state. */
  readonly shard: { readonly upper: Time; readonly inlineBytes: number };
  readonly replicas: readonly ReplicaState[];
  readonly history: History;
}
