/**
 * Commit latency per interval, in the seeded virtual time of explore/timing.ts.
 *
 * Interval t's data is ready when the desired frontier passes t (the `frontier` event with upper t + 1:
 * every update with time ≤ t is known); it is committed by the first successful compare-and-append whose
 * [lower, upper) contains t. Latency = commit − ready, one sample per interval (the earliest frontier of
 * any replica counts as ready, the first append of any replica as the commit).
 *
 * The samples split in two: the wait for the last worker of the replica to become ready for the
 * description that committed t (`write.stage`: the same for every variant, because readiness and
 * stragglers are drawn from the seed alone), and what the sink's write path takes after that
 * (`afterLastReady`: encoding, PUTs, the barrier, hands, the consensus round trip).
 */
import type { TraceEvent } from '../vocab/index.ts';

/** Nearest-rank percentiles of a sample, in virtual milliseconds. All 0 for an empty sample. */
export interface LatencyStats {
  readonly count: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly mean: number;
}

/** The q-quantile by nearest rank (q in (0, 1]); `sorted` ascending. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1] ?? 0;
}

export function latencyStats(samples: readonly number[]): LatencyStats {
  const sorted = [...samples].sort((a, b) => a - b);
  const sum = sorted.reduce((a, b) => a + b, 0);
  return {
    count: sorted.length,
    p50: quantile(sorted, 0.5),
    p99: quantile(sorted, 0.99),
    max: sorted[sorted.length - 1] ?? 0,
    mean: sorted.length === 0 ? 0 : sum / sorted.length,
  };
}

/** Follows a run's trace with the virtual clock and collects one latency sample per committed interval. */
export class LatencyRecorder {
  /** readyAt[t]: when interval t's data became ready (the earliest frontier past t). */
  private readonly readyAt = new Map<number, number>();
  /** Per replica: the latest `stage` time for its live description, by sharedId. */
  private readonly lastStage = new Map<string, number>();
  /** Per replica: the sharedId of its live description. */
  private readonly currentId = new Map<number, number>();
  private readonly committed = new Set<number>();
  private readonly totals: number[] = [];
  private readonly afters: number[] = [];

  constructor(private readonly now: () => number) {}

  event(e: TraceEvent): void {
    const at = this.now();
    switch (e.kind) {
      case 'frontier':
        if (!this.readyAt.has(e.upper - 1)) this.readyAt.set(e.upper - 1, at);
        return;
      case 'stage': {
        const key = `${e.replica}/${e.sharedId}`;
        this.lastStage.set(key, Math.max(this.lastStage.get(key) ?? at, at));
        return;
      }
      case 'mint':
        // A description's stages come after its mint: forget an earlier description's with the same id.
        this.lastStage.delete(`${e.replica}/${e.desc.sharedId}`);
        this.currentId.set(e.replica, e.desc.sharedId);
        return;
      case 'append': {
        if (!e.result.ok) return;
        const staged = this.lastStage.get(`${e.replica}/${this.currentId.get(e.replica) ?? -1}`);
        for (let t = e.lower; t < e.upper; t++) {
          const ready = this.readyAt.get(t);
          if (ready === undefined || this.committed.has(t)) continue;
          this.committed.add(t);
          this.totals.push(at - ready);
          this.afters.push(at - Math.max(ready, staged ?? ready));
        }
        return;
      }
      default:
        return;
    }
  }

  /** Frontier-to-commit latency per interval. */
  get total(): LatencyStats {
    return latencyStats(this.totals);
  }

  /** From the last worker's readiness (for the committing description) to the commit. */
  get afterLastReady(): LatencyStats {
    return latencyStats(this.afters);
  }

  /** The raw frontier-to-commit samples, in commit order. */
  get samples(): readonly number[] {
    return this.totals;
  }
}
