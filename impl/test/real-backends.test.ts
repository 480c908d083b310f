/**
 * End to end on real storage: runSink with consensus = PgConsensus (a real PostgreSQL) and blob =
 * FileBlob (a real directory), the default pass-through scheduler — real concurrency, no scheduling
 * seam that waits — two replicas racing on one shard, every variant. Then:
 * - the audit re-reads the real database and files through fresh clients: 0 lost, 0 duplicated,
 *   0 leaked, and the shard's upper is K;
 * - the recorded trace, put in the shard's order (test-support/linearize.ts: the trace is in response
 *   order, and a refused append's response can come after another replica's later commit), replays on
 *   the model (predictAppends): every event enabled, every append's batches and parts as predicted,
 *   nothing left pending; and every always/eventually property of spec/ holds on it.
 * The workload is drawn from one printed seed (SBKIT_SEED overrides); the interleaving is whatever
 * the machine does, so a failure prints the seed, the variant and the trace's first divergence.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { BugName, TraceEvent, Variant } from '../../vocab/index.ts';
import { VARIANTS } from '../variants/index.ts';
import type { ModelConfig } from '../../model/config.ts';
import { predictAppends } from '../../model/predict.ts';
import { properties } from '../../spec/properties.ts';
import { viewFromTrace } from '../../spec/view.ts';
import { auditShard } from '../audit.ts';
import { resolvePersistConfig } from '../persist/config.ts';
import { FileBlob } from '../persist/file-blob.ts';
import { PgConsensus } from '../persist/pg-consensus.ts';
import { loadShardState } from '../persist/state.ts';
import { runSink, SHARD_ID } from '../run.ts';
import { linearizeByShard } from '../linearize.ts';
import { dropTables, pgTargetOrSkip, uniqueTable } from '../../test-support/pg-target.ts';
import { keyFor, upd } from '../test-support/workloads.ts';
import { encodedUpdateSize, partitionWorker, type Update } from '../update.ts';
import { mulberry32 } from '../../random/prng.ts';

const target = pgTargetOrSkip('real-backends.test.ts');
const SEED = Number(process.env['SBKIT_SEED'] ?? 202_512);
const scratch = mkdtempSync(path.join(os.tmpdir(), 'sbkit-real-'));
const tables: string[] = [];
afterAll(async () => {
  rmSync(scratch, { recursive: true, force: true });
  if (target.url !== undefined) await dropTables(target.url, tables);
});

/** mulberry32: the one seeded source of the workload's choices. */
const rng = (seed: number): (() => number) => mulberry32(seed).next;

const SHAPE = { replicas: 2, processes: 2, workersPerProcess: 2, intervals: 8 } as const;
const MAX_BYTES = 8192;
const PERSIST = { inlineSingleMaxBytes: 1024, blobTargetSize: 4096 } as const;

/**
 * Per (interval, worker) a load: none, tiny (one ~60 B update: inline), medium (5 × ~300 B: hollow,
 * below the threshold: shared) or large (40 × ~300 B: above it: the worker's own batch, cut in parts).
 */
function workload(seed: number): Update[] {
  const next = rng(seed);
  const workers = SHAPE.processes * SHAPE.workersPerProcess;
  const seen = new Array<number>(workers).fill(0);
  const updates: Update[] = [];
  for (let t = 0; t < SHAPE.intervals; t++) {
    for (let w = 0; w < workers; w++) {
      const r = next();
      const [count, bytes] = r < 0.15 ? [0, 0] : r < 0.45 ? [1, 50] : r < 0.85 ? [5, 290] : [40, 290];
      for (let i = 0; i < count; i++) {
        const key = keyFor(w, workers, (seen[w] = (seen[w] ?? 0) + 1), `s${seed}-`);
        updates.push(upd(updates.length, t, key, bytes));
      }
    }
  }
  return updates;
}

function modelConfig(variant: Variant, updates: readonly Update[]): ModelConfig {
  const workers = SHAPE.processes * SHAPE.workersPerProcess;
  return {
    variant,
    ...SHAPE,
    updates: updates.map((u) => ({ id: u.id, time: u.time, worker: partitionWorker(u.key, workers), size: encodedUpdateSize(u) })),
    persist: resolvePersistConfig(PERSIST),
    maxBytesChoices: [MAX_BYTES],
  };
}

interface RealRun {
  readonly updates: readonly Update[];
  readonly trace: readonly TraceEvent[];
  readonly result: Awaited<ReturnType<typeof runSink>>;
  /** The audit re-read through fresh clients on the same table and directory. */
  readonly audit: Awaited<ReturnType<typeof auditShard>>;
  readonly files: number;
}

