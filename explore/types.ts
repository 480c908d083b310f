/**
 * The data explore/ passes around: what an experiment is (Setup, Case), what a run measured (Figures),
 * and comparisons and sweeps of runs. Types and constant lists only.
 */
import type { BugName, NoDataPolicy, Variant, VariantOptionValues } from '../vocab/index.ts';
import type { IntervalTimeline } from './timeline.ts';
import type { TimingParams } from './timing.ts';

/** The shape of one experiment: a workload, the system's size and the knob. */
export interface Setup {
  readonly replicas: number;
  readonly processes: number;
  /** Workers per process (timely's `-w`). */
  readonly workers: number;
  readonly intervals: number;
  /** Updates per interval. */
  readonly rows: number;
  /** Target encoded bytes per update. */
  readonly rowBytes: number;
  /** `shared_batch_max_bytes`: 0 disables sharing; `UNLIMITED` never falls back. */
  readonly threshold: number;
  readonly seed: number;
  readonly bug?: BugName | undefined;
  readonly timing?: TimingParams | undefined;
  /** Stragglers (`--stragglers P,SLOWDOWN`): they override the timing's straggler fields. Omitted: none. */
  readonly stragglers?: Stragglers | undefined;
  /** Storage faults and replica aborts at this rate (`--faults [RATE]`, explore/faults.ts). Omitted: none. */
  readonly faults?: number | undefined;
  /** What a worker with no data does (`--no-data`, impl RunConfig.noData): one policy for every variant, or
   * `both` — each sharing variant once under each policy, side by side. Omitted: each variant's default
   * (vocab defaultNoData: finish under the barrier, skip otherwise). */
  readonly noData?: NoDataPolicy | 'both' | undefined;
  /** Variants' options by variant (`--barrier-timeout T` …: variant-options.ts), passed to the runs and
   * the model of that variant. Omitted: every option at its default. */
  readonly variantOptions?: Readonly<Record<Variant, VariantOptionValues>> | undefined;
}

/** Each worker straggles on a description with `probability`; a straggler's own work is `slowdown` × slower (timing.ts). */
export interface Stragglers {
  readonly probability: number;
  readonly slowdown: number;
}

/** One row of a comparison: a variant at a threshold (under one no-data policy with `--no-data both`). */
export interface Case {
  readonly variant: Variant;
  readonly threshold: number;
  readonly noData?: NoDataPolicy;
}

/** What one run of the implementation measured. */
export interface Figures {
  readonly variant: Variant;
  readonly threshold: number;
  /** `--no-data both` only: the policy of this row's run. */
  readonly noData?: NoDataPolicy;
  readonly appends: number;
  readonly partsPerAppend: number;
  readonly batchesPerAppend: number;
  readonly blobPuts: number;
  readonly blobBytes: number;
  readonly consensusCommands: number;
  readonly stateDiffBytes: number;
  readonly inlineParts: number;
  readonly hollowParts: number;
  readonly updatesWritten: number;
  readonly updatesAppended: number;
  readonly lost: number;
  readonly duplicated: number;
  readonly leakedBlobs: number;
  /** Virtual time from start to the last append, in milliseconds (includes the interval pacing). */
  readonly simulatedMs: number;
  /** Mean virtual time from a description's mint to its successful append: the write path's latency. */
  readonly meanAppendLatencyMs: number;
  /** Commit latency per interval (frontier past it → successful append), virtual ms: latency.ts. */
  readonly latencyP50Ms: number;
  readonly latencyP99Ms: number;
  readonly latencyMaxMs: number;
  /** Commit latency of every committed interval (virtual ms, in commit order): the distribution behind p50 / p99 / max.
   * Omitted in production mode (no virtual time). */
  readonly latencySamples?: readonly number[];
  /** Successful appends by their number of parts, `[parts, appends]` ascending: the distribution behind parts/append. */
  readonly partsHistogram?: readonly (readonly [parts: number, appends: number])[];
  /** One description in virtual time (timeline.ts): replica 0's worst straggler. Omitted in production mode. */
  readonly timeline?: IntervalTimeline;
  /** The part of it after the last worker became ready: what the write path itself takes. */
  readonly writeP50Ms: number;
  readonly writeP99Ms: number;
  readonly writeMaxMs: number;
  /** Parts the shard holds after the run (every appended part; nothing compacts here): the compaction proxy. */
  readonly shardParts: number;
  /** Over all appends: the largest share of an append's bytes that went through one batch builder. */
  readonly maxBuilderShare: number;
  /** The fault world (zeros without --faults): storage faults injected, retries they caused, replica
   * incarnations aborted and restarted, blobs aborts leaked and cleanup collected. */
  readonly faultsInjected: number;
  readonly retries: number;
  readonly aborts: number;
  readonly restarts: number;
  readonly leakedByAborts: number;
  readonly collected: number;
  /** The model replayed this run's trace and predicted every append's batches and parts exactly (model-agreement.ts). */
  readonly modelAgrees: boolean;
  /** How far the model agreed: `100/100 appends predicted exactly`, or where and why it diverged. */
  readonly modelDetail: string;
  /** Production mode only (`--consensus`/`--blob` given: explore/production.ts). */
  readonly real?: RealFigures;
  /** `--no-data finish` or `both` only: workers with no data that opened a handle and finished it empty (one per
   * worker and description), and how many of those finishes returned the shared batch (the last
   * reference, or the barrier's deliverer). */
  readonly emptyFinishes?: { readonly finished: number; readonly received: number; readonly skips: number };
}

