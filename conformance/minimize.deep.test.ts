/**
 * The minimizer's neighbours of a fault schedule's overrides (the first compare-and-sets and deletes): an
 * ok in such a list still replaces the storage code of its call, so trailing oks are a simplification of
 * their own, and a list of only oks is one step from none. And of a workload of several MV sinks: any one
 * sink fewer, so an idle sink goes wherever it stands. Then, on real gallery counterexamples, the passes
 * beyond the neighbours: fresh schedules on the workload reached, and among runs as long the one that
 * diverges sooner (lengths counted in events).
 * Deep: most cases shrink real gallery counterexamples, hundreds of runs each.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { candidates, divergenceOf, freshSchedules, minimize, noLonger, reorders, sameFailure, shiftedFaults, shorter } from './minimize.ts';
import { runOnce, type RunReport } from './harness.ts';
import { decodeToken } from './token.ts';
import { workloadArb, type LoadClass, type Workload } from './workload.ts';

// Any one-sink workload: these neighbours keep it as it is (the filter below takes only those; with a
// second sink every neighbour's loads are refitted).
const workload = fc.sample(workloadArb('off').filter((w) => w.sinkLoads === undefined), { seed: 1, numRuns: 1 })[0] as Workload;

const faultNeighbours = (faults: { storage: number[]; aborts: []; heal: number; cas?: number[]; deletes?: number[] }) =>
  [...candidates({ workload, schedule: { choices: [], starve: [], faults } })].flatMap((c) => (c.workload === workload && c.schedule.faults !== undefined ? [c.schedule.faults] : []));

describe('minimize: the overrides of the first compare-and-sets and deletes', () => {
  it('drops a list, trims its trailing oks, and makes each fault ok', () => {
    const got = faultNeighbours({ storage: [], aborts: [], heal: 9, deletes: [0, 3, 0, 0] });
    expect(got).toContainEqual({ storage: [], aborts: [], heal: 9 });
    expect(got).toContainEqual({ storage: [], aborts: [], heal: 9, deletes: [0, 3] });
    expect(got).toContainEqual({ storage: [], aborts: [], heal: 9, deletes: [0, 0, 0, 0] });
  });

  it('treats compare-and-sets the same way; a list of only oks is trimmed to none, never to an empty list', () => {
    const got = faultNeighbours({ storage: [1], aborts: [], heal: 9, cas: [0, 2, 0] });
    expect(got).toContainEqual({ storage: [1], aborts: [], heal: 9 });
    expect(got).toContainEqual({ storage: [1], aborts: [], heal: 9, cas: [0, 2] });
    expect(got).toContainEqual({ storage: [1], aborts: [], heal: 9, cas: [0, 0, 0] });
    const oks = faultNeighbours({ storage: [1], aborts: [], heal: 9, cas: [0, 0] });
    expect(oks.filter((f) => f.cas !== undefined && f.cas.length !== 2)).toEqual([]);
    expect(oks).toContainEqual({ storage: [1], aborts: [], heal: 9 });
  });
});

describe('minimize: the decisive fault earlier', () => {
  it('drops a compare-and-set override, the later ones a call earlier, alone and with the storage faults earlier', () => {
    const got = faultNeighbours({ storage: [0, 4], aborts: [], heal: 9, cas: [3, 2] });
    expect(got).toContainEqual({ storage: [0, 4], aborts: [], heal: 9, cas: [2] });
    expect(got).toContainEqual({ storage: [4], aborts: [], heal: 9, cas: [2] });
    expect(got).toContainEqual({ storage: [], aborts: [], heal: 9, cas: [3] });
  });

  it('drops a storage fault with the later ones a call earlier (a failed call is retried: one call fewer without it)', () => {
    const got = faultNeighbours({ storage: [0, 1, 0, 0, 1], aborts: [], heal: 9 });
    expect(got).toContainEqual({ storage: [0, 0, 0, 1], aborts: [], heal: 9 });
    // The last fault has no later one to move: made ok, as before, but not dropped.
    expect(got.filter((f) => f.storage.length === 4 && f.storage[1] === 1)).toEqual([]);
  });

  it('moves every storage fault one call earlier past a leading ok, and an abort to an earlier step', () => {
    const got = faultNeighbours({ storage: [0, 0, 4], aborts: [], heal: 9, deletes: [0, 1] });
    expect(got).toContainEqual({ storage: [0, 4], aborts: [], heal: 9, deletes: [0, 1] });
    expect(got).toContainEqual({ storage: [0, 0, 4], aborts: [], heal: 9, deletes: [1] });
    const aborts = [...candidates({ workload, schedule: { choices: [], starve: [], faults: { storage: [], aborts: [{ step: 40, replica: 0 }], heal: 90 } } })].flatMap((c) => c.schedule.faults?.aborts ?? []);
    expect(aborts).toContainEqual({ step: 20, replica: 0 });
    expect(aborts).toContainEqual({ step: 39, replica: 0 });
  });
});

describe('minimize: any replica fewer', () => {
  it('drops each replica, the starved actors and aborts of the ones above it renumbered', () => {
    const three = { ...workload, replicas: 3 };
    const schedule = { choices: [], starve: [{ replica: 0, worker: 1 }, { replica: 2, worker: 0 }], faults: { storage: [], aborts: [{ step: 5, replica: 1 }, { step: 8, replica: 2 }], heal: 50 } };
    const fewer = [...candidates({ workload: three, schedule })].filter((c) => c.reshaped === true && c.workload.replicas === 2 && c.workload.intervals === three.intervals);
    const named = fewer.map((c) => ({ starve: c.schedule.starve, aborts: c.schedule.faults?.aborts }));
    // Without replica 2 (the last), 1, and 0.
    expect(named).toContainEqual({ starve: [{ replica: 0, worker: 1 }], aborts: [{ step: 5, replica: 1 }] });
    expect(named).toContainEqual({ starve: [{ replica: 0, worker: 1 }, { replica: 1, worker: 0 }], aborts: [{ step: 8, replica: 1 }] });
    expect(named).toContainEqual({ starve: [{ replica: 1, worker: 0 }], aborts: [{ step: 5, replica: 0 }, { step: 8, replica: 1 }] });
  });
});

describe('minimize: a sink fewer, wherever it stands', () => {
  const rows = (l: LoadClass): LoadClass[][] => [[l, l]];
  const base: Workload = { ...workload, replicas: 1, processes: 1, workersPerProcess: 2, intervals: 1, asOf: 0, knob: [workload.knob[0] ?? 0], barrierFlags: [false] };
  const sinkNeighbours = (w: Workload) =>
    [...candidates({ workload: w, schedule: { choices: [], starve: [] } })].flatMap((c) => (c.reshaped === true && c.workload.intervals === w.intervals && c.workload.workersPerProcess === w.workersPerProcess && c.workload.processes === w.processes && c.workload.replicas === w.replicas ? [c.workload] : []));

  it('drops the first sink of two (its idle loads gone, the other sink the only one) as well as the last', () => {
    const got = sinkNeighbours({ ...base, loads: rows('none'), sinkLoads: [rows('medium')] });
    expect(got.map((w) => [w.loads, w.sinkLoads])).toEqual([
      [rows('none'), undefined],
      [rows('medium'), undefined],
    ]);
    expect(got.every((w) => !('sinkLoads' in w))).toBe(true);
  });

  it('drops a middle sink of three, keeping the others in order', () => {
    const got = sinkNeighbours({ ...base, loads: rows('tiny'), sinkLoads: [rows('none'), rows('large')] });
    expect(got.map((w) => [w.loads, w.sinkLoads])).toEqual([
      [rows('tiny'), [rows('none')]],
      [rows('tiny'), [rows('large')]],
      [rows('none'), [rows('large')]],
    ]);
  });
});

describe('minimize: fresh schedules for the workload reached', () => {
  // A real gallery counterexample (sbkit check --bug stale-hand-appended --seed 3, as fast-check shrank
  // it): two replicas under free pacing, three intervals, PCT. Every greedy neighbour keeps or loses its
  // interleaving; a fresh schedule on the same workload fails sooner, and the greedy passes go on from it.
  const STALE = 'sb1.eyJ2Ijoib2ZmIiwicyI6WzIsMSwxLDMsODE5MiwxMzQyMTc3MjgsMTA0ODU3NiwyNTZdLCJrIjpbODE5Ml0sImciOiIwIiwibCI6WyIyIiwiMiIsIjIiXSwicCI6ImZyZWUiLCJjIjpbXSwieiI6W10sInEiOltdLCJ4IjpbOF0sImIiOiJzdGFsZS1oYW5kLWFwcGVuZGVkIn0';

  it('shortens a counterexample the greedy passes leave as it is, and the result replays', async () => {
    const c = decodeToken(STALE);
    const start = await runOnce(c.workload, c.schedule, c.bug);
    const target = start.failures[0]?.check;
    expect(start.trace.length).toBeGreaterThanOrEqual(27);
    const greedy = await minimize(start, c.bug, 600, 0);
    const fresh = await minimize(start, c.bug);
    expect(greedy.report.trace.length).toBeGreaterThanOrEqual(27);
    expect(fresh.report.trace.length).toBeLessThanOrEqual(21);
    expect(fresh.report.failures[0]?.check).toBe(target);
    const again = await runOnce(fresh.report.workload, fresh.report.schedule, c.bug);
    expect(again.trace.length).toBe(fresh.report.trace.length);
    expect(again.failures.map((f) => f.check)).toEqual(fresh.report.failures.map((f) => f.check));
    // Deterministic: the same start minimizes to the same run.
    expect((await minimize(start, c.bug)).report.schedule).toEqual(fresh.report.schedule);
  });

  it('draws both kinds of schedule, keeping the faults, with the starved actors and without, the same for the same round', () => {
    const s = { choices: [1, 2], starve: [{ replica: 0, worker: 1 }], faults: { storage: [0, 3], aborts: [], heal: 40 } };
    const a = freshSchedules(s, 0);
    expect(a.some((x) => x.pct !== undefined) && a.some((x) => x.pct === undefined)).toBe(true);
    expect(a.every((x) => x.faults === s.faults)).toBe(true);
    for (const pct of [true, false]) {
      const kind = a.filter((x) => (x.pct !== undefined) === pct);
      expect(kind.some((x) => x.starve === s.starve) && kind.some((x) => x.starve.length === 0)).toBe(true);
    }
    expect(freshSchedules(s, 0)).toEqual(a);
    expect(freshSchedules(s, 1)).not.toEqual(a);
  });
});

describe('minimize: among runs as long, the earlier divergence', () => {
  // A real gallery counterexample (sbkit check --bug late-handle-joins-finished-builder --seed 6, as the
  // greedy passes left it: two sinks, the second's late worker joining a finished builder at event 21).
  const LATE = 'sb1.eyJ2IjoiYmVzdC1lZmZvcnQiLCJzIjpbMSwxLDIsMSw4MTkyLDEzNDIxNzcyOCwxMDQ4NTc2LDI1Nl0sImsiOls4MTkyXSwiZyI6IjAiLCJsIjpbIjAyIl0sInAiOiJsb2Nrc3RlcCIsInNsIjpbWyIwMCJdXSwiYyI6W10sInoiOltbMCwxXV0sImIiOiJsYXRlLWhhbmRsZS1qb2lucy1maW5pc2hlZC1idWlsZGVyIn0';

  it('keeps a run as long that diverges sooner', async () => {
    const c = decodeToken(LATE);
    const start = await runOnce(c.workload, c.schedule, c.bug);
    expect(divergenceOf(start)).toBeGreaterThanOrEqual(22);
    const m = await minimize(start, c.bug);
    expect(m.report.trace.length).toBeLessThanOrEqual(start.trace.length);
    expect(divergenceOf(m.report)).toBeLessThanOrEqual(19);
    expect(m.report.failures[0]?.check).toBe(start.failures[0]?.check);
  });

  // sbkit check --bug empty-finish-hands-nothing --seed 2, as the greedy passes left it: the empty finisher
  // w0 is starved, so its wrong hand comes after w1's hand; a fresh schedule without the starved actor
  // reaches it sooner, in as many events.
  const EMPTY = 'sb1.eyJ2IjoiYmVzdC1lZmZvcnQiLCJzIjpbMSwxLDIsMSw4MTkyLDEzNDIxNzcyOCwxMDQ4NTc2LDI1Nl0sImsiOls4MTkyXSwiZyI6IjAxIiwibCI6WyIyMCJdLCJwIjoibG9ja3N0ZXAiLCJuIjoiZmluaXNoIiwiYyI6W10sInoiOltbMCwwXV0sImIiOiJlbXB0eS1maW5pc2gtaGFuZHMtbm90aGluZyJ9';

  it('drops a starved actor that holds the divergence back', async () => {
    const c = decodeToken(EMPTY);
    const start = await runOnce(c.workload, c.schedule, c.bug);
    expect(start.schedule.starve.length).toBeGreaterThan(0);
    expect(divergenceOf(start)).toBeGreaterThanOrEqual(14);
    const m = await minimize(start, c.bug);
    expect(m.report.trace.length).toBeLessThanOrEqual(start.trace.length);
    expect(divergenceOf(m.report)).toBeLessThanOrEqual(12);
    expect(m.report.failures[0]?.check).toBe(start.failures[0]?.check);
  });

  it('orders runs by events, then by where they diverge', () => {
    const run = (events: number, at?: number) =>
      ({ trace: Array.from({ length: events }), failures: [{ kind: 'refinement', check: 'x', why: '', ...(at === undefined ? {} : { at }) }] }) as unknown as RunReport;
    expect(divergenceOf(run(10, 4))).toBe(5);
    expect(divergenceOf(run(10))).toBe(10);
    expect(shorter(run(10, 8), run(11, 2))).toBe(true);
    expect(shorter(run(10, 4), run(10, 6))).toBe(true);
    expect(shorter(run(10, 6), run(10, 6))).toBe(false);
    expect(noLonger(run(10, 6), run(10, 6))).toBe(true);
    expect(noLonger(run(10, 7), run(10, 6))).toBe(false);
  });
});

describe('minimize: the overrides of the first compare-and-sets follow a reshape and a fault gone', () => {
  // A real gallery counterexample (sbkit check --bug restart-rewrites-appended-interval --seed 1, as the
  // greedy passes left it): as-of 1 over three intervals, so the replica bumps the shard first; its
  // claim, the bump and the append each meet a compare-and-set override. Without the as-of interval the
  // bump's compare-and-set is gone, and the overrides and storage faults must move with it.
  const RESTART = 'sb1.eyJ2Ijoib2ZmIiwicyI6WzEsMSwxLDMsODE5MiwxMzQyMTc3MjgsMTA0ODU3NiwyNTZdLCJrIjpbODE5Ml0sImEiOjEsImciOiIwIiwibCI6WyIyIiwiMCIsIjIiXSwicCI6ImxvY2tzdGVwIiwiYyI6W10sInoiOltdLCJmIjp7InMiOiIwMDAwMDAwNCIsImEiOltdLCJoIjoxNywiYyI6IjAzMiJ9LCJiIjoicmVzdGFydC1yZXdyaXRlcy1hcHBlbmRlZC1pbnRlcnZhbCJ9';

  it('drops the as-of interval and a compare-and-set override: fewer events, an earlier divergence', async () => {
    const c = decodeToken(RESTART);
    const start = await runOnce(c.workload, c.schedule, c.bug);
    expect(start.trace.length).toBeGreaterThanOrEqual(19);
    expect(divergenceOf(start)).toBeGreaterThanOrEqual(14);
    const m = await minimize(start, c.bug);
    expect(m.report.trace.length).toBeLessThanOrEqual(17);
    expect(divergenceOf(m.report)).toBeLessThanOrEqual(12);
    expect(m.report.workload.intervals).toBeLessThan(c.workload.intervals);
    expect((m.report.schedule.faults?.cas ?? []).length).toBeLessThan((c.schedule.faults?.cas ?? []).length);
    expect(m.report.failures[0]?.check).toBe(start.failures[0]?.check);
  });

  it('offers a reshaped run the overrides with a call fewer or an ok ahead, with the storage faults earlier', () => {
    const got = shiftedFaults({ choices: [], starve: [], faults: { storage: [0, 0, 4], aborts: [], heal: 9, cas: [0, 3, 2] } }).map((s) => s.faults);
    expect(got).toContainEqual({ storage: [0, 4], aborts: [], heal: 9, cas: [0, 3, 2] });
    expect(got).toContainEqual({ storage: [0, 0, 4], aborts: [], heal: 9, cas: [0, 2] });
    expect(got).toContainEqual({ storage: [0, 0, 4], aborts: [], heal: 9, cas: [2] });
    expect(got).toContainEqual({ storage: [0, 0, 4], aborts: [], heal: 9, cas: [0, 0, 3, 2] });
    expect(got).toContainEqual({ storage: [4], aborts: [], heal: 9, cas: [2] });
    // Bounded: every one is a run per reshaped neighbour, and the greedy passes share one budget.
    const many = shiftedFaults({ choices: [], starve: [], faults: { storage: [0, 0, 4], aborts: [], heal: 9, cas: [0, 3, 2, 2], deletes: [1, 1, 1, 1, 0, 2, 1, 0] } });
    expect(many.length).toBeLessThanOrEqual(48);
  });
});

describe('minimize: a permanent fault as an abort', () => {
  // sbkit check --bug restart-rewrites-appended-interval --seed 2, as the greedy passes left it: the
  // permanent fault waits for the replica's next call to consensus, which comes only after its next
  // mint, stage and hand; an abort of the replica right after the append crashes it sooner.
  const PERMANENT_FAULT = 'sb1.eyJ2Ijoib2ZmIiwicyI6WzEsMSwxLDIsODE5MiwxMzQyMTc3MjgsMTA0ODU3NiwyNTZdLCJrIjpbODE5Ml0sImciOiIwIiwiaSI6NDA5NSwibCI6WyIwIiwiMiJdLCJwIjoibG9ja3N0ZXAiLCJjIjpbXSwieiI6W10sImYiOnsicyI6IjAwNCIsImEiOltdLCJoIjoxNiwiZCI6IjExNDMxMTAxIn0sImIiOiJyZXN0YXJ0LXJld3JpdGVzLWFwcGVuZGVkLWludGVydmFsIn0';

  it('offers the fault made ok and an abort of each replica at steps spread before the heal step', () => {
    const two = { ...workload, replicas: 2 };
    const got = [...candidates({ workload: two, schedule: { choices: [], starve: [], faults: { storage: [0, 4], aborts: [], heal: 24 } } })].flatMap((c) => (c.schedule.faults?.aborts.length === 1 && c.schedule.faults.storage.every((x) => x === 0) ? [c.schedule.faults.aborts[0]] : []));
    expect(got).toContainEqual({ step: 2, replica: 0 });
    expect(got).toContainEqual({ step: 12, replica: 1 });
    expect(got.every((a) => a !== undefined && a.step >= 1 && a.step < 24)).toBe(true);
  });

  // sbkit check --bug restart-rewrites-appended-interval --seed 3, as the greedy passes left it: the
  // same permanent fault, reached through compare-and-set and delete overrides.
  const WITH_OVERRIDES = 'sb1.eyJ2Ijoib2ZmIiwicyI6WzEsMSwxLDIsODE5MiwxMzQyMTc3MjgsMTA0ODU3NiwyNTZdLCJrIjpbODE5Ml0sImciOiIwIiwibCI6WyIwIiwiMiJdLCJwIjoibG9ja3N0ZXAiLCJjIjpbXSwieiI6W10sImYiOnsicyI6IjAwNCIsImEiOltdLCJoIjoxNiwiYyI6IjAwMjIiLCJkIjoiMTExMTAyMTAifSwiYiI6InJlc3RhcnQtcmV3cml0ZXMtYXBwZW5kZWQtaW50ZXJ2YWwifQ';

  it('shortens one whose fault the overrides led to', async () => {
    const c = decodeToken(WITH_OVERRIDES);
    const start = await runOnce(c.workload, c.schedule, c.bug);
    expect(start.trace.length).toBeGreaterThanOrEqual(21);
    const m = await minimize(start, c.bug);
    expect(m.report.trace.length).toBeLessThanOrEqual(16);
    expect(divergenceOf(m.report)).toBeLessThanOrEqual(11);
    expect(m.report.failures[0]?.check).toBe(start.failures[0]?.check);
  });

  it('offers it also without the compare-and-set and delete overrides that led to the failed call', () => {
    const got = [...candidates({ workload, schedule: { choices: [], starve: [], faults: { storage: [0, 4], aborts: [], heal: 24, cas: [0, 2] } } })].flatMap((c) => (c.schedule.faults?.aborts.length === 1 ? [c.schedule.faults] : []));
    expect(got).toContainEqual({ storage: [0, 0], aborts: [{ step: 2, replica: 0 }], heal: 24, cas: [0, 2] });
    expect(got).toContainEqual({ storage: [0, 0], aborts: [{ step: 2, replica: 0 }], heal: 24 });
  });

  it('shortens a real counterexample, diverging sooner', async () => {
    const c = decodeToken(PERMANENT_FAULT);
    const start = await runOnce(c.workload, c.schedule, c.bug);
    expect(start.trace.length).toBeGreaterThanOrEqual(21);
    expect(divergenceOf(start)).toBeGreaterThanOrEqual(16);
    const m = await minimize(start, c.bug);
    expect(m.report.trace.length).toBeLessThanOrEqual(16);
    expect(divergenceOf(m.report)).toBeLessThanOrEqual(11);
    expect(m.report.schedule.faults?.aborts.length).toBe(1);
    expect(m.report.failures[0]?.check).toBe(start.failures[0]?.check);
  });
});

describe('minimize: each pass goes on from the neighbour it kept', () => {
  // sbkit check --bug restart-rewrites-appended-interval --seed 7: a permanent fault reached through
  // delete overrides, under PCT. Its reshaped neighbours cost a run per shifted fault schedule and fresh
  // schedule each; a pass that started again from the first neighbour after every simplification spent
  // the whole budget on them before it reached the fault.
  const BUDGET = 'sb1.eyJ2Ijoib2ZmIiwicyI6WzEsMSwxLDIsODE5MiwxMzQyMTc3MjgsMTA0ODU3NiwyNTZdLCJrIjpbODE5Ml0sImciOiIwIiwibCI6WyIwIiwiMiJdLCJwIjoibG9ja3N0ZXAiLCJjIjpbXSwieiI6W10sInEiOltdLCJ4IjpbXSwiZiI6eyJzIjoiMDAwNCIsImEiOltdLCJoIjoxNywiZCI6IjAxMjA0MTAwIn0sImIiOiJyZXN0YXJ0LXJld3JpdGVzLWFwcGVuZGVkLWludGVydmFsIn0';

  it('reaches the fault within the budget', async () => {
    const c = decodeToken(BUDGET);
    const start = await runOnce(c.workload, c.schedule, c.bug);
    expect(start.trace.length).toBeGreaterThanOrEqual(21);
    const m = await minimize(start, c.bug);
    expect(m.tried).toBeLessThan(600);
    expect(m.report.trace.length).toBeLessThanOrEqual(16);
    expect(divergenceOf(m.report)).toBeLessThanOrEqual(11);
  });
});

describe('minimize: another pending point picked at a step or two', () => {
  const log = (steps: number): string => Array.from({ length: steps }, (_, i) => `${i} r0 w0 stage`).join('\n');

  it('changes one pick (the second-oldest for the oldest, else the one before), or two in a row; strict; none under PCT', () => {
    const c = { workload, schedule: { choices: [0, 3], starve: [] } };
    const got = [...reorders(c, log(3))];
    expect(got.every((r) => r.strict && r.workload === workload)).toBe(true);
    expect(got.map((r) => r.schedule.choices)).toEqual([
      [1, 3],
      [0, 2],
      [0, 3, 1],
      [1, 2],
      [0, 2, 1],
    ]);
    expect([...reorders({ workload, schedule: { choices: [], starve: [], pct: { priorities: [1], changes: [2] } } }, log(3))]).toEqual([]);
  });

  // sbkit check --bug empty-finish-hands-nothing --seed 1, as the passes without reorders left it: 15
  // events, the receiver's empty hand at the 13th, another worker's finish-end before it.
  const EMPTY = 'sb1.eyJ2IjoiYmVzdC1lZmZvcnQiLCJzIjpbMSwxLDIsMSw4MTkyLDEzNDIxNzcyOCwxMDQ4NTc2LDI1Nl0sImsiOls4MTkyXSwiZyI6IjAiLCJsIjpbIjAyIl0sInAiOiJsb2Nrc3RlcCIsIm4iOiJmaW5pc2giLCJjIjpbMCwwLDAsMCwyNywwLDAsNSw0NSw0MywxMCwwLDAsMCwwLDYxXSwieiI6W10sImIiOiJlbXB0eS1maW5pc2gtaGFuZHMtbm90aGluZyJ9';

  it('moves the divergence earlier on the same workload, two picks away', async () => {
    const c = decodeToken(EMPTY);
    const start = await runOnce(c.workload, c.schedule, c.bug);
    expect([start.trace.length, divergenceOf(start)]).toEqual([15, 13]);
    const m = await minimize(start, c.bug, 600, 0);
    expect(m.report.trace.length).toBe(15);
    expect(divergenceOf(m.report)).toBe(12);
    expect(m.report.workload).toEqual(start.workload);
    expect(m.report.failures[0]?.check).toBe(start.failures[0]?.check);
    // At most two picks were changed to another than the oldest (the choices past the start's list were
    // the oldest, 0; the other neighbours drop choices or set them to 0).
    const at = (xs: readonly number[], i: number) => xs[i] ?? 0;
    const len = Math.max(m.report.schedule.choices.length, start.schedule.choices.length);
    const differ = Array.from({ length: len }, (_, i) => i).filter((i) => at(m.report.schedule.choices, i) !== 0 && at(m.report.schedule.choices, i) !== at(start.schedule.choices, i));
    expect(differ.length).toBeGreaterThan(0);
    expect(differ.length).toBeLessThanOrEqual(2);
  });
});

describe('minimize: lockstep pacing with the aborts moved', () => {
  it('tries each abort a few steps earlier and later, within the safety phase', () => {
    const s = { choices: [], starve: [], faults: { storage: [], aborts: [{ step: 11, replica: 0 }], heal: 14 } };
    const steps = shiftedFaults(s).map((x) => x.faults?.aborts[0]?.step);
    expect(steps).toEqual([10, 12, 9, 13, 8, 7, 5]);
    // Lockstep pacing: with the same schedule, and with each abort moved.
    const lockstep = [...candidates({ workload: { ...workload, pacing: 'free' }, schedule: s })].filter((c) => c.workload.pacing === 'lockstep');
    expect(lockstep.map((c) => c.schedule.faults?.aborts[0]?.step)).toEqual([11, 10, 12, 9, 13, 8, 7, 5]);
  });

  // sbkit check --bug restart-rewrites-appended-interval --seed 4, as the passes without the shifted aborts
  // left it: free pacing (a frontier and a poll more), the abort at step 11; under lockstep pacing the
  // same abort lands at step 8.
  const FREE = 'sb1.eyJ2Ijoib2ZmIiwicyI6WzEsMSwxLDIsODE5MiwxMzQyMTc3MjgsMTA0ODU3NiwyNTZdLCJrIjpbODE5Miw4MTkyXSwiZyI6IjAiLCJsIjpbIjAiLCIyIl0sInAiOiJmcmVlIiwiYyI6WzAsMTNdLCJ6IjpbXSwiZiI6eyJzIjoiIiwiYSI6W1sxMSwwXV0sImgiOjIzM30sImIiOiJyZXN0YXJ0LXJld3JpdGVzLWFwcGVuZGVkLWludGVydmFsIn0';

  it('drops free pacing with the abort a few steps earlier', async () => {
    const c = decodeToken(FREE);
    const start = await runOnce(c.workload, c.schedule, c.bug);
    expect([start.trace.length, divergenceOf(start)]).toEqual([18, 13]);
    const m = await minimize(start, c.bug, 600, 0);
    expect(m.report.workload.pacing).toBe('lockstep');
    expect(m.report.schedule.faults?.aborts.map((a) => a.step)).toEqual([8]);
    expect(m.report.trace.length).toBeLessThanOrEqual(16);
    expect(divergenceOf(m.report)).toBeLessThanOrEqual(11);
    expect(m.report.failures[0]?.check).toBe(start.failures[0]?.check);
  });
});

describe('minimize: the same failure', () => {
  it('is the same check; for a cost check, the model refusing the trace stands in (cost is judged only on a trace it accepts)', () => {
    const cost = { kind: 'cost', check: 'cost-compaction.rewrites' } as const;
    expect(sameFailure(cost, cost)).toBe(true);
    expect(sameFailure(cost, { kind: 'refinement', check: 'trace-refines-model' })).toBe(true);
    expect(sameFailure(cost, { kind: 'cost', check: 'cost-blob.deletes' })).toBe(false);
    expect(sameFailure({ kind: 'refinement', check: 'trace-refines-model' }, cost)).toBe(false);
    expect(sameFailure({ kind: 'property', check: 'no-loss-no-duplication' }, { kind: 'refinement', check: 'trace-refines-model' })).toBe(false);
  });
});
