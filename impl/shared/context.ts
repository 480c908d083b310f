/**
 * What a process's SharedBatches registry needs from its surroundings. Production wires the replica's
 * writer, the pass-through scheduler, no observer and no bugs.
 */
import type { Time } from '../../vocab/index.ts';
import type { BugSwitches } from '../bugs.ts';
import type { BatchWriter } from '../persist/batch-builder.ts';
import type { Spawn } from '../runtime/task-group.ts';
import type { Trace } from '../runtime/trace.ts';
import type { Scheduler } from '../seams.ts';

/** The time range a shared batch covers. */
export interface BatchRange {
  readonly lower: Time;
  readonly upper: Time;
}

export interface SharedBatchesContext {
  readonly replica: number;
  readonly process: number;
  readonly writer: BatchWriter;
  readonly scheduler: Scheduler;
  readonly trace: Trace;
  readonly bugs: BugSwitches;
  /** Starts the builder tasks. */
  readonly spawn: Spawn;
  /** The sinks this registry serves, when it serves more than one (omitted: one sink, sink 0, writing
   * through `writer` and tracing to `trace`). A sweep then reports what it removed per sink. */
  readonly sinks?: readonly number[];
  /** The shard of the registry's own sink (sink 0): part of the description a handle is checked
   * against. */
  readonly shard: string;
}

/**
 * One MV sink a process's registry serves (RunConfig.sinks; PROTOCOL.md "Several MV sinks"): the
 * registry is process-global, so every sink of the process opens its handles there. An entry belongs to
 * the sink that created it: its builder task writes through that sink's writer (its shard's blobs), and
 * a handle's events go to the trace of the sink that opened it.
 */
export interface RegistrySink {
  /** The sink's index in the run (0 … sinks − 1): whose writer and trace an entry's events use. */
  readonly sink: number;
  readonly writer: BatchWriter;
  /** The sink's trace (its events carry `sink` when it is > 0). */
  readonly trace: Trace;
  /** The sink's shard: the description check compares it (Materialize's `BatchDesc.shard_id`). */
  readonly shard: string;
}

/** Capacity of each builder's channel: a fifth push waits for the builder task to take one. */
export const SHARED_CHANNEL_CAPACITY = 4;
