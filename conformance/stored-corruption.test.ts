import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ByteReader } from '../impl/bytes.ts';
import { runSink, SHARD_ID } from '../impl/run.ts';
import { passThroughScheduler } from '../impl/seams.ts';
import { runCheck } from './check.ts';
import { runConfigOf } from './harness.ts';
import { STORED_CORRUPTIONS, corruptionsJudged, storedHistory, type StoredHistory } from './stored-corruption.ts';
import { workloadArb } from './workload.ts';

/** The histories real runs leave: generated workloads of every variant, each run to its end. */
async function histories(n: number): Promise<StoredHistory[]> {
  const out: StoredHistory[] = [];
  for (const w of (['barrier', 'off', 'best-effort'] as const).flatMap((v) => fc.sample(workloadArb(v), { numRuns: n, seed: 9 }))) {
    const { config } = runConfigOf(w, passThroughScheduler);
    await runSink(config);
    const h = await storedHistory(config.consensus, SHARD_ID);
    if (h !== undefined) out.push(h);
  }
  return out;
}

describe('corrupt stored data, a property of every settled run', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("every corruption of a real run's history is refused with its code and message; the idle command is accepted", async () => {
    const tried = new Set<string>();
    for (const h of await histories(12)) {
      const judged = await corruptionsJudged(h);
      expect(judged.wrong).toEqual([]);
      for (const name of judged.tried) tried.add(name);
    }
    expect([...tried].sort()).toEqual(STORED_CORRUPTIONS.map((c) => c.name).sort());
  });

  it('fails a reader that accepts trailing bytes, and one that refuses a valid history', async () => {
    const [h] = await histories(1);
    if (h === undefined) throw new Error('no history');
    vi.spyOn(ByteReader.prototype, 'expectEnd').mockImplementation(() => undefined);
    expect((await corruptionsJudged(h)).wrong.join('\n')).toMatch(/with a byte after its end.*accepted/);
    vi.restoreAllMocks();
    // A judge that expects the idle command refused stands in for a reader that refuses it.
    const idle = STORED_CORRUPTIONS.find((c) => c.name === 'diff-idle');
    if (idle === undefined) throw new Error('no diff-idle');
    const strict = { ...idle, refused: { code: 'consensus-invariant' as const, names: 'upper does not advance' } };
    expect((await corruptionsJudged(h, [strict])).wrong.join('\n')).toMatch(/moves nothing.*accepted/);
  });

  it('sbkit check fails a reader that never checks for trailing bytes', async () => {
    const clean = await runCheck({ variant: 'best-effort', runs: 60, seed: 1, shrink: false });
    expect(clean.exitCode).toBe(0);
    vi.spyOn(ByteReader.prototype, 'expectEnd').mockImplementation(() => undefined);
    const broken = await runCheck({ variant: 'best-effort', runs: 60, seed: 1, shrink: false });
    expect(broken.exitCode).toBe(1);
    expect(broken.output).toMatch(/corrupt-state-refused/);
    expect(broken.output).toMatch(/a state diff with a byte after its end .*accepted/);
    expect(broken.token).toBeDefined();
  });
});
