/**
 * Test workloads: updates with chosen sizes, times and workers.
 */
import { partitionWorker, type Update } from '../update.ts';

/** A key (with `prefix`) that partitionWorker sends to `worker` of `workers`, the n-th such. */
export function keyFor(worker: number, workers: number, n: number, prefix = 'k'): string {
  let found = 0;
  for (let i = 0; ; i++) {
    const key = `${prefix}${i}`;
    if (partitionWorker(key, workers) !== worker) continue;
    if (found === n) return key;
    found += 1;
  }
}

/** An update whose value is `valueBytes` long (filled from the id). */
export function upd(id: number, time: number, key = `key-${id}`, valueBytes = 8, diff = 1): Update {
  return { id, key, value: new Uint8Array(valueBytes).fill(id % 251), time, diff };
}

/** `perInterval` updates at each time 0..intervals−1, keys spread by hash, values `valueBytes` long. */
export function uniform(intervals: number, perInterval: number, valueBytes: number): Update[] {
  const out: Update[] = [];
  let id = 0;
  for (let t = 0; t < intervals; t++) {
    for (let i = 0; i < perInterval; i++) {
      out.push(upd(id, t, `key-${t}-${i}`, valueBytes));
      id += 1;
    }
  }
  return out;
}

/** For each worker w (of `workers`) and each time, `counts[w]` updates held by w. Ids from `firstId`. */
export function perWorker(intervals: number, workers: number, counts: readonly number[], valueBytes: number, firstId = 0): Update[] {
  const out: Update[] = [];
  let id = firstId;
  const seen = new Array<number>(workers).fill(0);
  for (let t = 0; t < intervals; t++) {
    for (let w = 0; w < workers; w++) {
      for (let i = 0; i < (counts[w] ?? 0); i++) {
        const n = seen[w] ?? 0;
        seen[w] = n + 1;
        out.push(upd(id, t, keyFor(w, workers, n), valueBytes));
        id += 1;
      }
    }
  }
  return out;
}
