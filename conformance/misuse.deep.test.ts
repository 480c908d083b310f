/**
 * The implementation's contracts beyond the kit's own callers (misuse/: reuse, ids, writers, claims):
 * each scenario's programs kill the mutant it exists for. Deep: each case copies the kit with the mutant
 * planted and runs the scenario's programs in a process of its own (seconds each).
 */
import { describe, expect, it } from 'vitest';
import { runScenario, type Scenario } from './misuse/index.ts';
import { plant, type Change } from './test-support/plant.ts';

/** What went wrong over `seeds` programs of a scenario, each line naming its seed. */
async function sweep(scenario: Scenario, seeds: number): Promise<{ wrong: string[] }> {
  const wrong: string[] = [];
  for (let seed = 1; seed <= seeds; seed++) wrong.push(...(await runScenario(scenario, seed)).wrong.map((w) => `seed ${seed}: ${w}`));
  return { wrong };
}

/** A misuse scenario's programs (seeds 1 … 150) in a copy of the kit with `change` planted: some go wrong. */
function plantedScenario(change: Change, scenario: Scenario): string {
  const p = plant(change);
  try {
    const r = p.tsx('conformance/test-support/misuse-sweep.ts', [scenario, '150']);
    expect(r.output).toMatch(/^wrong in [1-9]\d* of 150$/m);
    return r.output;
  } finally {
    p.dispose();
  }
}

describe("misuse: the implementation's contracts, beyond the kit's own callers (each program kills its mutant)", () => {
  it('reuse: a handle that queues the caller\'s array itself (no copy) loses what the caller reused', async () => {
    expect((await sweep('reuse', 60)).wrong).toEqual([]);
    const out = plantedScenario({ file: 'impl/shared/handle.ts', from: 'await this.#send(updates.slice());', to: 'await this.#send(updates);' }, 'reuse');
    expect(out).toMatch(/the batch \(in push order\) is \[[^\]]*\], the model says/);
  });

  it('ids: a registry keyed by sequence number alone mixes two sinks\' batches of one number', async () => {
    expect((await sweep('ids', 60)).wrong).toEqual([]);
    const out = plantedScenario({ file: 'impl/shared/batch-id.ts', from: 'string => `${id.namespace}#${id.seq}`;', to: 'string => `#${id.seq}`;' }, 'ids');
    expect(out).toMatch(/expected to succeed, threw conflicting-descriptions/);
  });

  it('writers: the backpressure guard without `inline > 0` spins on an empty append after another writer\'s inline bytes', async () => {
    expect((await sweep('writers', 60)).wrong).toEqual([]);
    const out = plantedScenario({ file: 'impl/persist/shard-writer.ts', from: 'if (inline > 0 && state.inlineBytes', to: 'if (true && state.inlineBytes' }, 'writers');
    expect(out).toMatch(/compareAndAppend\(no batches, \d+, \d+\) on a shard with \d+ inline bytes: expected to succeed, threw Spinning/);
  });

  it("writers: a merge tree that never merges a full level into the next ends a writer's batch with another number of runs", async () => {
    const out = plantedScenario({ file: 'impl/persist/merge-tree.ts', from: 'if (level.length < this.maxLen || depth === maxLevel) return;', to: 'if (true) return;' }, 'writers');
    expect(out).toMatch(/the batch's runs and the part rewrites compacting them cost is \{"runs":(\d+),"rewrites":\d+\}, the model says \{"runs":(?!\1\b)\d+,/);
  });

  it("ids: a description check blind to the shard lets a second sink's open join another shard's builder", async () => {
    const out = plantedScenario({ file: 'impl/shared/shared-batches.ts', from: 'const sameShard = entry.shard === shard;', to: 'const sameShard = true;' }, 'ids');
    expect(out).toMatch(/by shard-b: expected conflicting-descriptions, but it succeeded/);
  });

  it('barrier: a registry that refuses only barrier opens after completion takes an open without a barrier', async () => {
    const out = plantedScenario({ file: 'impl/shared/shared-batches.ts', from: "      this.#refuseCompleted(key, bid, 'builder()');", to: "      if (opts.participants !== undefined) this.#refuseCompleted(key, bid, 'builder()');" }, 'barrier');
    expect(out).toMatch(/without a barrier after all reported: expected barrier-over-report, but it succeeded/);
  });

  it('claims: a claim that reads its version back after a failed compare-and-set takes the racing claim\'s writer id', async () => {
    expect((await sweep('claims', 60)).wrong).toEqual([]);
    // The read-back as it was, and with its condition forced true (Stryker's surviving mutant of it).
    for (const cond of ["e.code === 'storage-indeterminate'", 'true']) {
      const readBack = `if (${cond}) { const mine = (await call(io, 'consensus.scan', () => consensus.scan(key, seqNo)))[0]; if (mine !== undefined && mine.seqNo === seqNo && Buffer.compare(mine.data, data) === 0) return seqNo; }`;
      const out = plantedScenario({ file: 'impl/persist/writer-registry.ts', from: '// Transient or indeterminate alike: made again (see the header: an applied one is made harmless).', to: readBack }, 'claims');
      expect(out).toMatch(/writer ids two claims both returned is \["w\d+-r\d+"\]/);
    }
  });
});
