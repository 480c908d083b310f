/**
 * The in-memory registry's defaults (impl/shared/in-memory.ts: the writer id `r0` that prefixes its part
 * keys, the shard id `test-shard`) reach no output of the check: `sbkit check` builds that registry only
 * in the misuse programs (conformance/misuse/), and every program of every scenario that builds one gives
 * the same verdict — the same calls, refusals and judgement, word for word — when the defaults are blank
 * or the shard id is absent (what Stryker's surviving mutants of those defaults make of them).
 */
import { describe, expect, it, vi } from 'vitest';
import type { BugName, PersistConfig } from '../vocab/index.ts';
import type { MemBlob } from '../impl/persist/blob.ts';
import type { Scheduler } from '../impl/seams.ts';
import { runScenario, type Scenario } from '../conformance/misuse/index.ts';

type Options = { scheduler: Scheduler; bugs?: readonly BugName[]; persist?: Partial<PersistConfig>; blob?: MemBlob; shardId?: string };

/** Which defaults the registry is built with: the real ones, or another writer id and shard id. */
const planted = vi.hoisted(() => ({ built: 0, defaults: undefined as undefined | { readonly writerId: string; readonly shardId: (given: string | undefined) => string | undefined } }));

vi.mock('../impl/shared/in-memory.ts', async (original) => {
  const real = await original<typeof import('../impl/shared/in-memory.ts')>();
  const { BugSwitches } = await import('../impl/bugs.ts');
  const { MetricsRecorder } = await import('../impl/metrics.ts');
  const { BlobClient } = await import('../impl/persist/blob-client.ts');
  const { MemBlob } = await import('../impl/persist/blob.ts');
  const { resolvePersistConfig } = await import('../impl/persist/config.ts');
  const { TaskGroup } = await import('../impl/runtime/task-group.ts');
  const { Trace } = await import('../impl/runtime/trace.ts');
  const { SharedBatches } = await import('../impl/shared/shared-batches.ts');
  type TraceEvent = import('../vocab/index.ts').TraceEvent;
  return {
    // The same wiring as in-memory.ts, with the planted defaults in place of `'r0'` and `?? 'test-shard'`.
    inMemoryShared: (opts: Options) => {
      const d = planted.defaults;
      if (d === undefined) return real.inMemoryShared(opts);
      planted.built += 1;
      const scheduler = opts.scheduler;
      const metrics = new MetricsRecorder();
      const blob = opts.blob ?? new MemBlob();
      const tasks = new TaskGroup();
      const events: TraceEvent[] = [];
      const trace = new Trace({ event: (e) => events.push(e) });
      const config = resolvePersistConfig(opts.persist);
      const client = new BlobClient(blob, scheduler, metrics, d.writerId, trace);
      const shardId = d.shardId(opts.shardId) as string;
      const writer = { config, blob: client, metrics, shardId };
      const registry = new SharedBatches({ shard: shardId, replica: 0, process: 0, writer, scheduler, trace, bugs: new BugSwitches(opts.bugs ?? []), spawn: tasks.spawn });
      return { scheduler, metrics, blob, client, tasks, events, trace, writer, registry, config, shardId };
    },
  };
});

/** The misuse scenarios that build an in-memory registry. */
const SCENARIOS: readonly Scenario[] = ['handles', 'barrier', 'failing', 'reuse'];
const SEEDS = 300;

async function verdicts(): Promise<string[]> {
  const out: string[] = [];
  for (const scenario of SCENARIOS) for (let seed = 1; seed <= SEEDS; seed++) out.push(JSON.stringify(await runScenario(scenario, seed)));
  return out;
}

describe("the in-memory registry's defaults reach no output of the check", () => {
  it('every misuse program that builds one gives the same verdict with a blank writer id, a blank shard id or none', async () => {
    planted.defaults = undefined;
    const real = await verdicts();
    expect(real.some((v) => v.includes('"wrong":[]'))).toBe(true);
    for (const defaults of [
      { writerId: '', shardId: (given: string | undefined) => given ?? '' },
      { writerId: 'r0', shardId: (given: string | undefined) => given && 'test-shard' },
    ]) {
      planted.defaults = defaults;
      const built = planted.built;
      expect(await verdicts()).toEqual(real);
      expect(planted.built).toBeGreaterThan(built);
    }
    planted.defaults = undefined;
  }, 120_000);
});
