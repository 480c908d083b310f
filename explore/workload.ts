/**
 * Seeded workloads for `sbkit compare`: `rows` updates per interval, each about `rowBytes` encoded bytes,
 * with random keys (the implementation spreads them across workers by key hash).
 *
 * Values are views into one shared random pool, so a large workload costs little memory; the bytes an
 * update carries are what matters to persist, not their content.
 */
import { encodedUpdateSize, type Update } from '../impl/update.ts';
import { STREAM, streamFor } from './prng.ts';

export interface WorkloadShape {
  readonly intervals: number;
  /** Updates per interval. */
  readonly rows: number;
  /** Target encoded size of one update (actual sizes vary by ±10%). */
  readonly rowBytes: number;
  readonly seed: number;
}

/** Size of the shared random pool that values are sliced from. */
const POOL_BYTES = 1 << 20;

/** Relative spread of value lengths around the target. */
const SPREAD = 0.1;

export function generateUpdates(shape: WorkloadShape): Update[] {
  const rng = streamFor(shape.seed, STREAM.workload);
  const pool = new Uint8Array(POOL_BYTES);
  for (let i = 0; i < pool.length; i += 4) {
    const r = rng.nextU32();
    pool[i] = r & 0xff;
    pool[i + 1] = (r >>> 8) & 0xff;
    pool[i + 2] = (r >>> 16) & 0xff;
    pool[i + 3] = (r >>> 24) & 0xff;
  }
  const updates: Update[] = [];
  let id = 0;
  for (let time = 0; time < shape.intervals; time++) {
    for (let n = 0; n < shape.rows; n++) {
      const key = `k${rng.nextU32().toString(16).padStart(8, '0')}`;
      const overhead = encodedUpdateSize({ id, key, value: new Uint8Array(0), time, diff: 1 });
      const target = Math.max(0, shape.rowBytes - overhead);
      const len = Math.min(POOL_BYTES, Math.max(0, Math.round(target * (1 - SPREAD + 2 * SPREAD * rng.next()))));
      const offset = rng.below(POOL_BYTES - len + 1);
      updates.push({ id, key, value: pool.subarray(offset, offset + len), time, diff: 1 });
      id++;
    }
  }
  return updates;
}
