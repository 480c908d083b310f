/**
 * What a refusal names and in which order a sweep lists what it removed (misuse/handles.ts, misuse/ids.ts),
 * each shown failing on the fault it exists for: a message that names a namespaced batch by its number
 * alone (ambiguous with several MV sinks on one registry), a registry map ordered by sequence number
 * alone, and handles numbered other than 0, 1, 2… in open order.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BuilderEntry } from '../impl/shared/entry.ts';
import { runScenario, type Scenario } from './misuse/index.ts';

const planted = vi.hoisted(() => ({ bareNames: false, seqOrder: false }));

vi.mock('../impl/shared/batch-id.ts', async (original) => {
  const real = await original<typeof import('../impl/shared/batch-id.ts')>();
  return {
    ...real,
    showId: (id: import('../impl/shared/batch-id.ts').SharedBatchId) => (planted.bareNames ? `${id.seq}` : real.showId(id)),
    compareIds: (a: import('../impl/shared/batch-id.ts').SharedBatchId, b: import('../impl/shared/batch-id.ts').SharedBatchId) => (planted.seqOrder ? a.seq - b.seq : real.compareIds(a, b)),
  };
});

afterEach(() => {
  planted.bareNames = false;
  planted.seqOrder = false;
  vi.restoreAllMocks();
});

async function wrongOver(scenario: Scenario, seeds: number): Promise<string> {
  const wrong: string[] = [];
  for (let seed = 1; seed <= seeds; seed++) wrong.push(...(await runScenario(scenario, seed)).wrong);
  return wrong.join('\n');
}

describe('misuse: what refusals name, the order a sweep lists', () => {
  it('holds on the implementation', async () => {
    expect(await wrongOver('ids', 40)).toBe('');
    expect(await wrongOver('handles', 40)).toBe('');
  });

  it('fails a refusal that names a namespaced batch by its number alone', async () => {
    planted.bareNames = true;
    const wrong = await wrongOver('ids', 20);
    expect(wrong).toMatch(/refused \(push-after-finish\) but the message does not name "push\(\) on shared batch shard-[ab]#\d+"/);
    expect(wrong).toMatch(/refused \(invalid-config\) but the message does not name "shared batch shard-[ab]#\d+: upper 1 must be greater than lower 1"/);
  });

  it('fails a registry whose map orders ids by sequence number alone (the one-sink sweep lists another namespace first)', async () => {
    planted.seqOrder = true;
    expect(await wrongOver('ids', 20)).toMatch(/what each sweep of the one-sink registry removed, in id order is \[.*\], the model says \[/);
  });

  it('fails handles numbered other than in open order from 0 (a refusal names the wrong handle)', async () => {
    const next = BuilderEntry.prototype.nextHandleId;
    vi.spyOn(BuilderEntry.prototype, 'nextHandleId').mockImplementation(function (this: BuilderEntry) {
      return -next.call(this);
    });
    expect(await wrongOver('handles', 40)).toMatch(/but the message does not name .*"\(handle [1-9]\)|on shared batch \d+ \(handle [1-9]\)"/);
  });
});
