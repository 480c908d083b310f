/**
 * Runs the real implementation (impl/run.ts) under the seeded timing model, replays its trace on the
 * model (model-agreement.ts) and condenses metrics, audit and the model's verdict into the figures
 * `sbkit compare` prints. The only file in explore/ that calls `runSink`.
 */
import type { TraceEvent } from '../vocab/index.ts';
import { runSink, type RunResult } from '../impl/run.ts';
import { encodedUpdateSize, type Update } from '../impl/update.ts';
import type { Update as ModelUpdate } from '../model/config.ts';
import { modelAgreement } from './model-agreement.ts';
import { LatencyRecorder } from './latency.ts';
import { TimelineRecorder } from './timeline.ts';
import { VirtualTimeScheduler, seededTiming, timingOf } from './timing.ts';
import type { Case, Figures, Setup } from './types.ts';
import { generateUpdates } from './workload.ts';
import { seededFaults } from './faults.ts';
import { variantOptionsOf } from './variant-options.ts';
import { noDataOf, showsEmptyFinishes } from './cases.ts';

/** A workload with the per-update sizes the figures need. Generated once, shared by every case. */
export interface PreparedWorkload {
  readonly updates: readonly Update[];
  /** sizes[id] = encodedUpdateSize of update `id`. */
  readonly sizes: Float64Array;
  readonly totalBytes: number;
  /** The updates as the model sees them, by workers per replica (model-agreement.ts fills it on first use). */
  readonly modelUpdates: Map<number, readonly ModelUpdate[]>;
}

export function prepareWorkload(setup: Setup): PreparedWorkload {
  const updates = generateUpdates({ intervals: setup.intervals, rows: setup.rows, rowBytes: setup.rowBytes, seed: setup.seed });
  const sizes = new Float64Array(updates.length);
  let totalBytes = 0;
  for (const u of updates) {
    const s = encodedUpdateSize(u);
    sizes[u.id] = s;
    totalBytes += s;
  }
  return { updates, sizes, totalBytes, modelUpdates: new Map() };
}

/** The share of a case's progress the run takes; the model's replay of its trace takes the rest. */
const RUN_SHARE = 0.75;

/**
 * Runs the implementation once for `c` on `workload`, then replays its trace on the model.
 * `onProgress(fraction)` follows the shard's upper. Deterministic: the same setup and case give the same figures.
 */
export async function runCase(
  setup: Setup,
  c: Case,
  workload: PreparedWorkload,
  onProgress?: (fraction: number) => void,
  /** Sees every event of the run's trace (a test holds the figures to the model's cost of it). */
  onEvent?: (e: TraceEvent) => void,
): Promise<Figures> {
  const timing = timingOf(setup);
  const noData = noDataOf(setup, c);
  const faults = setup.faults === undefined ? undefined : seededFaults(setup.seed, setup.faults, { replicas: setup.replicas, intervals: setup.intervals, intervalMs: timing.intervalMs });
  const timeline = new TimelineRecorder();
  const seeded = seededTiming(setup.seed, timing);
  // The timeline sees each point's delay as the scheduler will use it (impl/seams.ts: NaN or negative → 0).
  const recorded = {
    delay: (site: Parameters<typeof seeded.delay>[0]): number => {
      const d = seeded.delay(site);
      timeline.site(site, scheduler.now, Number.isFinite(d) && d > 0 ? d : 0);
      return d;
    },
  };
  const scheduler: VirtualTimeScheduler = new VirtualTimeScheduler(recorded, faults?.aborts ?? []);
  const parts = new Map<number, number>();
  const spread = new BuilderSpread(workload.sizes);
  const latency = new LatencyRecorder(() => scheduler.now);
  let lastAppendAt = 0;
  const mintedAt = new Map<number, number>();
  let latencySum = 0;
  let latencyCount = 0;
  const trace: TraceEvent[] = [];
  const empties = new EmptyFinishes();
  const observer = {
    event(e: TraceEvent): void {
      trace.push(e);
      onEvent?.(e);
      spread.event(e);
      empties.event(e);
      latency.event(e);
      timeline.event(e, scheduler.now);
      if (e.kind === 'mint') mintedAt.set(e.replica, scheduler.now);
      if (e.kind === 'append' && e.result.ok && e.batches > 0) parts.set(e.parts.hollow + e.parts.inline, (parts.get(e.parts.hollow + e.parts.inline) ?? 0) + 1);
      if (e.kind === 'append' && e.result.ok) {
        lastAppendAt = scheduler.now;
        latencySum += scheduler.now - (mintedAt.get(e.replica) ?? scheduler.now);
        latencyCount += 1;
        if (e.replica === 0) onProgress?.(RUN_SHARE * Math.min(1, e.upper / Math.max(1, setup.intervals)));
      }
    },
  };
  const run = runSink({
    variant: c.variant,
    ...variantOptionsOf(setup, c.variant),
    replicas: setup.replicas,
    processes: setup.processes,
    workersPerProcess: setup.workers,
    intervals: setup.intervals,
    updates: workload.updates,
    maxBytes: c.threshold,
    bugs: setup.bug === undefined ? [] : [setup.bug],
    ...(noData === undefined ? {} : { noData }),
    scheduler,
    observer,
    ...(faults === undefined ? {} : { faults: faults.plan, cleanup: true }),
  });
  const { metrics: m, audit, leaks } = await scheduler.drive(run);
  const model = await modelAgreement(setup, c, workload, trace);
  onProgress?.(1);
  const total = latency.total;
  const chosen = timeline.result();
  const write = latency.afterLastReady;
  return {
    ...countFigures(c, m, audit),
    simulatedMs: lastAppendAt,
    meanAppendLatencyMs: latencyCount === 0 ? 0 : latencySum / latencyCount,
    latencyP50Ms: total.p50,
    latencyP99Ms: total.p99,
    latencyMaxMs: total.max,
    latencySamples: latency.samples,
    partsHistogram: [...parts].sort((a, b) => a[0] - b[0]),
    ...(chosen === undefined ? {} : { timeline: chosen }),
    writeP50Ms: write.p50,
    writeP99Ms: write.p99,
    writeMaxMs: write.max,
    shardParts: m.partsHollow + m.partsInline,
    maxBuilderShare: spread.maxShare,
    faultsInjected: faults?.plan.injected ?? 0,
    retries: m.retries,
    aborts: m.aborts,
    restarts: m.restarts,
    leakedByAborts: leaks.fromAborted,
    collected: leaks.collected,
    modelAgrees: model.agrees,
    modelDetail: model.detail,
    ...(showsEmptyFinishes(setup) ? { emptyFinishes: { finished: empties.finished, received: empties.received, skips: empties.skips } } : {}),
  };
}