/** One run of `variant` on a fresh table and directory, then the audit through fresh clients. */
async function realRun(url: string, variant: Variant, bugs: readonly BugName[] = []): Promise<RealRun> {
  const updates = workload(SEED);
  const name = `${variant.replace('-', '_')}${bugs.length > 0 ? '_bug' : ''}`;
  const table = uniqueTable(`t_e2e_${name}`);
  tables.push(table);
  const dir = path.join(scratch, name);
  mkdirSync(dir);
  const consensus = await PgConsensus.open({ url, table, applicationName: `sbkit-e2e-${name}` });
  const blob = await FileBlob.open(dir);
  const trace: TraceEvent[] = [];
  const started = performance.now();
  const result = await runSink({ variant, ...SHAPE, updates, maxBytes: MAX_BYTES, persist: PERSIST, consensus, blob, bugs, observer: { event: (e) => trace.push(e) } });
  const ms = performance.now() - started;
  const lat = consensus.stats.casLatency.summary();
  await consensus.close();
  const m = result.metrics;
  console.log(
    `[seed ${SEED}] ${variant}${bugs.length > 0 ? ` with ${bugs.join(', ')}` : ''}: ${updates.length} updates, ${m.appends} appends, ` +
      `${m.partsHollow} hollow + ${m.partsInline} inline parts, ${m.mismatches} mismatches, ${m.consensusCommands} CaS (${m.consensusCasFailed} lost races), ` +
      `${m.blobPuts} PUTs, ${trace.length} events, ${ms.toFixed(0)} ms; CaS p50 ${lat?.p50.toFixed(2)} ms p99 ${lat?.p99.toFixed(2)} ms`,
  );
  const reader = await PgConsensus.open({ url, table });
  const state = await loadShardState(reader, SHARD_ID);
  await reader.close();
  const audit = await auditShard(state, await FileBlob.open(dir), updates);
  return { updates, trace, result, audit, files: (await blob.list()).length };
}

describe.skipIf(target.skip !== undefined)(`runSink on PostgreSQL + files, pass-through scheduler, ${SHAPE.replicas} replicas (seed ${SEED})`, () => {
  const url = target.url ?? '';

  it.each(VARIANTS.map((v) => [v]))('%s: the audit of the real database and files finds nothing lost, duplicated or leaked; the model predicts every append', async (variant) => {
    const { updates, trace, result, audit, files } = await realRun(url, variant);
    const m = result.metrics;

    // The run's own audit, and the independent one through fresh clients on the same database and files.
    expect(result.audit).toMatchObject({ lost: 0, duplicated: 0, leakedBlobs: 0, upper: SHAPE.intervals });
    expect(audit).toMatchObject({ upper: SHAPE.intervals, expectedUpdates: updates.length, foundUpdates: updates.length, lost: 0, duplicated: 0, leakedBlobs: 0, danglingKeys: [] });
    expect(files).toBe(m.blobPuts - m.blobDeletes);

    // Refinement: the model accepts the real interleaving, in the shard's order, and predicts every append.
    const cfg = modelConfig(variant, updates);
    const raw = predictAppends(cfg, trace);
    const linear = linearizeByShard(trace);
    if (!linear.ok) expect.fail(`[seed ${SEED}, ${variant}] no order of the trace fits the shard: ${linear.why}`);
    if (!raw.ok || linear.moved > 0) {
      console.log(`[seed ${SEED}] ${variant}: ${linear.moved} event(s) moved into the shard's order; the response-order trace ${raw.ok ? 'replays as it is' : `diverges at #${raw.at}: ${raw.reason}`}`);
    }
    const replay = predictAppends(cfg, linear.trace);
    if (!replay.ok) {
      const at = linear.trace[replay.at];
      expect.fail(`[seed ${SEED}, ${variant}] the model diverges at event #${replay.at} ${JSON.stringify(at)}: ${replay.reason}`);
    }
    expect(replay.pending, 'the implementation ended but the model still expects events').toEqual([]);
    const appendEvents = linear.trace.filter((e) => e.kind === 'append');
    expect(replay.appends).toHaveLength(appendEvents.length);
    expect(appendEvents.filter((e) => e.result.ok).length).toBeGreaterThanOrEqual(1);

    // The spec's properties on the trace.
    const view = viewFromTrace(cfg, linear.trace, { final: true });
    for (const p of properties) {
      if (p.kind === 'sometimes') continue;
      const verdict = p.check(view);
      expect(verdict, `[seed ${SEED}, ${variant}] ${p.name}`).toEqual({ ok: true });
    }
  });

  it('the canary: with append-keeps-batches-on-mismatch the audit of the real files finds the leaked blobs', async () => {
    const { result, audit, files } = await realRun(url, 'off', ['append-keeps-batches-on-mismatch']);
    expect(result.metrics.mismatches, 'two racing replicas: some appends are refused').toBeGreaterThan(0);
    expect(audit.leakedBlobs).toBeGreaterThan(0);
    expect(audit.leakedKeys.every((k) => /^w\d+-r[01]\/part-\d+$/.test(k))).toBe(true);
    expect(files).toBeGreaterThan(audit.leakedBlobs);
    expect(audit).toMatchObject({ lost: 0, duplicated: 0 });
  });
});
