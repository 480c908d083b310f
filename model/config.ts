/**
 * Model configuration: the system's shape, the workload and the knobs the explorer may pick.
 *
 * Source: vocab/PROTOCOL.md ("The system"), Materialize PRs #37591 (best-effort) and #37617 (barrier).
 * The workload is data (`updates`), so the model never draws random numbers; the `shared_batch_max_bytes`
 * knob is a *choice* made at each mint (`maxBytesChoices`), so it may change between intervals.
 */
import type { NoDataPolicy, PersistConfig, Time, UpdateId, Variant, VariantMeta, VariantOptionValues } from '../vocab/index.ts';
import { NO_DATA_POLICIES } from '../vocab/index.ts';
import { MODEL_VARIANT_NAMES, modelVariant, policyOf } from './variants/index.ts';

/** One update of the desired collection (the same on every replica). */
export interface Update {
  readonly id: UpdateId;
  readonly time: Time;
  /** The worker (index within its replica) that holds the update. */
  readonly worker: number;
  /** Payload bytes (impl: `encodedUpdateSize`); every threshold and inline decision sums these. */
  readonly size: number;
}

/** Switches for the bugs the model itself can exhibit (the others live in impl/ only). */
export interface ModelBugs {
  /** The review bug of #37591: the sweep's temporary strong reference (weak.upgrade()). */
  readonly sweepUpgradeRace?: boolean;
  /** The append takes its own indeterminate compare-and-set for an upper mismatch and deletes the
   * batches the shard now references (gallery: indeterminate-cas-deletes-batches). */
  readonly indeterminateAsMismatch?: boolean;
}

/**
 * The fault world (vocab/PROTOCOL.md "Faults"): replicas aborted and restarted, compare-and-sets of the
 * append that apply but answer with an error, leaked-blob cleanup. Absent: none of these events is
 * enabled. The bounds limit what exploration generates per run; replay accepts as many as a trace has
 * when they are large enough (conformance passes `Infinity`-like bounds).
 */
export interface ModelFaults {
  /** Aborts (teardown or crash) of replica incarnations, over the whole run. */
  readonly aborts: number;
  /** Appends whose compare-and-set applies but answers with an error. */
  readonly indeterminate: number;
  /** Leaked-blob cleanup after every restart and once at the end (impl RunConfig.cleanup). */
  readonly cleanup: boolean;
}

/**
 * The dynamic configuration as the workload sets it, so that the model computes what a mint reads
 * rather than taking it from the trace: `maxBytesByLower[lower]` and `barrierByDesired[desired]` (the
 * replica's desired frontier when the flag is read; the last value holds beyond each list).
 */
export interface ModelKnobs {
  readonly maxBytesByLower: readonly number[];
  readonly barrierByDesired: readonly boolean[];
}

export interface ModelConfig {
  /** A registered variant (model/variants/). */
  readonly variant: Variant;
  /** The variant's options (vocab VariantOptionSpec; absent: each option's default). */
  readonly variantOptions?: VariantOptionValues;
  readonly replicas: number;
  readonly processes: number;
  readonly workersPerProcess: number;
  /** K: updates have `time ∈ [asOf, K)`; the desired frontier advances one tick per frontier event up to K. */
  readonly intervals: number;
  /** The sinks' as-of (default 0): every replica starts there; above the shard's upper (0) the first
   * append bumps the shard. */
  readonly asOf?: number;
  readonly updates: readonly Update[];
  readonly persist: PersistConfig;
  /** Knob values the explorer may pick at a mint (without `knobs`); with `knobs` these are ignored. */
  readonly maxBytesChoices: readonly number[];
  /** Barrier flag values the explorer may pick at a mint (without `knobs`; default: the variant's,
   * ModelPolicy `barrierByDefault`). Ignored when the variant does not share. */
  readonly barrierChoices?: readonly boolean[];
  /** The knobs as the workload sets them: each mint's values are computed from these (replay). */
  readonly knobs?: ModelKnobs;
  /** A shared worker pushes its staged updates in chunks of exactly this many (the last one the rest);
   * absent: any chunking in staged order (exploration pushes everything at once). */
  readonly pushChunkUpdates?: number;
  /** What a worker with no data does while its description is shared: `skip` (nothing, a skip under the
   * barrier) or `finish` (it opens a handle and finishes it without pushing, route `empty`). Default:
   * vocab `defaultNoData(variant)` — `finish` for the barrier variant, `skip` otherwise. */
  readonly noData?: NoDataPolicy;
  readonly bugs?: ModelBugs;
  readonly faults?: ModelFaults;
  /**
   * Several MV sinks share each process's registry (vocab/PROTOCOL.md "Several MV sinks"; conformance
   * sets it only for runs with more than one sink, replaying one sink's events on its own model). The size
   * that triggers a sweep then counts other sinks' entries, so this sink's builder() call may sweep or not
   * (which is right is the process-level checker's, conformance/registry-check.ts), and a sweep another
   * sink's worker ran (no `worker`) is an environment step here. What a sweep removes stays predicted:
   * exactly this sink's dead entries. `sbkit model --check` never sets it.
   */
  readonly sharedRegistry?: boolean;
}