/** Empty finishes (route `empty`: a worker with no data opened and finished a handle), how many returned a
 * batch, and the barrier skips reported (the other way a worker without data reports). */
class EmptyFinishes {
  finished = 0;
  received = 0;
  skips = 0;
  /** replica/worker of the workers whose live description routed empty. */
  private readonly empty = new Set<string>();

  event(e: TraceEvent): void {
    if (e.kind === 'stage') {
      const k = `${e.replica}/${e.worker}`;
      if (e.route === 'empty') this.empty.add(k);
      else this.empty.delete(k);
    } else if (e.kind === 'finish-end' && this.empty.has(`${e.replica}/${e.worker}`)) {
      this.finished += 1;
      if (e.received !== null) this.received += 1;
    } else if (e.kind === 'skip') {
      this.skips += 1;
    }
  }
}

/**
 * Follows handed batches per replica and, at each append, how much of the append the largest batch
 * carried: 1/workers when every worker builds its own, 1 when one builder took everything.
 */
class BuilderSpread {
  maxShare = 0;
  private readonly handed = new Map<number, number[]>();

  constructor(private readonly sizes: Float64Array) {}

  event(e: TraceEvent): void {
    if (e.kind === 'hand') {
      const list = this.handed.get(e.replica) ?? [];
      for (const b of e.batches) list.push(b.updates.reduce((sum, id) => sum + (this.sizes[id] ?? 0), 0));
      this.handed.set(e.replica, list);
    } else if (e.kind === 'append') {
      const list = this.handed.get(e.replica) ?? [];
      const total = list.reduce((a, b) => a + b, 0);
      if (total > 0) this.maxShare = Math.max(this.maxShare, Math.max(...list) / total);
      this.handed.set(e.replica, []);
    }
  }
}

/** What a case's run counted (metrics) and its audit found: the figures every mode reports alike. */
export function countFigures(
  c: Case,
  m: RunResult['metrics'],
  audit: Pick<RunResult['audit'], 'lost' | 'duplicated' | 'leakedBlobs'>,
): Pick<Figures, 'variant' | 'threshold' | 'noData' | 'appends' | 'partsPerAppend' | 'batchesPerAppend' | 'blobPuts' | 'blobBytes' | 'consensusCommands' | 'stateDiffBytes' | 'inlineParts' | 'hollowParts' | 'updatesWritten' | 'updatesAppended' | 'lost' | 'duplicated' | 'leakedBlobs'> {
  return {
    variant: c.variant,
    threshold: c.threshold,
    ...(c.noData === undefined ? {} : { noData: c.noData }),
    appends: m.appends,
    partsPerAppend: m.partsPerAppend,
    batchesPerAppend: m.batchesPerAppend,
    blobPuts: m.blobPuts,
    blobBytes: m.blobPutBytes,
    consensusCommands: m.consensusCommands,
    stateDiffBytes: m.stateDiffBytes,
    inlineParts: m.partsInline,
    hollowParts: m.partsHollow,
    updatesWritten: m.updatesWritten,
    updatesAppended: m.updatesAppended,
    lost: audit.lost,
    duplicated: audit.duplicated,
    leakedBlobs: audit.leakedBlobs,
  };
}