/** What a run on real storage adds: where it wrote, the wall-clock latency, the spec's verdict. */
export interface RealFigures {
  /** The fresh shard this run wrote (its consensus key), and its blob sub-directory (file blob). */
  readonly shardId: string;
  readonly blobDir?: string;
  /** Wall-clock ms of compare-and-append (every hand collected → its answer), nearest rank over appends. */
  readonly appendP50Ms: number;
  readonly appendP99Ms: number;
  readonly appendSamples: number;
  /** Wall-clock ms of the whole run. */
  readonly wallMs: number;
  /** Trace events the linearization moved into the shard's order. */
  readonly moved: number;
  /** Every always/eventually property of spec/ held on the run's final view. */
  readonly propertiesHold: boolean;
  readonly propertyFailures: readonly string[];
  /** Storage failures the run met and survived (retried). */
  readonly faults: number;
  /** The audit read the stores back through fresh clients (false: in-memory, read as they are). */
  readonly reopened: boolean;
}

/**
 * `steady`: the seed PR's workload. `hydration`: a few huge intervals, each variant at the threshold and
 * unlimited. `small-writes`: intervals whose per-worker data is below persist's inline limit.
 */
export const SCENARIOS = ['steady', 'hydration', 'small-writes'] as const;
export type Scenario = (typeof SCENARIOS)[number];

export interface Comparison {
  readonly scenario: Scenario;
  readonly setup: Setup;
  readonly variants: readonly Variant[];
  readonly rows: readonly Figures[];
  /** Production mode: the stores (password redacted). Absent: in memory, in virtual time. */
  readonly backends?: { readonly consensus: string; readonly blob: string };
}

/** The sweep parameters every setup has; a registered variant's options add theirs (by flag name:
 * explore/sweep-params.ts). */
export const SWEEP_PARAMS = ['threshold', 'workers', 'processes', 'replicas', 'intervals', 'rows', 'row-bytes', 'stragglers'] as const;
export type FixedSweepParam = (typeof SWEEP_PARAMS)[number];
/** A sweep parameter: a fixed one, or a variant's option by its flag's name (`barrier-timeout` for
 * `--barrier-timeout`), which sweeps that option of that variant. */
export type SweepParam = FixedSweepParam | (string & {});

export interface SweepSpec {
  readonly param: SweepParam;
  readonly values: readonly number[];
}

export interface SweepResult {
  readonly param: SweepParam;
  /** The setup every point starts from (the swept parameter then takes each value). */
  readonly base: Setup;
  readonly scenario: Scenario;
  readonly points: readonly { readonly value: number; readonly comparison: Comparison }[];
}