/** A configuration field that is missing or out of range; `field` names it (e.g. `updates[2].time`). */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(
    readonly field: string,
    readonly problem: string,
  ) {
    super(`invalid model config: ${field} ${problem}`);
  }
}

const isNat = (n: unknown): n is number => typeof n === 'number' && Number.isInteger(n) && n >= 0;
const isPos = (n: unknown): n is number => isNat(n) && n > 0;

/** Throws a ConfigError naming the first bad field; returns the config unchanged when it is valid. */
export function validateConfig(cfg: ModelConfig): ModelConfig {
  validateVariant(cfg);
  for (const field of ['replicas', 'processes', 'workersPerProcess', 'intervals'] as const) {
    if (!isPos(cfg[field])) throw new ConfigError(field, 'must be a positive integer');
  }
  const workers = workersPerReplica(cfg);
  const asOf = cfg.asOf ?? 0;
  if (!isNat(asOf) || (asOf > 0 && asOf >= cfg.intervals)) throw new ConfigError('asOf', `must be an integer in [0, ${cfg.intervals})`);
  const seen = new Set<number>();
  cfg.updates.forEach((u, i) => {
    if (!isNat(u.id)) throw new ConfigError(`updates[${i}].id`, 'must be a non-negative integer');
    if (seen.has(u.id)) throw new ConfigError(`updates[${i}].id`, `duplicates id ${u.id}`);
    seen.add(u.id);
    if (!isNat(u.time) || u.time < asOf || u.time >= cfg.intervals) {
      throw new ConfigError(`updates[${i}].time`, `must be an integer in [${asOf}, ${cfg.intervals})`);
    }
    if (!isNat(u.worker) || u.worker >= workers) {
      throw new ConfigError(`updates[${i}].worker`, `must be an integer in [0, ${workers})`);
    }
    if (!isPos(u.size)) throw new ConfigError(`updates[${i}].size`, 'must be a positive integer');
  });
  if (!isPos(cfg.persist.blobTargetSize)) throw new ConfigError('persist.blobTargetSize', 'must be a positive integer');
  if (!isNat(cfg.persist.inlineSingleMaxBytes)) {
    throw new ConfigError('persist.inlineSingleMaxBytes', 'must be a non-negative integer');
  }
  if (!isPos(cfg.persist.inlineTotalMaxBytes)) {
    throw new ConfigError('persist.inlineTotalMaxBytes', 'must be a positive integer');
  }
  if (cfg.maxBytesChoices.length === 0) throw new ConfigError('maxBytesChoices', 'must not be empty');
  cfg.maxBytesChoices.forEach((m, i) => {
    if (!isNat(m)) throw new ConfigError(`maxBytesChoices[${i}]`, 'must be a non-negative integer');
  });
  if (cfg.knobs !== undefined) {
    if (cfg.knobs.maxBytesByLower.length === 0) throw new ConfigError('knobs.maxBytesByLower', 'must not be empty');
    cfg.knobs.maxBytesByLower.forEach((m, i) => {
      if (!isNat(m)) throw new ConfigError(`knobs.maxBytesByLower[${i}]`, 'must be a non-negative integer');
    });
    if (cfg.knobs.barrierByDesired.length === 0) throw new ConfigError('knobs.barrierByDesired', 'must not be empty');
    cfg.knobs.barrierByDesired.forEach((b, i) => {
      if (typeof b !== 'boolean') throw new ConfigError(`knobs.barrierByDesired[${i}]`, 'must be a boolean');
    });
  }
  if (cfg.barrierChoices !== undefined && (cfg.barrierChoices.length === 0 || cfg.barrierChoices.some((b) => typeof b !== 'boolean'))) {
    throw new ConfigError('barrierChoices', 'must be a non-empty list of booleans');
  }
  if (cfg.pushChunkUpdates !== undefined && !isPos(cfg.pushChunkUpdates)) {
    throw new ConfigError('pushChunkUpdates', 'must be a positive integer');
  }
  if (cfg.noData !== undefined && !NO_DATA_POLICIES.includes(cfg.noData)) {
    throw new ConfigError('noData', `must be one of ${NO_DATA_POLICIES.join(', ')}`);
  }
  if (cfg.sharedRegistry !== undefined && typeof cfg.sharedRegistry !== 'boolean') throw new ConfigError('sharedRegistry', 'must be a boolean');
  if (cfg.faults !== undefined) {
    for (const field of ['aborts', 'indeterminate'] as const) {
      const n = cfg.faults[field];
      if (!(isNat(n) || n === Number.POSITIVE_INFINITY)) throw new ConfigError(`faults.${field}`, 'must be a non-negative integer (or Infinity)');
    }
  }
  return cfg;
}

