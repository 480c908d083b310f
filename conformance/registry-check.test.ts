import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SharedId, TraceEvent } from '../vocab/index.ts';
import { runOnce } from './harness.ts';
import { checkRegistry } from './registry-check.ts';
import { scheduleArb } from './schedule.ts';
import { sinksOf, workloadArb } from './workload.ts';

const shape = { replicas: 1, processes: 1, sinks: 2 };
const tag = (sink: number) => (sink === 0 ? {} : { sink });
const open = (sink: number, sharedId: SharedId, created = true, worker = 0): TraceEvent => ({ kind: 'open', replica: 0, process: 0, worker, sharedId, created, participants: null, ...tag(sink) });
const finish = (sink: number, sharedId: SharedId, last = true): TraceEvent => ({ kind: 'finish-begin', replica: 0, process: 0, worker: 0, sharedId, last, ...tag(sink) });
/** The sweep of `sink`'s worker's builder() call. */
const sweep = (sink: number, removed0: SharedId[], removed1: SharedId[], worker = 0): TraceEvent => ({
  kind: 'sweep',
  replica: 0,
  process: 0,
  worker,
  removed: [...removed0, ...removed1],
  sinks: [
    { sink: 0, removed: removed0 },
    { sink: 1, removed: removed1 },
  ],
  ...tag(sink),
});

describe('the process-level registry checker', () => {
  it("accepts a builder() call's sweep when the map, every sink's entries, outgrew 2 × retained, removing both sinks' dead entries", () => {
    // Sink 0's first call finds 0 entries: no sweep. Sink 1's call finds 1 > 0: it sweeps (entry live,
    // retained 1), then opens. Sink 1's next call finds 2 ≤ 2: no sweep; the one after finds 3 > 2.
    const trace = [open(0, 0), sweep(1, [], []), open(1, 0), finish(0, 0), open(1, 1), finish(1, 0), sweep(1, [0], [0]), open(1, 2)];
    const v = checkRegistry(trace, shape, { settled: false });
    expect(v).toMatchObject({ ok: true });
    expect(v.sweeps.map((s) => [s.startedBy, s.removedFrom])).toEqual([
      [1, []],
      [1, [0, 1]],
    ]);
  });

  it('refuses a sweep the call did not owe, and a call that owed one and did not sweep', () => {
    // After the first sweep retained = 1; the next call finds 2 entries, not more than 2.
    const extra = [open(0, 0), sweep(1, [], []), open(1, 0), sweep(1, [], [])];
    const v = checkRegistry(extra, shape, { settled: false });
    expect(v.ok).toBe(false);
    if (!v.ok) {
      expect(v.at).toBe(3);
      expect(v.why).toMatch(/swept r0 p0, whose registry held 2 entries, not more than 2 × 1/);
    }
    const missing = checkRegistry([open(0, 0), open(1, 0, false)], shape, { settled: false });
    expect(missing.ok).toBe(false);
    if (!missing.ok) expect(missing.why).toMatch(/found 1 entries, more than 2 × 0, and did not sweep/);
  });

  it("refuses a sweep that missed another sink's dead entry", () => {
    const trace = [open(0, 0), finish(0, 0), sweep(1, [], [])];
    const v = checkRegistry(trace, shape);
    expect(v.ok).toBe(false);
    if (!v.ok) expect(v.why).toMatch(/removed \[\] of sink 0; its dead entries are \[0\]/);
  });

  it('refuses a sweep that does not report every sink the registry serves', () => {
    const trace: TraceEvent[] = [open(0, 0), { kind: 'sweep', replica: 0, process: 0, worker: 1, removed: [] }];
    const v = checkRegistry(trace, shape);
    expect(v.ok).toBe(false);
    if (!v.ok) expect(v.why).toMatch(/reported sinks \[0\]; the registry serves \[0, 1\]/);
  });

  it("refuses an open or skip during another call's lock, and a settled run whose call swept and never opened", () => {
    const during = checkRegistry([open(0, 0), sweep(1, [], []), open(0, 1, true, 1)], shape, { settled: false });
    expect(during.ok).toBe(false);
    if (!during.ok) expect(during.why).toMatch(/worker 1 of sink 0 opened on r0 p0 during worker 0 of sink 1's builder\(\) call/);
    const skip: TraceEvent = { kind: 'skip', replica: 0, process: 0, worker: 1, sharedId: 0, early: true };
    const skipped = checkRegistry([open(0, 0), sweep(1, [], []), skip], shape, { settled: false });
    expect(skipped.ok).toBe(false);
    if (!skipped.ok) expect(skipped.why).toMatch(/noted a skip on r0 p0 during worker 0 of sink 1's builder\(\) call/);
    const unopened = checkRegistry([open(0, 0), sweep(1, [], [])], shape);
    expect(unopened.ok).toBe(false);
    if (!unopened.ok) expect(unopened.why).toMatch(/worker 0 of sink 1's builder\(\) call on r0 p0 swept and never opened/);
  });

  it("refuses a handle of one sink that joins an entry only another sink holds (colliding ids' join)", () => {
    const v = checkRegistry([open(0, 0), sweep(1, [], []), open(1, 0, false)], shape, { settled: false });
    expect(v.ok).toBe(false);
    if (!v.ok) expect(v.why).toMatch(/sink 1's handle on 0 .* joined an entry the registry does not hold for sink 1/);
  });

  it('an abort clears the replica\'s registries; its restart names the sinks the new incarnation hosts', () => {
    const trace: TraceEvent[] = [
      open(0, 0),
      { kind: 'abort', replica: 0, reason: 'x' },
      { kind: 'restart', replica: 0, lower: 0, sink: 1 },
      open(1, 0),
      { kind: 'sweep', replica: 0, process: 0, worker: 1, removed: [], sinks: [{ sink: 1, removed: [] }], sink: 1 },
      open(1, 0, false, 1),
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
