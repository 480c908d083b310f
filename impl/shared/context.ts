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
  /** Starts the builder tasks and the background sweep. */
  readonly spawn: Spawn;
}

/** Capacity of each builder's channel: a fifth push waits for the builder task to take one. */
export const SHARED_CHANNEL_CAPACITY = 4;
