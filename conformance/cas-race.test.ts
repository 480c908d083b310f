import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemConsensus, type CasResult, type SeqNo, type VersionedData } from '../impl/persist/consensus.ts';
import { runCheck } from './check.ts';
import { requiredReach } from './reach.ts';

describe('a compare-and-set that loses its race', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('is reached by the default budget and required by it', async () => {
    for (const v of ['off', 'best-effort', 'barrier'] as const) expect(requiredReach(v)).toContain('cas-race-lost');
    const clean = await runCheck({ variant: 'off', runs: 500, seed: 1, shrink: false });
    expect(clean.exitCode).toBe(0);
    expect(clean.variants[0]?.reached['cas-race-lost'] ?? 0).toBeGreaterThan(0);
  });

  it('sbkit check fails a consensus whose compare-and-set never refuses (the mutant Stryker left alive)', async () => {
    const cas = MemConsensus.prototype.compareAndSet;
    vi.spyOn(MemConsensus.prototype, 'compareAndSet').mockImplementation(async function (this: MemConsensus, key: string, _expected: SeqNo | null, next: VersionedData): Promise<CasResult> {
      // Whatever the caller expected, the write goes in at the head it names.
      const head = (await this.head(key))?.seqNo ?? null;
      this.stats.heads -= 1;
      return cas.call(this, key, head, { ...next, seqNo: head === null ? 0 : head + 1 });
    });
    const broken = await runCheck({ variant: 'off', runs: 500, seed: 1, shrink: false });
    expect(broken.exitCode).toBe(1);
    expect(broken.token).toBeDefined();
  });
});
