/**
 * Production mode of `sbkit compare` (`--consensus postgres://…`, `--blob file:DIR`, either or both):
 * the implementation runs on real storage under the pass-through scheduler — real concurrency, real I/O,
 * no virtual time, no scheduling seam that waits — and is still checked like a simulated run:
 * - every case writes a fresh shard of its own (shard id `compare-s<seed>-<variant>-<stamp>`; with a
 *   file blob, a sub-directory of that name), so runs never see each other; both are left for inspection;
 * - the trace is recorded, put in the shard's order (impl/linearize.ts), replayed on the model (every
 *   append predicted exactly, nothing pending) and judged by spec/'s properties (real-check.ts);
 * - the audit reads the real database and files back through fresh clients;
 * - the one wall-clock figure compare reports: compare-and-append latency, from the append worker
 *   passing its `append` point (every hand collected) to the answer of its compare-and-append (the
 *   state refresh and the compare-and-set, more than one on a lost race), p50 and p99 over appends.
 * Faults, stragglers and sweeps are virtual-time features and are refused with real backends (the
 * command says so); the crash test (crash/) is the fault world on real storage.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { TraceEvent, Variant } from '../vocab/index.ts';
import { auditShard } from '../impl/audit.ts';
import { openConsensus, parseBlobSpec, parseConsensusSpec } from '../impl/persist/backends.ts';
import { MemBlob, type Blob } from '../impl/persist/blob.ts';
import type { Consensus } from '../impl/persist/consensus.ts';
import { FileBlob } from '../impl/persist/file-blob.ts';
import { redactUrl } from '../impl/persist/pg-consensus.ts';
import { loadShardState } from '../impl/persist/state.ts';
import { runSink } from '../impl/run.ts';
import type { Scheduler } from '../impl/seams.ts';
import { casesFor, noDataOf } from './cases.ts';
import { countFigures, prepareWorkload, type PreparedWorkload } from './experiment.ts';
import { latencyStats } from './latency.ts';
import { modelConfigFor } from './model-agreement.ts';
import { checkRealTrace } from './real-check.ts';
import { caseLabels } from './render.ts';
import type { Case, Comparison, Figures, RealFigures, Scenario, Setup } from './types.ts';
import type { ProgressFn } from './compare.ts';
import { variantOptionsOf } from './variant-options.ts';

/** The stores of a production comparison, as the command line gave them. */
export interface ProductionBackends {
  /** `mem` or `postgres://…` (password included: never printed). */
  readonly consensus: string;
  /** `mem` or `file:DIR`. */
  readonly blob: string;
}

let runSeq = 0;

/** A shard id no other run uses: seed, variant, time, process and a counter. */
export function freshShardId(seed: number, variant: Variant): string {
  runSeq += 1;
  return `compare-s${seed}-${variant}-${Date.now().toString(36)}-${process.pid.toString(36)}-${runSeq}`;
}

/**
 * A pass-through scheduler (every point resumes at once) that notes, per replica, when the append worker
 * passed its `append` point: the start of its compare-and-append.
 */
export function stopwatchScheduler(now: () => number = () => performance.now()): Scheduler & { readonly appendStarted: Map<number, number> } {
  const appendStarted = new Map<number, number>();
  return {
    appendStarted,
    point(site) {
      if (site.label === 'append') appendStarted.set(site.replica, now());
      return Promise.resolve();
    },
  };
}

export async function runProductionComparison(
  scenario: Scenario,
  setup: Setup,
  variants: readonly Variant[],
  backends: ProductionBackends,
  progress?: ProgressFn,
): Promise<Comparison> {
  const cases = casesFor(scenario, variants, setup.threshold, setup.noData);
  const labels = caseLabels(cases);
  const workload = prepareWorkload(setup);
  const rows: Figures[] = [];
  for (const [i, c] of cases.entries()) {
    const label = labels[i] ?? c.variant;
    progress?.(i / cases.length, label);
    rows.push(await runProductionCase(setup, c, workload, backends));
  }
  progress?.(1, 'done');
  const consensus = parseConsensusSpec(backends.consensus);
  return {
    scenario,
    setup,
    variants,
    rows,
    backends: { consensus: consensus.kind === 'mem' ? 'mem' : `${redactUrl(consensus.url)} (table ${consensus.table})`, blob: backends.blob },
  };
}

/** The stores of one case: a fresh shard id; on files, a fresh sub-directory. */
async function openCaseStores(backends: ProductionBackends, shardId: string): Promise<{ consensus: Consensus; blob: Blob; dir?: string; close(): Promise<void> }> {
  const consensus = await openConsensus(backends.consensus, { applicationName: `sbkit-${shardId}`.slice(0, 63) });
  const spec = parseBlobSpec(backends.blob);
  if (spec.kind === 'mem') return { consensus: consensus.store, blob: new MemBlob(), close: () => consensus.close() };
  const dir = path.resolve(spec.dir, shardId);
  try {
    mkdirSync(dir);
    return { consensus: consensus.store, blob: await FileBlob.open(dir), dir, close: () => consensus.close() };
  } catch (e) {
    await consensus.close();
    throw e;
  }
}

