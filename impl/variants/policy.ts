/**
 * A variant's behaviour in the implementation: the sharing policy the sink's write path (mint, route,
 * write) consults, and through it what SharedBatches is opened with. impl/ code asks the policy and never
 * compares a variant's name. Each variant's definition (`off.ts`, `best-effort.ts`, `barrier.ts`) is one
 * `ImplVariant`; `index.ts` registers them.
 *
 * Invariants:
 * - a policy is fixed for a run (its variant and resolved options); what may change per description is
 *   read at mint and carried on the description (`maxBytes`, the barrier flag `barrier`);
 * - `sharing = false` means no description is ever shared: no knob is read for it, no SharedBatches;
 * - the barrier flag chooses, per description, between the variant's two ways of sharing: flag off, the
 *   last reference receives (best-effort); flag on, the shared batch waits at `barrier(W)`.
 */
import type { VariantMeta, VariantOptions } from '../../vocab/index.ts';

/** What a shared batch under a description with the barrier flag on waits for (SharedBatches
 * `OpenOptions.participants`, `noteSkip`'s participants): every worker of the process reports once. */
export interface BarrierSpec {
  readonly participants: number;
  /** A deadline (finite milliseconds): the barrier waits at most this long after its first report, then
   * completes with the handles that joined (SharedBatches `OpenOptions.deadline`; vocab/PROTOCOL.md
   * "Barrier with a deadline"). Absent: it waits for every participant. */
  readonly deadline?: number;
}

/** A run's sharing policy: its variant's behaviour with the run's resolved options. */
export interface SharingPolicy {
  /** The variant's meta (its name for messages and traces' readers). */
  readonly meta: VariantMeta;
  readonly options: VariantOptions;
  /** Whether descriptions may be shared at all (then per description: `maxBytes > 0`). */
  readonly sharing: boolean;
  /** The barrier flag of every description when the run sets none (RunConfig.barrier absent). */
  readonly barrierByDefault: boolean;
  /** The barrier of a description whose flag is on, in a process of `workersPerProcess` workers. */
  barrier(workersPerProcess: number): BarrierSpec;
}

/** One variant's definition in impl/. */
export interface ImplVariant {
  readonly meta: VariantMeta;
  /** The policy for a run with these (validated, defaulted) options. */
  policy(options: VariantOptions): SharingPolicy;
}

/** The barrier of #37617: every worker of the process reports once (finish or skip). */
export const everyWorker = (workersPerProcess: number): BarrierSpec => ({ participants: workersPerProcess });

/** The two-way sharing of #37591 and #37617 (best-effort, or the barrier when the description's flag
 * is on), with the flag's default: what the sharing variants have in common. */
export function flaggedSharing(meta: VariantMeta, barrierByDefault: boolean): ImplVariant {
  return { meta, policy: (options) => ({ meta, options, sharing: true, barrierByDefault, barrier: everyWorker }) };
}

/** `v` with a deadline on its barrier: `deadline(options)` milliseconds (Infinity: none, `v` as it is). */
export function withDeadline(v: ImplVariant, deadline: (options: VariantOptions) => number): ImplVariant {
  return {
    meta: v.meta,
    policy: (options) => {
      const base = v.policy(options);
      const ms = deadline(options);
      if (!Number.isFinite(ms)) return base;
      return { ...base, barrier: (workersPerProcess) => ({ ...base.barrier(workersPerProcess), deadline: ms }) };
    },
  };
}
