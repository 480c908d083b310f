/**
 * Bad input, as a property of every run: "bad input gets a clear, typed error naming what was wrong,
 * never a hang or silent data loss". Each run also hands the implementation's validation
 * (`resolveRunConfig`, what `runSink` calls before it starts anything) its own run configuration with
 * one field corrupted, and requires an `SbkitError` whose message names that field. Which corruption a
 * run tries follows from its workload alone (deterministic, replayable); over the default budget every
 * one is tried many times.
 *
 * Validation is synchronous and runs before any task exists, so a configuration it lets through is
 * reported as such (never started: nothing here can hang).
 */
import { SbkitError } from '../impl/errors.ts';
import { runSink } from '../impl/run.ts';
import { ChoiceScheduler } from './choice-scheduler.ts';
import { resolveRunConfig, type RunConfig } from '../impl/run-config.ts';
import type { Update } from '../impl/update.ts';
import { MAX_ABS_DIFF } from '../impl/update.ts';
import { DEFAULT_BLOB_TARGET, DEFAULT_INLINE_TOTAL, INLINE_SINGLE_MAX } from './workload.ts';
import { VARIANTS, sharesAtAll, variantMeta } from '../impl/variants/index.ts';
import type { Variant, VariantMeta } from '../vocab/index.ts';

const FIRST_SHARING = VARIANTS.find(sharesAtAll) as string;

export interface Corruption {
  /** What the error message must name. */
  readonly names: string;
  /** Read only while the run goes (a knob function's value, read at mint): the run itself must end
   * with the typed error, under a scheduler that bounds it (it never hangs the check). */
  readonly atRun?: true;
  readonly describe: string;
  readonly corrupt: (c: RunConfig) => RunConfig;
}

/** A config whose first update is replaced (a run with no update gets one first). */
const withUpdate = (c: RunConfig, change: (u: Update) => unknown): RunConfig => {
  const first: Update = c.updates[0] ?? { id: 0, key: 'k', value: new Uint8Array(1), diff: 1, time: c.asOf ?? 0 };
  return { ...c, updates: [change(first) as Update, ...c.updates.slice(1)] };
};

const cast = <T>(v: unknown): T => v as T;

