/**
 * Latency samples of one kind of storage call (e.g. compare-and-set), in milliseconds, with quantiles.
 * Keeps the most recent `capacity` samples (a ring), so a long run stays bounded in memory.
 */
export interface LatencySummary {
  readonly count: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

export class LatencyRecorder {
  readonly #samples: number[] = [];
  #next = 0;
  #count = 0;

  constructor(readonly capacity = 100_000) {}

  add(ms: number): void {
    this.#count += 1;
    if (this.#samples.length < this.capacity) this.#samples.push(ms);
    else {
      this.#samples[this.#next] = ms;
      this.#next = (this.#next + 1) % this.capacity;
    }
  }

  /** Every call recorded, including those the ring no longer holds. */
  get count(): number {
    return this.#count;
  }

  /** Nearest-rank quantiles over the samples held; undefined when there are none. */
  summary(): LatencySummary | undefined {
    if (this.#samples.length === 0) return undefined;
    const sorted = [...this.#samples].sort((a, b) => a - b);
    const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? 0;
    return { count: this.#count, p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1] ?? 0 };
  }
}
