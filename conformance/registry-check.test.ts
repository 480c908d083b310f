import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SharedId, TraceEvent } from '../vocab/index.ts';
import { runOnce } from './harness.ts';
import { checkRegistry } from './registry-check.ts';
import { scheduleArb } from './schedule.ts';
import { sinksOf, workloadArb } from './workload.ts';

const shape = { replicas: 1, processes: 1, sinks: 2 };
const tag = (sink: number) => (sink === 0 ? {} : { sink });
const open = (sink: number, sharedId: SharedId, created = true): TraceEvent => ({ kind: 'open', replica: 0, process: 0, worker: 0, sharedId, created, participants: null, ...tag(sink) });
const finish = (sink: number, sharedId: SharedId, last = true): TraceEvent => ({ kind: 'finish-begin', replica: 0, process: 0, worker: 0, sharedId, last, ...tag(sink) });
const sweep = (removed0: SharedId[], removed1: SharedId[]): TraceEvent => ({
  kind: 'sweep',
  replica: 0,
  process: 0,
  removed: [...removed0, ...removed1],
  sinks: [
    { sink: 0, removed: removed0 },
    { sink: 1, removed: removed1 },
  ],
});

describe('the process-level registry checker', () => {
  it('accepts a sweep that sink 1 started and that removes both sinks dead entries', () => {
    // retained 0: sink 0's first creation (size 1 > 0) starts a sweep; it removes nothing (entry live).
    const trace = [open(0, 0), sweep([], []), finish(0, 0), open(1, 0), open(1, 1), finish(1, 0), sweep([0], [0])];
    // After the first sweep retained = 1: sink 1's second creation makes size 3 > 2 and starts the second.
    const v = checkRegistry(trace, shape);
    expect(v).toMatchObject({ ok: true });
    expect(v.sweeps.map((s) => [s.startedBy, s.removedFrom])).toEqual([
      [0, []],
      [1, [0, 1]],
    ]);
  });

  it('refuses a sweep that no creation started: the size counts every sink, the bound is 2 × retained', () => {
    // After the first sweep retained = 1; a second sweep after one more entry (size 2, not > 2) must not run.
    const trace = [open(0, 0), sweep([], []), open(1, 0), sweep([], [])];
    const v = checkRegistry(trace, shape);
    expect(v.ok).toBe(false);
    if (!v.ok) {
      expect(v.at).toBe(3);
      expect(v.why).toMatch(/no entry creation started \(size 2, retained 1\)/);
    }
  });

  it("refuses a sweep that missed another sink's dead entry", () => {
    const trace = [open(0, 0), sweep([], []), finish(0, 0), open(1, 0), finish(1, 0), open(1, 1), sweep([0], [])];
    const v = checkRegistry(trace, shape);
    expect(v.ok).toBe(false);
    if (!v.ok) expect(v.why).toMatch(/removed \[\] of sink 1; its dead entries are \[0\]/);
  });

  it('refuses a sweep that does not report every sink the registry serves', () => {
    const trace: TraceEvent[] = [open(0, 0), { kind: 'sweep', replica: 0, process: 0, removed: [] }];
    const v = checkRegistry(trace, shape);
    expect(v.ok).toBe(false);
    if (!v.ok) expect(v.why).toMatch(/reported sinks \[0\]; the registry serves \[0, 1\]/);
  });

  it("refuses a handle of one sink that joins an entry only another sink holds (registry-keyed-by-id's join)", () => {
    const v = checkRegistry([open(0, 0), open(1, 0, false)], shape, { settled: false });
    expect(v.ok).toBe(false);
    if (!v.ok) expect(v.why).toMatch(/sink 1's handle on 0 .* joined an entry the registry does not hold for sink 1/);
  });

  it('refuses a settled run whose started sweep never ran', () => {
    const v = checkRegistry([open(0, 0)], shape);
    expect(v.ok).toBe(false);
    if (!v.ok) expect(v.why).toMatch(/started by sink 0's entry creation and never ran/);
  });

  it('an abort clears the replica\'s registries; its restart names the sinks the new incarnation hosts', () => {
    const trace: TraceEvent[] = [
      open(0, 0),
      { kind: 'abort', replica: 0, reason: 'x' },
      { kind: 'restart', replica: 0, lower: 0, sink: 1 },
      open(1, 0),
      { kind: 'sweep', replica: 0, process: 0, removed: [], sinks: [{ sink: 1, removed: [] }] },
    ];
    expect(checkRegistry(trace, shape)).toMatchObject({ ok: true });
  });

  it('holds on every two-sink run of the clean implementation (best-effort and barrier, 30 runs each)', async () => {
    for (const variant of ['best-effort', 'barrier'] as const) {
      const workloads = fc.sample(workloadArb(variant).filter((w) => sinksOf(w) > 1), { numRuns: 30, seed: 11 });
      const schedules = fc.sample(scheduleArb(2, 16, 'mixed'), { numRuns: 30, seed: 12 });
      let sweeps = 0;
      for (const [i, w] of workloads.entries()) {
        const r = await runOnce(w, schedules[i] ?? { choices: [], starve: [] });
        expect(r.failures, `${variant} run ${i}`).toEqual([]);
        expect(r.registry?.ok).toBe(true);
        sweeps += r.registry?.sweeps.length ?? 0;
      }
      expect(sweeps).toBeGreaterThan(0);
    }
  });
});
