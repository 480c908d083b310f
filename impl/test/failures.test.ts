/**
 * Failures of the storage underneath: the error surfaces as a rejection of the right call and of the
 * run, never as a hang or a silent loss.
 */
import { describe, expect, it } from 'vitest';
import { MemBlob } from '../persist/blob.ts';
import { runSink } from '../run.ts';
import { sharedHarness } from '../test-support/harness.ts';
import { perWorker, upd } from '../test-support/workloads.ts';

class FailingBlob extends MemBlob {
  override async set(key: string, value: Uint8Array): Promise<void> {
    if (this.stats.sets >= 1) throw new Error(`blob unavailable writing ${key}`);
    return super.set(key, value);
  }
}

describe('storage failures', () => {
  it('a builder task that fails hands its error to the receiver and to the task group', async () => {
    const h = sharedHarness({ persist: { inlineSingleMaxBytes: 0, blobTargetSize: 1 }, blob: new FailingBlob() });
    const a = await h.registry.builder(1, { lower: 0, upper: 1 }, { worker: 0 });
    expect(a.sharedId).toBe(1);
    await a.push([upd(1, 0), upd(2, 0)]);
    await expect(a.finish()).rejects.toThrow(/blob unavailable/);
    expect(a.state).toBe('finished');
    await expect(h.tasks.whenAllDone()).rejects.toThrow(/blob unavailable/);
  });

  it('a run whose blob store fails rejects with that error', async () => {
    await expect(
      runSink({
        variant: 'barrier',
        replicas: 1,
        processes: 1,
        workersPerProcess: 2,
        intervals: 2,
        updates: perWorker(2, 2, [3, 3], 8),
        maxBytes: 1 << 20,
        persist: { inlineSingleMaxBytes: 0 },
        blob: new FailingBlob(),
      }),
    ).rejects.toThrow(/blob unavailable/);
  });
});