/** The variant is registered and every option it is given is one it takes, with a value in range. */
function validateVariant(cfg: ModelConfig): void {
  const v = modelVariant(cfg.variant);
  if (v === undefined) throw new ConfigError('variant', `must be one of ${MODEL_VARIANT_NAMES.join(', ')}`);
  validateVariantOptions(v.meta, cfg.variantOptions);
}

/** Throws a ConfigError naming `variantOptions.<option>` for an option `meta` does not take or a value
 * out of its range (vocab VariantOptionSpec); absent options take their defaults. */
export function validateVariantOptions(meta: VariantMeta, given: unknown): void {
  if (given === undefined) return;
  if (typeof given !== 'object' || given === null || Array.isArray(given)) throw new ConfigError('variantOptions', 'must be an object');
  for (const [key, value] of Object.entries(given)) {
    const spec = meta.options.find((o) => o.name === key);
    if (spec === undefined) throw new ConfigError(`variantOptions.${key}`, `is no option of variant ${meta.name}`);
    const inRange = typeof value === 'number' && value >= 0 && (Number.isFinite(value) || (spec.inf && value === Number.POSITIVE_INFINITY));
    if (value !== undefined && !inRange) throw new ConfigError(`variantOptions.${key}`, `must be a duration in ms ≥ 0${spec.inf ? ' or Infinity' : ''}`);
  }
}

/** P·W: the workers of one replica. */
export const workersPerReplica = (cfg: ModelConfig): number => cfg.processes * cfg.workersPerProcess;

/** The process a worker lives in: ⌊w / W⌋. */
export const processOf = (cfg: ModelConfig, worker: number): number => Math.floor(worker / cfg.workersPerProcess);

/** Index of update sizes by id (the model's only lookup into the workload while building parts). */
export function sizeIndex(cfg: ModelConfig): ReadonlyMap<UpdateId, number> {
  return new Map(cfg.updates.map((u) => [u.id, u.size]));
}

/** The value of a knob list at `index`: the last value holds beyond the list. */
export function knobValue<T>(list: readonly T[], index: number): T {
  return list[Math.min(index, list.length - 1)] as T;
}

/** What a mint reads: from the workload's knobs, or (exploring) the choices. */
export function mintChoices(cfg: ModelConfig): { maxBytes: readonly number[]; barrier: readonly boolean[] } {
  const policy = policyOf(cfg);
  return {
    maxBytes: [...new Set(cfg.maxBytesChoices)],
    barrier: policy.sharing ? [...new Set(cfg.barrierChoices ?? [policy.barrierByDefault])] : [false],
  };
}
