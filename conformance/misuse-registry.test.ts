/**
 * The writer registry's contracts in the misuse programs (conformance/misuse/registry.ts), each shown
 * failing on the fault it exists for: a claim that writes events beyond its own expiries (stored bytes
 * for writers it cannot expire), a key parser that reads a writer id out of another namespace's key, and
 * a decoder of the registry's entries that disagrees with the registry.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemConsensus } from '../impl/persist/consensus.ts';
import type { VersionedData } from '../impl/persist/consensus.ts';
import { runScenario } from './misuse/index.ts';

const planted = vi.hoisted(() => ({ unanchored: false, finishedAsExpired: false }));

vi.mock('../impl/persist/writer-registry.ts', async (original) => {
  const real = await original<typeof import('../impl/persist/writer-registry.ts')>();
  return {
    ...real,
    // The planted parser finds a writer id anywhere in the key, not only at its start.
    writerOfKey: (key: string) => (planted.unanchored ? /(w\d+-r\d+)\//.exec(key)?.[1] : real.writerOfKey(key)),
    // The planted decoder reads a finished writer's retirement as an expiry.
    registryEntries: (data: Uint8Array) => real.registryEntries(data).map((e) => (planted.finishedAsExpired && e.kind === 'finished' ? { ...e, kind: 'expired' as const } : e)),
  };
});

afterEach(() => {
  planted.unanchored = false;
  planted.finishedAsExpired = false;
  vi.restoreAllMocks();
});

async function wrongOver(seeds: number): Promise<string> {
  const wrong: string[] = [];
  for (let seed = 1; seed <= seeds; seed++) wrong.push(...(await runScenario('registry', seed)).wrong);
  return wrong.join('\n');
}

describe("misuse, the writer registry: contracts beyond the kit's own callers", () => {
  it('holds on the implementation', async () => {
    expect(await wrongOver(40)).toBe('');
  });

  it("fails a claim that also expires writers it cannot (here one never claimed, as an unfiltered claim does with other replicas' incarnations)", async () => {
    const cas = MemConsensus.prototype.compareAndSet;
    vi.spyOn(MemConsensus.prototype, 'compareAndSet').mockImplementation(function (this: MemConsensus, key: string, expected: number | null, next: VersionedData) {
      const d = next.data;
      // A claim version ([count, (kind, incarnation, replica)…], small numbers: one byte each) ends with
      // its claim (kind 0): add an expiry (kind 2) of incarnation 99 under the claimer's replica.
      const claimsAtEnd = key.endsWith('/writers') && d.length >= 4 && (d[0] ?? 0) < 127 && d[d.length - 3] === 0;
      const data = claimsAtEnd ? Uint8Array.from([(d[0] ?? 0) + 1, ...d.subarray(1), 2, 99, d[d.length - 1] ?? 0]) : d;
      return cas.call(this, key, expected, { ...next, data });
    });
    expect(await wrongOver(10)).toMatch(/the registry version a claim of w\d+-r\d+ wrote \(besides its claim\) is \[.*"expired w99-r\d+"\], the model says \[/);
  });

  it("fails a key parser that takes a writer id out of another namespace's key", async () => {
    planted.unanchored = true;
    expect(await wrongOver(10)).toMatch(/writerOfKey\("(other-shard|s1|x)\/w\d+-r\d+\/part-\d+"\) is "w\d+-r\d+", the model says undefined/);
  });

  it("fails a decoder of the registry's entries that disagrees with the registry (a finished writer read as expired)", async () => {
    planted.finishedAsExpired = true;
    expect(await wrongOver(10)).toMatch(/why each writer retired, by the registry entries is \[.*expired.*\], the model says \[.*finished/);
  });
});