export const CORRUPTIONS: readonly Corruption[] = [
  { names: 'variant', describe: 'variant "fast"', corrupt: (c) => ({ ...c, variant: cast('fast') }) },
  { names: 'replicas', describe: 'replicas 0', corrupt: (c) => ({ ...c, replicas: 0 }) },
  { names: 'processes', describe: 'processes 1.5', corrupt: (c) => ({ ...c, processes: 1.5 }) },
  { names: 'workersPerProcess', describe: 'workersPerProcess -1', corrupt: (c) => ({ ...c, workersPerProcess: -1 }) },
  { names: 'intervals', describe: 'intervals NaN', corrupt: (c) => ({ ...c, intervals: Number.NaN }) },
  { names: 'asOf', describe: 'asOf = intervals', corrupt: (c) => ({ ...c, asOf: Math.max(1, c.intervals) }) },
  { names: 'asOf', describe: 'asOf -1', corrupt: (c) => ({ ...c, asOf: -1 }) },
  { names: 'maxBytes', describe: 'maxBytes -1', corrupt: (c) => ({ ...c, maxBytes: -1 }) },
  { names: 'maxBytes', describe: 'maxBytes "1MiB"', corrupt: (c) => ({ ...c, maxBytes: cast('1MiB') }) },
  { names: 'barrier', describe: 'barrier "yes"', corrupt: (c) => ({ ...c, barrier: cast('yes') }) },
  { names: 'pushChunkUpdates', describe: 'pushChunkUpdates 0', corrupt: (c) => ({ ...c, pushChunkUpdates: 0 }) },
  { names: 'pacing', describe: 'pacing "fast"', corrupt: (c) => ({ ...c, pacing: cast('fast') }) },
  { names: 'noData', describe: 'noData "maybe"', corrupt: (c) => ({ ...c, noData: cast('maybe') }) },
  { names: 'sink', describe: 'sink "v3"', corrupt: (c) => ({ ...c, sink: cast('v3') }) },
  { names: 'maxRestarts', describe: 'maxRestarts -1', corrupt: (c) => ({ ...c, maxRestarts: -1 }) },
  { names: 'shardId', describe: 'shardId "a b"', corrupt: (c) => ({ ...c, shardId: 'a b' }) },
  { names: 'persist.blobTargetSize', describe: 'persist.blobTargetSize 0', corrupt: (c) => ({ ...c, persist: { ...c.persist, blobTargetSize: 0 } }) },
  { names: 'persist.inlineSingleMaxBytes', describe: 'persist.inlineSingleMaxBytes -1', corrupt: (c) => ({ ...c, persist: { ...c.persist, inlineSingleMaxBytes: -1 } }) },
  { names: 'persist.inlineTotalMaxBytes', describe: 'persist.inlineTotalMaxBytes 0.5', corrupt: (c) => ({ ...c, persist: { ...c.persist, inlineTotalMaxBytes: 0.5 } }) },
  { names: 'persist.maxRuns', describe: 'persist.maxRuns -1', corrupt: (c) => ({ ...c, persist: { ...c.persist, maxRuns: -1 } }) },
  { names: 'updates', describe: 'updates not an array', corrupt: (c) => ({ ...c, updates: cast({}) }) },
  { names: 'updates[0]', describe: 'updates[0] null', corrupt: (c) => withUpdate(c, () => null) },
  { names: 'updates[0].id', describe: 'updates[0].id -1', corrupt: (c) => withUpdate(c, (u) => ({ ...u, id: -1 })) },
  {
    names: 'appears twice',
    describe: 'an update id twice',
    corrupt: (c) => {
      const w = withUpdate(c, (u) => u);
      return { ...w, updates: [...w.updates, w.updates[0] as Update] };
    },
  },
  { names: 'key', describe: 'an update key 7', corrupt: (c) => withUpdate(c, (u) => ({ ...u, key: 7 })) },
  { names: 'lone surrogate', describe: 'an update key with a lone surrogate', corrupt: (c) => withUpdate(c, (u) => ({ ...u, key: 'a\uD800' })) },
  { names: 'value', describe: 'an update value "x"', corrupt: (c) => withUpdate(c, (u) => ({ ...u, value: 'x' })) },
  { names: 'diff', describe: 'an update diff 0.5', corrupt: (c) => withUpdate(c, (u) => ({ ...u, diff: 0.5 })) },
  { names: 'diff', describe: 'an update diff beyond ±(2^52 − 1)', corrupt: (c) => withUpdate(c, (u) => ({ ...u, diff: MAX_ABS_DIFF + 1 })) },
  { names: 'time', describe: 'an update time = intervals', corrupt: (c) => withUpdate(c, (u) => ({ ...u, time: c.intervals })) },
  { names: 'time', describe: 'an update time below the as-of', corrupt: (c) => withUpdate({ ...c, asOf: Math.min(1, c.intervals - 1) }, (u) => ({ ...u, time: Math.min(1, c.intervals - 1) - 1 })) },
  { names: 'sinks', describe: 'sinks 0', corrupt: (c) => ({ ...c, sinks: 0 }) },
  { names: 'sinks', describe: 'sinks 5 (more than 4)', corrupt: (c) => ({ ...c, sinks: 5 }) },
  { names: 'sinkUpdates', describe: 'sinkUpdates for one sink fewer than sinks', corrupt: (c) => ({ ...c, sinks: (c.sinks ?? 1) + 1, sinkUpdates: c.sinkUpdates ?? [] }) },
  { names: 'maxBytes', describe: 'a maxBytes function returning -1', atRun: true, corrupt: (c) => ({ ...c, maxBytes: () => -1 }) },
  // (a variant that does not share never reads the flag: the corruption runs its workload as the first
  // registered variant that shares)
  { names: 'barrier flag', describe: 'a barrier function returning "yes"', atRun: true, corrupt: (c) => ({ ...c, variant: sharesAtAll(c.variant) ? c.variant : FIRST_SHARING, sink: 'v2', barrier: () => cast('yes') }) },
];

