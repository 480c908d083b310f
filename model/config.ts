/**
 * Model configuration: the system's shape, the workload and the knobs the explorer may pick.
 *
 * Source: vocab/PROTOCOL.md ("The system"), Materialize PRs #37591 (best-effort) and #37617 (barrier).
 * The workload is data (`updates`), so the model never draws random numbers; the `shared_batch_max_bytes`
 * knob is a *choice* made at each mint (`maxBytesChoices`), so it may change between intervals.
 */
import type { PersistConfig, Time, UpdateId, Variant } from '../vocab/index.ts';
import { VARIANTS } from '../vocab/index.ts';

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

export interface ModelConfig {
  readonly variant: Variant;
  readonly replicas: number;
  readonly processes: number;
  readonly workersPerProcess: number;
  /** K: updates have `time ∈ [0, K)`; the desired frontier advances one tick per frontier event up to K. */
  readonly intervals: number;
  readonly updates: readonly Update[];
  readonly persist: PersistConfig;
  /** Knob values the explorer may pick at a mint. Replay takes the mint event's value instead. */
  readonly maxBytesChoices: readonly number[];
  /**
   * Exploration only: a shared worker pushes at most this many staged updates per push (default: all of
   * them in one push). Replay accepts any chunking either way; the SPIN core configuration pushes one
   * part per step, like the Promela model.
   */
  readonly pushChunk?: number;
  readonly bugs?: ModelBugs;
  readonly faults?: ModelFaults;
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
  if (!VARIANTS.includes(cfg.variant)) throw new ConfigError('variant', `must be one of ${VARIANTS.join(', ')}`);
  for (const field of ['replicas', 'processes', 'workersPerProcess', 'intervals'] as const) {
    if (!isPos(cfg[field])) throw new ConfigError(field, 'must be a positive integer');
  }
  const workers = workersPerReplica(cfg);
  const seen = new Set<number>();
  cfg.updates.forEach((u, i) => {
    if (!isNat(u.id)) throw new ConfigError(`updates[${i}].id`, 'must be a non-negative integer');
    if (seen.has(u.id)) throw new ConfigError(`updates[${i}].id`, `duplicates id ${u.id}`);
    seen.add(u.id);
    if (!isNat(u.time) || u.time >= cfg.intervals) {
      throw new ConfigError(`updates[${i}].time`, `must be an integer in [0, ${cfg.intervals})`);
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
  if (cfg.pushChunk !== undefined && !isPos(cfg.pushChunk)) throw new ConfigError('pushChunk', 'must be a positive integer');
  if (cfg.faults !== undefined) {
    for (const field of ['aborts', 'indeterminate'] as const) {
      const n = cfg.faults[field];
      if (!(isNat(n) || n === Number.POSITIVE_INFINITY)) throw new ConfigError(`faults.${field}`, 'must be a non-negative integer (or Infinity)');
    }
  }
  return cfg;
}

/** P·W: the workers of one replica. */
export const workersPerReplica = (cfg: ModelConfig): number => cfg.processes * cfg.workersPerProcess;

/** The process a worker lives in: ⌊w / W⌋. */
export const processOf = (cfg: ModelConfig, worker: number): number => Math.floor(worker / cfg.workersPerProcess);

/** Index of update sizes by id (the model's only lookup into the workload while building parts). */
export function sizeIndex(cfg: ModelConfig): ReadonlyMap<UpdateId, number> {
  return new Map(cfg.updates.map((u) => [u.id, u.size]));
}