export async function runProductionCase(setup: Setup, c: Case, workload: PreparedWorkload, backends: ProductionBackends): Promise<Figures> {
  const shardId = freshShardId(setup.seed, c.variant);
  const stores = await openCaseStores(backends, shardId);
  const scheduler = stopwatchScheduler();
  const trace: TraceEvent[] = [];
  const appendMs: number[] = [];
  const observer = {
    event(e: TraceEvent): void {
      trace.push(e);
      if (e.kind === 'append') {
        const started = scheduler.appendStarted.get(e.replica);
        if (started !== undefined) appendMs.push(performance.now() - started);
      }
    },
  };
  const began = performance.now();
  let result;
  try {
    result = await runSink({
      variant: c.variant,
      ...variantOptionsOf(setup, c.variant),
      replicas: setup.replicas,
      processes: setup.processes,
      workersPerProcess: setup.workers,
      intervals: setup.intervals,
      updates: workload.updates,
      maxBytes: c.threshold,
      bugs: setup.bug === undefined ? [] : [setup.bug],
      ...(noDataOf(setup, c) === undefined ? {} : { noData: noDataOf(setup, c) }),
      scheduler,
      observer,
      consensus: stores.consensus,
      blob: stores.blob,
      shardId,
    });
  } finally {
    await stores.close();
  }
  const wallMs = performance.now() - began;

  // The audit of what is stored, through fresh clients (an in-memory store has no second client).
  const audit = await auditAfresh(backends, shardId, stores, workload);
  const real = parseConsensusSpec(backends.consensus).kind === 'postgres';
  const faulted = trace.some((e) => e.kind === 'fault');
  const cfg = modelConfigFor(setup, c, workload);
  const check = await checkRealTrace(
    // A real backend's failures (retried: stuttering steps) are fault-world events for the model.
    faulted ? { ...cfg, faults: { aborts: 0, indeterminate: Number.POSITIVE_INFINITY, cleanup: false } } : cfg,
    trace,
    { leakedFromAborted: 0, leakedFromLive: audit.leakedBlobs, leakedAfterCleanup: null, referencedDeleted: audit.danglingKeys.length, lost: audit.lost, duplicated: audit.duplicated },
  );
  const m = result.metrics;
  const lat = latencyStats(appendMs);
  const realFigures: RealFigures = {
    shardId,
    ...(stores.dir === undefined ? {} : { blobDir: stores.dir }),
    appendP50Ms: lat.p50,
    appendP99Ms: lat.p99,
    appendSamples: lat.count,
    wallMs,
    moved: check.moved,
    propertiesHold: check.propertyFailures.length === 0,
    propertyFailures: check.propertyFailures,
    faults: trace.filter((e) => e.kind === 'fault').length,
    reopened: real || stores.dir !== undefined,
  };
  return {
    ...countFigures(c, m, audit),
    // No virtual time here: the virtual-time figures are not measured (NaN, null in JSON).
    simulatedMs: Number.NaN,
    meanAppendLatencyMs: Number.NaN,
    latencyP50Ms: Number.NaN,
    latencyP99Ms: Number.NaN,
    latencyMaxMs: Number.NaN,
    writeP50Ms: Number.NaN,
    writeP99Ms: Number.NaN,
    writeMaxMs: Number.NaN,
    shardParts: m.partsHollow + m.partsInline,
    maxBuilderShare: Number.NaN,
    faultsInjected: 0,
    retries: m.retries,
    aborts: m.aborts,
    restarts: m.restarts,
    leakedByAborts: result.leaks.fromAborted,
    collected: result.leaks.collected,
    modelAgrees: check.model.agrees,
    modelDetail: check.model.detail,
    real: realFigures,
  };
}

async function auditAfresh(backends: ProductionBackends, shardId: string, stores: { consensus: Consensus; blob: Blob; dir?: string }, workload: PreparedWorkload) {
  const pg = parseConsensusSpec(backends.consensus).kind === 'postgres';
  const reader = pg ? await openConsensus(backends.consensus, { applicationName: 'sbkit-compare-audit' }) : { store: stores.consensus, close: async () => {} };
  try {
    const state = await loadShardState(reader.store, shardId);
    const blob = stores.dir === undefined ? stores.blob : await FileBlob.open(stores.dir);
    return await auditShard(state, blob, workload.updates);
  } finally {
    await reader.close();
  }
}

