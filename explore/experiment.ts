/**
 * Runs the real implementation (impl/run.ts) under the seeded timing model and condenses its metrics
 * and audit into the figures `sbkit compare` prints. The only file in explore/ that calls `runSink`.
 */
import type { TraceEvent } from '../vocab/index.ts';
import { runSink } from '../impl/run.ts';
import { encodedUpdateSize, type Update } from '../impl/update.ts';
import { DEFAULT_TIMING, VirtualTimeScheduler, seededTiming } from './timing.ts';
import type { Case, Figures, Setup } from './types.ts';
import { generateUpdates } from './workload.ts';

/** A workload with the per-update sizes the figures need. Generated once, shared by every case. */
export interface PreparedWorkload {
  readonly updates: readonly Update[];
  /** sizes[id] = encodedUpdateSize of update `id`. */
  readonly sizes: Float64Array;
  readonly totalBytes: number;
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
  return { updates, sizes, totalBytes };
}

/**
 * Runs the implementation once for `c` on `workload`. `onProgress(fraction)` follows the shard's upper.
 * Deterministic: the same setup and case give the same figures.
 */
export async function runCase(setup: Setup, c: Case, workload: PreparedWorkload, onProgress?: (fraction: number) => void): Promise<Figures> {
  const scheduler = new VirtualTimeScheduler(seededTiming(setup.seed, setup.timing ?? DEFAULT_TIMING));
  const spread = new BuilderSpread(workload.sizes);
  let lastAppendAt = 0;
  const mintedAt = new Map<number, number>();
  let latencySum = 0;
  let latencyCount = 0;
  const observer = {
    event(e: TraceEvent): void {
      spread.event(e);
      if (e.kind === 'mint') mintedAt.set(e.replica, scheduler.now);
      if (e.kind === 'append' && e.result.ok) {
        lastAppendAt = scheduler.now;
        latencySum += scheduler.now - (mintedAt.get(e.replica) ?? scheduler.now);
        latencyCount += 1;
        if (e.replica === 0) onProgress?.(Math.min(1, e.upper / Math.max(1, setup.intervals)));
      }
    },
  };
  const run = runSink({
    variant: c.variant,
    replicas: setup.replicas,
    processes: setup.processes,
    workersPerProcess: setup.workers,
    intervals: setup.intervals,
    updates: workload.updates,
    maxBytes: c.threshold,
    bugs: setup.bug === undefined ? [] : [setup.bug],
    scheduler,
    observer,
  });
  const { metrics: m, audit } = await scheduler.drive(run);
  return {
    variant: c.variant,
    threshold: c.threshold,
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
    simulatedMs: lastAppendAt,
    meanAppendLatencyMs: latencyCount === 0 ? 0 : latencySum / latencyCount,
    maxBuilderShare: spread.maxShare,
  };
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
