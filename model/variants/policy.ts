/**
 * A variant's behaviour in the model: the policy system.ts consults where the variant makes a
 * difference (whether a description is shared, the barrier flag a mint reads, the barrier a flagged
 * description's builder waits at) and the properties the variant is judged by. The machines (XState)
 * stay the source of every transition; a policy only says which inputs they get. system.ts never
 * compares a variant's name. Each variant's definition (`off.ts`, `best-effort.ts`, `barrier.ts`) is one
 * `ModelVariant`; `index.ts` registers them.
 */
import { barrierOneSharedBatchPerGroup, barrierOneSharedBatchPerProcess, type Property } from '../../spec/properties.ts';
import type { VariantMeta, VariantOptions } from '../../vocab/index.ts';

/** The builder of a description whose barrier flag is on waits for `participants` reports (builder.ts
 * `BuilderInput.participants`; the `open` event's predicted `participants`). */
export interface ModelBarrier {
  readonly participants: number;
  /** A deadline (finite milliseconds): the barrier may complete before every participant reported
   * (builder.ts TIMEOUT; the model has no clock, so only whether there is one matters). Absent: it
   * waits for every participant. */
  readonly deadline?: number;
}

/** A model configuration's policy: its variant with the resolved options. */
export interface ModelPolicy {
  readonly meta: VariantMeta;
  readonly options: VariantOptions;
  /** Whether descriptions may be shared (then per description: `maxBytes > 0`); otherwise the barrier
   * flag is off on every description. */
  readonly sharing: boolean;
  /** The barrier flag a mint reads when neither the workload's knobs nor `barrierChoices` set it. */
  readonly barrierByDefault: boolean;
  barrier(workersPerProcess: number): ModelBarrier;
  /** The properties the variant is judged by, from spec/'s list (added, dropped or changed ones). */
  properties(all: readonly Property[]): readonly Property[];
}

/** One variant's definition in model/. */
export interface ModelVariant {
  readonly meta: VariantMeta;
  policy(options: VariantOptions): ModelPolicy;
}

/** The barrier of #37617: every worker of the process. */
export const everyWorker = (workersPerProcess: number): ModelBarrier => ({ participants: workersPerProcess });

/** Every property of spec/ as it is. */
export const allProperties = (all: readonly Property[]): readonly Property[] => all;

/** Best-effort, or the barrier when a description's flag is on, with the flag's default: the sharing
 * variants of #37591 and #37617. */
export function flaggedSharing(meta: VariantMeta, barrierByDefault: boolean): ModelVariant {
  return { meta, policy: (options) => ({ meta, options, sharing: true, barrierByDefault, barrier: everyWorker, properties: allProperties }) };
}

/**
 * `v` with a deadline on its barrier: `deadline(options)` milliseconds after the first report the barrier
 * may complete with the handles that joined (builder.ts TIMEOUT); Infinity: none, `v` as it is. With a
 * deadline a process may hand several shared batches for one interval (the late workers' groups), so
 * barrier-one-shared-batch-per-process gives way to barrier-one-shared-batch-per-group.
 */
export function withDeadline(v: ModelVariant, deadline: (options: VariantOptions) => number): ModelVariant {
  return {
    meta: v.meta,
    policy: (options) => {
      const base = v.policy(options);
      const ms = deadline(options);
      if (!Number.isFinite(ms)) return base;
      return {
        ...base,
        barrier: (workersPerProcess) => ({ ...base.barrier(workersPerProcess), deadline: ms }),
        properties: (all) => base.properties(all).map((p) => (p === barrierOneSharedBatchPerProcess ? barrierOneSharedBatchPerGroup : p)),
      };
    },
  };
}
