import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../vocab/index.ts';
import { runComparison } from './compare.ts';
import { LatencyRecorder, latencyStats, quantile } from './latency.ts';
import { DEFAULT_TIMING, isStraggler, seededTiming } from './timing.ts';
import type { PointSite } from '../impl/seams.ts';
import type { Setup } from './types.ts';

describe('latency statistics', () => {
  it('takes nearest-rank percentiles', () => {
    const xs = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(quantile(xs, 0.5)).toBe(50);
    expect(quantile(xs, 0.99)).toBe(99);
    expect(quantile([7], 0.99)).toBe(7);
    expect(latencyStats([3, 1, 2])).toEqual({ count: 3, p50: 2, p99: 3, max: 3, mean: 2 });
    expect(latencyStats([])).toEqual({ count: 0, p50: 0, p99: 0, max: 0, mean: 0 });
  });
});

describe('LatencyRecorder', () => {
  const desc = (lower: number, upper: number, sharedId: number) => ({ lower, upper, appendWorker: 0, sharedId, maxBytes: 1, barrier: false });
  const stage = (worker: number, sharedId: number): TraceEvent => ({ kind: 'stage', replica: 0, process: 0, worker, sharedId, updates: [], bytes: 0, route: 'none' });
  const append = (lower: number, upper: number, ok = true): TraceEvent => ({
    kind: 'append', replica: 0, lower, upper, batches: 0, parts: { hollow: 0, inline: 0 }, runs: 0, updates: [], result: ok ? { ok: true } : { ok: false, current: upper },
  });

  it('measures each interval from the frontier past it to the append containing it, and splits off the wait for the last worker', () => {
    let now = 0;
    const r = new LatencyRecorder(() => now);
    const at = (t: number, e: TraceEvent) => {
      now = t;
      r.event(e);
    };
    at(1000, { kind: 'frontier', replica: 0, upper: 1 });
    at(1001, { kind: 'mint', replica: 0, desc: desc(0, 1, 0) });
    at(1002, stage(0, 0));
    at(1050, stage(1, 0)); // a straggler
    at(1060, append(0, 1));
    // free pacing: two intervals ready before one description covers both
    at(2000, { kind: 'frontier', replica: 0, upper: 2 });
    at(3000, { kind: 'frontier', replica: 0, upper: 3 });
    at(3001, { kind: 'mint', replica: 0, desc: desc(1, 3, 1) });
    at(3002, stage(0, 1));
    at(3003, stage(1, 1));
    at(3010, append(1, 3, false)); // refused: commits nothing
    at(3020, append(1, 3));
    expect(r.samples).toEqual([60, 1020, 20]);
    expect(r.total).toMatchObject({ count: 3, p50: 60, max: 1020 });
    // after the last worker became ready: 1060 − 1050, then 3020 − 3003 for both intervals
    expect(r.afterLastReady).toMatchObject({ count: 3, p50: 17, max: 17 });
  });
});

describe('stragglers in the timing model', () => {
  const stage = (worker: number): PointSite => ({ label: 'write.stage', replica: 0, worker });

  it('are drawn from the seed alone, with about the asked probability', () => {
    const t = { ...DEFAULT_TIMING, stragglerProbability: 0.1, stragglerSlowdown: 100 };
    let n = 0;
    for (let d = 0; d < 1000; d++) for (let w = 0; w < 8; w++) if (isStraggler(1, t, 0, w, d)) n++;
    expect(n / 8000).toBeGreaterThan(0.09);
    expect(n / 8000).toBeLessThan(0.11);
    expect(isStraggler(1, DEFAULT_TIMING, 0, 0, 0)).toBe(false);
  });

  it('scale exactly the straggling descriptions\' readiness and leave the others alone (up to jitter)', () => {
    const slow = { ...DEFAULT_TIMING, stragglerProbability: 0.3, stragglerSlowdown: 50 };
    const a = seededTiming(4);
    const b = seededTiming(4, slow);
    let seen = 0;
    for (let n = 0; n < 200; n++) {
      const da = a.delay(stage(3));
      const db = b.delay(stage(3));
      if (isStraggler(4, slow, 0, 3, n)) {
        seen++;
        expect(Math.abs(db - 50 * (da - DEFAULT_TIMING.jitterMs / 2))).toBeLessThanOrEqual(50 * DEFAULT_TIMING.jitterMs);
      } else expect(Math.abs(db - da)).toBeLessThanOrEqual(DEFAULT_TIMING.jitterMs);
    }
    expect(seen).toBeGreaterThan(30);
  });
});

describe('commit latency in compare', () => {
  const setup: Setup = { replicas: 1, processes: 1, workers: 8, intervals: 30, rows: 400, rowBytes: 1000, threshold: 1 << 20, seed: 3 };

  it('grows in every variant with stragglers (the append waits for every worker); the barrier uploads its one batch after the straggler', async () => {
    const calm = await runComparison('steady', setup, ['off', 'best-effort', 'barrier']);
    const slow = await runComparison('steady', { ...setup, stragglers: { probability: 0.2, slowdown: 100 } }, ['off', 'best-effort', 'barrier']);
    for (const [i, r] of calm.rows.entries()) {
      const s = slow.rows[i];
      expect(r.modelAgrees && s?.modelAgrees).toBe(true);
      expect(r.latencyP50Ms).toBeGreaterThan(DEFAULT_TIMING.consensusBaseMs);
      expect(r.latencyP50Ms).toBeLessThanOrEqual(r.latencyP99Ms);
      expect(r.latencyP99Ms).toBeLessThanOrEqual(r.latencyMaxMs);
      expect(s?.latencyMaxMs ?? 0).toBeGreaterThan(r.latencyMaxMs + 20);
    }
    const [off, be, barrier] = slow.rows;
    // without stragglers the sharing variants pay one big PUT instead of 8 parallel ones
    expect(calm.rows[1]?.latencyP50Ms ?? 0).toBeGreaterThan(calm.rows[0]?.latencyP50Ms ?? 0);
    // with them, best-effort's straggler builds its own small batch; the barrier uploads everything after it
    expect(barrier?.latencyMaxMs ?? 0).toBeGreaterThan((be?.latencyMaxMs ?? 0) + 5);
    expect(Math.abs((be?.latencyMaxMs ?? 0) - (off?.latencyMaxMs ?? 0))).toBeLessThan(5);
  });
});
