/**
 * Cost as part of the contract: one property per counter of model/cost.ts, comparing what the run's
 * in-memory stores counted (and impl's metrics, and the scheduler's log of points) with what the model
 * predicts from the trace it accepted. An implementation that does the right thing with more I/O — an
 * extra read, a write twice, a wake-up more — fails `cost-<counter>`, naming the counter, the predicted
 * value or bound (and why it is a bound), and the actual.
 *
 * The actuals:
 * - blob PUTs, their bytes, GETs, deletes, listings; consensus head reads, scans, compare-and-sets: the
 *   stores' own counts (every call that reached them: the client cannot hide one);
 * - compare-and-sets attempted on the shards and on the registries: impl's metrics (consensusCommands,
 *   writerRegistrations), which metrics-check.ts holds to the store;
 * - state-diff bytes: the bytes of every version of every sink's shard in consensus;
 * - the part rewrites compaction of own batches' runs costs: impl's metric compactionRewrites (counted
 *   from the builders' merges, not performed as blob I/O: no store sees them);
 * - polls: the trace's poll events; points: the scheduler log's resumed points, by label.
 * What the schedule decided that no event shows (lost races, lost bumps) is read from the store and the
 * metrics, and held to the model's bound on it by a property of its own (`cost-lost-races`, ...). And a
 * poll whose read found the shard inside its description's window must supersede it (`cost-poll-answered`,
 * poll-answered.ts): a bound on the polls cannot tell a read that decided from one whose answer went unused.
 */
import type { TraceEvent } from '../vocab/index.ts';
import type { Metrics } from '../impl/metrics.ts';
import { COST_COUNTERS, COST_MEANING, predictCost, type CostBound, type CostCounter, type CostPrediction } from '../model/cost.ts';
import type { Update } from '../impl/update.ts';
import type { ModelConfig } from '../model/config.ts';
import type { ResumeRecord } from './choice-scheduler.ts';
import type { StoreTally } from './metrics-check.ts';
import { materializeSinks, type Workload } from './workload.ts';
import { modelConfigsOf } from './run-setup.ts';
import { unansweredPolls } from './poll-answered.ts';

/** Which scheduling points each points counter counts. */
const POINT_LABELS: Readonly<Partial<Record<CostCounter, readonly string[]>>> = {
  'points.mint.poll': ['mint.poll'],
  'points.builder.recv': ['builder.recv'],
  'points.registry-lock': ['shared.open', 'barrier.skip'],
  'points.barrier.wake': ['barrier.wake'],
};

/** What the run did, counter by counter. */
export function actualCost(trace: readonly TraceEvent[], m: Metrics, store: StoreTally, log: readonly ResumeRecord[]): Record<CostCounter, number> {
  const points = new Map<string, number>();
  for (const r of log) points.set(r.site.label, (points.get(r.site.label) ?? 0) + 1);
  const { blob, consensus } = store;
  const actual: Record<string, number> = {
    'blob.puts': blob.sets,
    'blob.putBytes': blob.setBytes,
    'blob.gets': blob.gets,
    'blob.deletes': blob.deletes,
    'blob.lists': blob.lists,
    'consensus.heads': consensus.heads,
    'consensus.scans': consensus.scans,
    'consensus.cas': consensus.cas,
    'shard.cas': m.consensusCommands,
    'registry.cas': m.writerRegistrations,
    'state.bytes': store.shardBytes,
    'mint.polls': trace.filter((e) => e.kind === 'poll').length,
    'compaction.rewrites': m.compactionRewrites,
  };
  for (const [counter, labels] of Object.entries(POINT_LABELS)) actual[counter] = labels.reduce((n, l) => n + (points.get(l) ?? 0), 0);
  return actual as Record<CostCounter, number>;
}

/** The model's prediction for a settled run of `workload`, given the schedule's outcomes. `sinks`: the
 * run's model configurations by sink, when the caller has them (run-setup.ts modelConfigsOf). */
export function predictedCost(workload: Workload, updates: readonly Update[], trace: readonly TraceEvent[], m: Metrics, store: StoreTally, faults: boolean, sinks: readonly ModelConfig[] = modelConfigsOf(workload, materializeSinks(workload, updates), faults)): CostPrediction {
  const appendEvents = trace.filter((e) => e.kind === 'append').length;
  const bumps = trace.filter((e) => e.kind === 'bump').length;
  return predictCost({ sinks, cleanup: faults }, trace, {
    shardCasLost: m.consensusCasFailed,
    storeCasLost: store.consensus.casFailures,
    bumpsLost: Math.max(0, Math.floor((m.appendAttempts - appendEvents - 2 * bumps) / 2)),
  });
}

export interface CostVerdict {
  /** Check name → why it failed. */
  readonly failed: readonly { readonly check: string; readonly why: string }[];
  readonly prediction: CostPrediction;
  readonly actual: Readonly<Record<CostCounter, number>>;
}

/** Every cost property of a settled run: the counters, then the schedule's outcomes. */
export function costJudged(workload: Workload, updates: readonly Update[], trace: readonly TraceEvent[], m: Metrics, store: StoreTally, log: readonly ResumeRecord[], faults: boolean, sinks?: readonly ModelConfig[]): CostVerdict {
  const prediction = predictedCost(workload, updates, trace, m, store, faults, sinks);
  const actual = actualCost(trace, m, store, log);
  const failed: { check: string; why: string }[] = [];
  const appendEvents = trace.filter((e) => e.kind === 'append').length;
  const bumps = trace.filter((e) => e.kind === 'bump').length;
  const outcomes: Record<keyof CostPrediction['outcomes'], { value: number; meaning: string }> = {
    shardCasLost: { value: m.consensusCasFailed, meaning: "compare-and-sets on the shards' state that lost their race (metrics consensusCasFailed)" },
    registryCasLost: { value: store.consensus.casFailures - m.consensusCasFailed, meaning: "compare-and-sets the consensus store saw lose, other than the shards' lost races" },
    bumpsLost: { value: (m.appendAttempts - appendEvents - 2 * bumps) / 2, meaning: 'bumps that lost their race (append attempts beyond the append events and two per bump, halved)' },
  };
  for (const [name, o] of Object.entries(outcomes) as [keyof CostPrediction['outcomes'], { value: number; meaning: string }][]) {
    const why = outside(o.value, prediction.outcomes[name]);
    if (why !== undefined && !(faults && name === 'bumpsLost')) failed.push({ check: `cost-${name}`, why: `${name} (${o.meaning}): ${why}` });
  }
  for (const c of COST_COUNTERS) {
    const why = outside(actual[c], prediction.counters[c]);
    if (why !== undefined) failed.push({ check: `cost-${c}`, why: `${c} (${COST_MEANING[c]}): ${why}` });
  }
  // A poll's read the mint did not act on (poll-answered.ts): a read the counters' bounds let through.
  if (!faults) for (const why of unansweredPolls(trace)) failed.push({ check: 'cost-poll-answered', why });
  return { failed, prediction, actual };
}

/** Undefined when `value` is within `b`; else what the model predicted and what happened. */
function outside(value: number, b: CostBound): string | undefined {
  if (value >= b.min && value <= b.max) return undefined;
  const predicted = b.min === b.max ? `the model predicts exactly ${b.min}` : `the model predicts between ${b.min} and ${b.max} (a bound: ${b.why.join('; ')})`;
  return `${predicted}, the run counted ${value}`;
}
