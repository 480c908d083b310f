import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemConsensus } from '../impl/persist/consensus.ts';
import { runCheck } from './check.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('writers-registered: every part in blob storage was written by a claimed writer', () => {
  it('sbkit check fails a writer registry whose compare-and-sets answer ok without storing', async () => {
    const clean = await runCheck({ variant: 'best-effort', runs: 30, seed: 1, shrink: false });
    expect(clean.exitCode).toBe(0);
    const cas = MemConsensus.prototype.compareAndSet;
    vi.spyOn(MemConsensus.prototype, 'compareAndSet').mockImplementation(function (this: MemConsensus, key, expected, next) {
      // The registry's writes are lost, the shard's kept: parts appear under ids nobody claimed.
      return key.endsWith('/writers') ? Promise.resolve({ ok: true }) : cas.call(this, key, expected, next);
    });
    const broken = await runCheck({ variant: 'best-effort', runs: 30, seed: 1, shrink: false });
    expect(broken.exitCode).toBe(1);
    expect(broken.output).toMatch(/writers-registered: \d+ part\(s\) in blob storage by writers the writer registry never claimed \(registered: none\)/);
  });
});