/** Every option of a variant (vocab VariantOptionSpec), given a negative value: refused naming
 * `variantOptions.<option>`. None for a variant without options. */
export function optionCorruptions(meta: VariantMeta): Corruption[] {
  return meta.options.map((o) => ({
    names: `variantOptions.${o.name}`,
    describe: `${o.flag} -1`,
    corrupt: (c) => ({ ...c, variantOptions: { ...c.variantOptions, [o.name]: -1 } }),
  }));
}

/** The corruptions a run of `variant` may try: the common ones, then its options'. */
export const corruptionsFor = (variant: Variant): readonly Corruption[] => {
  const own = optionCorruptions(variantMeta(variant));
  return own.length === 0 ? CORRUPTIONS : [...CORRUPTIONS, ...own];
};

/** The corruption a run tries: from its shape and data, so the same workload tries the same one. */
export function corruptionFor(c: RunConfig): Corruption {
  let k = 2166136261; // FNV-1a over the shape, so every corruption comes up across a budget's workloads
  const data = c.updates.reduce((n, u) => n + u.time * 31 + u.value.length, 0);
  // The persist tunables and policies too: small workloads (swarm.ts) share their shape and data often.
  const p = c.persist;
  const policies = (c.noData === 'finish' ? 1 : 0) + (c.pacing === 'free' ? 2 : 0);
  for (const x of [c.updates.length, data, c.intervals, c.replicas, c.workersPerProcess, c.processes, c.asOf ?? 0, c.pushChunkUpdates ?? 0, p?.blobTargetSize ?? DEFAULT_BLOB_TARGET, p?.inlineSingleMaxBytes ?? INLINE_SINGLE_MAX, p?.inlineTotalMaxBytes ?? DEFAULT_INLINE_TOTAL, policies]) {
    k = Math.imul(k ^ x, 16777619) >>> 0;
  }
  const all = corruptionsFor(c.variant);
  return all[k % all.length] as Corruption;
}

/** Undefined when the corrupted config is refused as it must be; else why it was not. */
export async function badInputRefused(c: RunConfig, corruption: Corruption = corruptionFor(c)): Promise<string | undefined> {
  const bad = corruption.corrupt(c);
  if (corruption.atRun === true) {
    // A fresh, quiet run of the corrupted config under a choice scheduler (its step limit and deadlock
    // detection bound it); the config's own scheduler, observer, faults and stores belong to the real run
    // (on the real run's stores the shard would already be at its end, and nothing would read the knob).
    const { scheduler: _s, observer: _o, faults: _f, blob: _b, consensus: _c, ...rest } = bad;
    const scheduler = new ChoiceScheduler([]);
    // (no stacks while it runs: see below; this run is the only code running until it ends)
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    let outcome;
    try {
      outcome = await scheduler.drive(runSink({ ...rest, scheduler }));
    } finally {
      Error.stackTraceLimit = limit;
    }
    if (outcome.kind !== 'threw') return `${corruption.describe}: the run ended ${outcome.kind}, not with a typed error`;
    return judgeError(corruption, outcome.error);
  }
  // The refusal is judged by its type and message, never its stack: capturing one (an error's stack
  // reaches through fast-check's async runner) cost ~3% of a run. Validation is synchronous, so the
  // limit is back before anything else runs.
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    resolveRunConfig(bad);
  } catch (e) {
    return judgeError(corruption, e);
  } finally {
    Error.stackTraceLimit = limit;
  }
  return `${corruption.describe}: accepted — the run would have started on it`;
}

function judgeError(corruption: Corruption, e: unknown): string | undefined {
  if (!(e instanceof SbkitError)) return `${corruption.describe}: threw ${e instanceof Error ? e.name : typeof e}, not a typed SbkitError (${String(e)})`;
  if (!e.message.includes(corruption.names)) return `${corruption.describe}: refused (${e.code}) but the message does not name ${corruption.names}: "${e.message}"`;
  return undefined;
}
