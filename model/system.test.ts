import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../vocab/index.ts';
import { ConfigError, validateConfig, type ModelConfig } from './config.ts';
import { NOTHING_CUT, buildBatch, commitParts, cutMore, needsFlush, takeBatch } from './parts.ts';

const cutParts = (order: readonly number[], sizes: ReadonlyMap<number, number>, p: typeof persist) => buildBatch(order, sizes, p)?.partBytes ?? [];
import { enabledActions, firstDifference, initialState, isFinal, isSealed, serialize, step, successors } from './system.ts';
import { config, Driver, ev, persist, randomWalk, rng, tiny, u, wide } from './test-support/driver.ts';

const expectKind = <K extends TraceEvent['kind']>(e: TraceEvent, kind: K): Extract<TraceEvent, { kind: K }> => {
  expect(e.kind).toBe(kind);
  return e as Extract<TraceEvent, { kind: K }>;
};

describe('config', () => {
  const good = tiny('barrier');
  const bad: [string, Partial<ModelConfig>][] = [
    ['variant', { variant: 'sometimes' as never }],
    ['replicas', { replicas: 0 }],
    ['processes', { processes: 1.5 }],
    ['workersPerProcess', { workersPerProcess: -1 }],
    ['intervals', { intervals: 0 }],
    ['updates[0].id', { updates: [u(-1, 0, 0, 1)] }],
    ['updates[1].id', { updates: [u(0, 0, 0, 1), u(0, 0, 1, 1)] }],
    ['updates[0].time', { updates: [u(0, 1, 0, 1)] }],
    ['updates[0].worker', { updates: [u(0, 0, 2, 1)] }],
    ['updates[0].size', { updates: [u(0, 0, 0, 0)] }],
    ['persist.blobTargetSize', { persist: { ...persist, blobTargetSize: 0 } }],
    ['persist.inlineSingleMaxBytes', { persist: { ...persist, inlineSingleMaxBytes: -1 } }],
    ['persist.inlineTotalMaxBytes', { persist: { ...persist, inlineTotalMaxBytes: 0 } }],
    ['maxBytesChoices', { maxBytesChoices: [] }],
    ['maxBytesChoices[1]', { maxBytesChoices: [1, 0.5] }],
    ['noData', { noData: 'sometimes' as never }],
  ];
  it.each(bad)('names the bad field %s', (field, over) => {
    const attempt = () => validateConfig({ ...good, ...over });
    expect(attempt).toThrow(ConfigError);
    try {
      attempt();
    } catch (e) {
      expect((e as ConfigError).field).toBe(field);
      expect((e as ConfigError).message).toContain(field);
    }
    expect(() => initialState({ ...good, ...over })).toThrow(ConfigError);
  });
  it('accepts a good config unchanged', () => expect(validateConfig(good)).toBe(good));
});

describe('parts (one rule for shared and own batches)', () => {
  const sizes = new Map([
    [1, 30],
    [2, 40],
    [3, 10],
    [4, 64],
  ]);
  it('cuts a part as soon as the buffer reaches blobTargetSize, in receive order', () => {
    expect(cutParts([1, 2, 3], sizes, persist)).toEqual([70, 10]);
    expect(cutParts([3, 1, 2], sizes, persist)).toEqual([80]);
    expect(cutParts([4], sizes, persist)).toEqual([64]);
    expect(cutParts([], sizes, persist)).toEqual([]);
  });
  it('cutting as updates arrive, in any chunks, builds the batch cutting all at once builds', () => {
    const pick = rng(17);
    for (let trial = 0; trial < 200; trial++) {
      const order = Array.from({ length: pick(7) }, () => 1 + pick(4));
      let cut = NOTHING_CUT;
      for (let i = 0; i < order.length; ) {
        const n = 1 + pick(order.length - i);
        cut = cutMore(cut, order.slice(i, i + n), sizes, persist.blobTargetSize);
        i += n;
      }
      expect(takeBatch(cut)).toEqual(buildBatch(order, sizes, persist));
    }
  });
  it('keeps no push order: orders that cut the same parts are one state, others are not', () => {
    // 10 + 30 buffered either way
    expect(cutMore(NOTHING_CUT, [3, 1], sizes, 64)).toEqual(cutMore(NOTHING_CUT, [1, 3], sizes, 64));
    // [64] then 30 + 40 = [64, 70]; 30 + 40 then 64 = [70, 64]: parts in cut order differ
    expect(cutMore(NOTHING_CUT, [4, 1, 2], sizes, 64)).not.toEqual(cutMore(NOTHING_CUT, [1, 2, 4], sizes, 64));
  });
  it('inline iff below inlineSingleMaxBytes; nothing received → no batch', () => {
    expect(buildBatch([1, 2, 3], sizes, persist)).toEqual({ updates: [1, 2, 3], partBytes: [70, 10] });
    expect(buildBatch([], sizes, persist)).toBeNull();
    expect(commitParts([{ updates: [3], partBytes: [10] }, { updates: [1], partBytes: [32] }], persist, false).parts).toEqual({
      hollow: 1,
      inline: 1,
    });
  });
  it('inline backpressure refuses when state would reach the total (exactly at it too); after the flush every part is hollow', () => {
    const p = { ...persist, inlineTotalMaxBytes: 100 };
    const batches = [{ updates: [3], partBytes: [10, 20] }];
    expect(needsFlush(batches, 69, p)).toBe(false);
    expect(needsFlush(batches, 70, p)).toBe(true); // 70 + 30 = 100: at the limit is refused
    expect(needsFlush([{ updates: [4], partBytes: [64] }], 99, p)).toBe(false); // hollow: no inline bytes
    expect(commitParts(batches, p, false)).toEqual({ parts: { hollow: 0, inline: 2 }, inlineBytesAdded: 30 });
    expect(commitParts(batches, p, true)).toEqual({ parts: { hollow: 2, inline: 0 }, inlineBytesAdded: 0 });
  });
});

describe('per replica: frontier, mint, round robin, sharedId', () => {
  it('advances the frontier to K, mints [lower, desired) with sharedId = seq and appendWorker = seq mod P·W', () => {
    const cfg = config({ variant: 'off', intervals: 3, updates: [u(0, 0, 0, 1), u(1, 2, 1, 1)] });
    const d = new Driver(cfg);
    expect(expectKind(d.do(ev.frontier()), 'frontier').upper).toBe(1);
    expect(expectKind(d.do(ev.mint(7)), 'mint').desc).toEqual({ lower: 0, upper: 1, appendWorker: 0, sharedId: 0, maxBytes: 7, barrier: false });
    d.all(ev.frontier(), ev.frontier());
    expect(step(cfg, d.state, { kind: 'frontier', replica: 0, upper: 4 })).toMatchObject({
      ok: false,
      reason: "not enabled: frontier: replica 0's desired frontier is already 3",
    });
    expect(step(cfg, d.state, ev.mint(1))).toMatchObject({ ok: false, reason: expect.stringContaining('already has a live description') });
    d.all(ev.stage(0), ev.stage(1), ev.ownBatch(0), ev.hand(0), ev.hand(1), ev.append());
    expect(expectKind(d.do(ev.mint(0)), 'mint').desc).toEqual({ lower: 1, upper: 3, appendWorker: 1, sharedId: 1, maxBytes: 0, barrier: false });
    d.drain();
    expect(isSealed(d.state)).toBe(true);
    expect(step(cfg, d.state, ev.mint(1)).ok).toBe(false);
  });

  it('refuses a mint with a bad knob value and a mint with nothing to do', () => {
    const cfg = tiny('off');
    const s = initialState(cfg);
    expect(step(cfg, s, ev.mint(1))).toMatchObject({ reason: expect.stringContaining('is not below its desired frontier') });
    const d = new Driver(cfg);
    d.do(ev.frontier());
    expect(step(cfg, d.state, ev.mint(-1))).toMatchObject({ reason: expect.stringContaining('maxBytes must be a non-negative integer') });
    expect(step(cfg, d.state, ev.mint(0.5)).ok).toBe(false);
  });

  it('takes the mint event\'s maxBytes as input (not only the configured choices)', () => {
    const cfg = tiny('best-effort');
    const d = new Driver(cfg);
    d.do(ev.frontier());
    expect(step(cfg, d.state, { kind: 'mint', replica: 0, desc: { lower: 0, upper: 1, appendWorker: 0, sharedId: 0, maxBytes: 12345, barrier: false } }).ok).toBe(true);
  });
});

describe('routing (strict threshold)', () => {
  const cfg = (variant: 'off' | 'best-effort' | 'barrier') =>
    config({ variant, updates: [u(0, 0, 0, 20), u(1, 0, 0, 30), u(2, 0, 1, 49)] });
  it('shares below maxBytes, falls back at or above it, routes none without updates', () => {
    const d = new Driver(cfg('best-effort'));
    d.all(ev.frontier(), ev.mint(50));
    const s0 = expectKind(d.do(ev.stage(0)), 'stage');
    const s1 = expectKind(d.do(ev.stage(1)), 'stage');
    expect([s0.updates, s0.bytes, s0.route]).toEqual([[0, 1], 50, 'own']);
    expect([s1.updates, s1.bytes, s1.route]).toEqual([[2], 49, 'shared']);
  });
  it('maxBytes = 0 disables sharing, also for the barrier (no skips)', () => {
    const d = new Driver(cfg('barrier'));
    d.all(ev.frontier(), ev.mint(0));
    expect(expectKind(d.do(ev.stage(1)), 'stage').route).toBe('own');
    expect(enabledActions(d.cfg, d.state).some((e) => e.kind === 'skip')).toBe(false);
    d.do(ev.ownBatch(1));
  });
  it('off never shares', () => {
    const d = new Driver(cfg('off'));
    d.all(ev.frontier(), ev.mint(1000));
    expect(expectKind(d.do(ev.stage(1)), 'stage').route).toBe('own');
  });
  it('a worker with nothing staged routes none and hands nothing', () => {
    const d = new Driver(config({ variant: 'best-effort', updates: [u(0, 0, 0, 1)] }));
    d.all(ev.frontier(), ev.mint(10));
    expect(expectKind(d.do(ev.stage(1)), 'stage').route).toBe('none');
    expect(expectKind(d.do(ev.hand(1)), 'hand').batches).toEqual([]);
  });
});

describe('best-effort: refcounts, receivers, overlap groups, chunked pushes', () => {
  const cfg = config({
    variant: 'best-effort',
    updates: [u(0, 0, 0, 30), u(1, 0, 1, 30), u(2, 0, 0, 10), u(3, 0, 1, 10)],
  });

  it('chunks are consecutive prefixes of the staged order; parts are cut in push order', () => {
    const d = new Driver(cfg);
    d.all(ev.frontier(), ev.mint(1000), ev.stage(0), ev.stage(1));
    expect(expectKind(d.do(ev.open(0)), 'open').created).toBe(true);
    expect(expectKind(d.do(ev.open(1)), 'open').created).toBe(false);
    expect(step(cfg, d.state, ev.push(0, [2]))).toMatchObject({
      ok: false,
      reason: "not enabled: push: worker 0's push [2] does not continue its staged updates [0, 2] after 0 pushed",
    });
    d.all(ev.push(0, [0]), ev.push(1, [1]), ev.push(0, [2]));
    expect(step(cfg, d.state, ev.finishBegin(1)).ok).toBe(false);
    d.do(ev.push(1, [3]));
    expect(expectKind(d.do(ev.finishBegin(1)), 'finish-begin').last).toBe(false);
    expect(expectKind(d.do(ev.finishEnd(1)), 'finish-end').received).toBeNull();
    expect(expectKind(d.do(ev.finishBegin(0)), 'finish-begin').last).toBe(true);
    // push order 0(30) 1(30) 2(10) → cut at 70 ≥ 64; then 3(10) → a last inline part.
    expect(expectKind(d.do(ev.finishEnd(0)), 'finish-end').received).toEqual({
      updates: [0, 1, 2, 3],
      parts: { hollow: 1, inline: 1 },
      partBytes: [70, 10],
    });
    d.all(ev.hand(0), ev.hand(1));
    const a = expectKind(d.do(ev.append()), 'append');
    expect(a).toMatchObject({ batches: 1, parts: { hollow: 1, inline: 1 }, updates: [0, 1, 2, 3], result: { ok: true } });
  });

  it('a handle opened after every earlier handle finished starts a new instance (overlap groups)', () => {
    const d = new Driver(cfg);
    d.all(ev.frontier(), ev.mint(1000), ev.stage(0), ev.open(0), ev.push(0, [0, 2]));
    expect(expectKind(d.do(ev.finishBegin(0)), 'finish-begin').last).toBe(true);
    d.do(ev.stage(1));
    expect(expectKind(d.do(ev.open(1)), 'open').created).toBe(true);
    d.do(ev.push(1, [1, 3]));
    expect(expectKind(d.do(ev.finishBegin(1)), 'finish-begin').last).toBe(true);
    expect(expectKind(d.do(ev.finishEnd(0)), 'finish-end').received?.updates).toEqual([0, 2]);
    expect(expectKind(d.do(ev.finishEnd(1)), 'finish-end').received?.updates).toEqual([1, 3]);
    d.all(ev.hand(1), ev.hand(0));
    expect(expectKind(d.do(ev.append()), 'append')).toMatchObject({ batches: 2, parts: { hollow: 2, inline: 0 } });
  });

  it('reports the first differing predicted field with the model\'s event', () => {
    const d = new Driver(cfg);
    d.all(ev.frontier(), ev.mint(1000), ev.stage(0), ev.open(0), ev.push(0, [0, 2]));
    const wrong: TraceEvent = { kind: 'finish-begin', replica: 0, process: 0, worker: 0, sharedId: 0, last: false };
    const r = step(cfg, d.state, wrong);
    expect(r).toEqual({
      ok: false,
      reason: 'predicted field differs: finish-begin.last expected true, got false',
      expected: { ...wrong, last: true },
    });
    expect(step(cfg, d.state, { ...wrong, last: true, sharedId: 3 })).toMatchObject({
      reason: 'predicted field differs: finish-begin.sharedId expected 0, got 3',
    });
  });
});

describe('part counts: each append event carries the model\'s batches, parts and result', () => {
  const cfg = config({
    variant: 'best-effort',
    intervals: 2,
    updates: [u(0, 0, 0, 30), u(1, 0, 1, 40), u(2, 1, 0, 10), u(3, 1, 1, 500)],
  });

  it('one shared hollow part, then a shared inline part beside an own hollow one; a wrong count is named', () => {
    const d = new Driver(cfg);
    d.all(ev.frontier(), ev.mint(1000), ev.stage(0), ev.stage(1), ev.open(0), ev.open(1));
    d.all(ev.push(0, [0]), ev.push(1, [1]), ev.finishBegin(0), ev.finishBegin(1), ev.finishEnd(0), ev.finishEnd(1));
    d.all(ev.hand(0), ev.hand(1));
    const wrong: TraceEvent = { ...expectKind(ev.append(), 'append'), lower: 0, upper: 1, batches: 1, parts: { hollow: 2, inline: 0 } };
    expect(step(cfg, d.state, wrong)).toMatchObject({
      ok: false,
      reason: 'predicted field differs: append.parts.hollow expected 1, got 2',
      expected: { kind: 'append', parts: { hollow: 1, inline: 0 } },
    });
    d.all(ev.append(), ev.frontier(), ev.mint(100));
    d.drain();
    const appends = d.trace.filter((e) => e.kind === 'append');
    expect(appends.map((a) => a.kind === 'append' && [a.lower, a.upper, a.batches, a.parts, a.result])).toEqual([
      [0, 1, 1, { hollow: 1, inline: 0 }, { ok: true }],
      [1, 2, 2, { hollow: 1, inline: 1 }, { ok: true }],
    ]);
  });
});

describe('barrier: pending participants, early skips, deliverer', () => {
  const cfg = config({
    variant: 'barrier',
    workersPerProcess: 3,
    updates: [u(0, 0, 0, 10), u(1, 0, 1, 10), u(2, 0, 2, 500)],
  });

  it('records an early skip, counts it at creation, and delivers to the last finisher', () => {
    const d = new Driver(cfg);
    d.all(ev.frontier(), ev.mint(100), ev.stage(2));
    expect(expectKind(d.do(ev.skip(2)), 'skip').early).toBe(true);
    d.all(ev.stage(0), ev.stage(1), ev.open(0), ev.open(1), ev.push(0, [0]), ev.push(1, [1]));
    expect(expectKind(d.do(ev.finishBegin(1)), 'finish-begin').last).toBe(false);
    expect(step(cfg, d.state, ev.finishEnd(1))).toMatchObject({
      reason: 'not enabled: finish-end: worker 1 waits at the barrier of builder 0 (pending 1)',
    });
    expect(expectKind(d.do(ev.finishBegin(0)), 'finish-begin').last).toBe(true);
    expect(expectKind(d.do(ev.finishEnd(1)), 'finish-end').received).toBeNull();
    expect(expectKind(d.do(ev.finishEnd(0)), 'finish-end').received?.updates).toEqual([0, 1]);
    d.do(ev.ownBatch(2));
    d.all(ev.hand(0), ev.hand(1), ev.hand(2));
    expect(expectKind(d.do(ev.append()), 'append')).toMatchObject({ batches: 2, updates: [0, 1, 2] });
  });

  it('a late skip finalizes the barrier; the deliverer stays the last finisher', () => {
    const d = new Driver(cfg);
    d.all(ev.frontier(), ev.mint(100), ev.stage(0), ev.stage(1), ev.stage(2), ev.open(0), ev.open(1));
    d.all(ev.push(0, [0]), ev.push(1, [1]), ev.finishBegin(1), ev.finishBegin(0));
    expect(expectKind(d.do(ev.skip(2)), 'skip').early).toBe(false);
    expect(expectKind(d.do(ev.finishEnd(1)), 'finish-end').received).toBeNull();
    expect(expectKind(d.do(ev.finishEnd(0)), 'finish-end').received?.updates).toEqual([0, 1]);
  });

  it('removes the skip record when every participant skipped', () => {
    const c = config({ variant: 'barrier', updates: [u(0, 0, 0, 500), u(1, 0, 1, 500)] });
    const d = new Driver(c);
    d.all(ev.frontier(), ev.mint(100), ev.stage(0), ev.stage(1));
    expect(expectKind(d.do(ev.skip(0)), 'skip').early).toBe(true);
    expect(expectKind(d.do(ev.skip(1)), 'skip').early).toBe(true);
    expect(d.state.replicas[0]?.registries[0]?.builders[0]?.context.earlySkips).toBe(0);
    d.drain();
    expect(isSealed(d.state)).toBe(true);
  });
});

describe("no-data policy 'finish': a worker with no data opens a handle and finishes it empty", () => {
  // Worker 0 has data, worker 1 has none (1 process of 2 workers); maxBytes 100 shares.
  const cfg = (variant: 'off' | 'best-effort' | 'barrier', noData: 'skip' | 'finish' = 'finish') =>
    config({ variant, noData, updates: [u(0, 0, 0, 10)] });

  it("routes empty only while the description is shared: never with 'skip', off or maxBytes = 0", () => {
    for (const [c, maxBytes, route] of [
      [cfg('best-effort'), 100, 'empty'],
      [cfg('barrier'), 100, 'empty'],
      [cfg('best-effort', 'skip'), 100, 'none'],
      [cfg('barrier'), 0, 'none'],
      [cfg('off'), 100, 'none'],
    ] as const) {
      const d = new Driver(c);
      d.all(ev.frontier(), ev.mint(maxBytes));
      expect(expectKind(d.do(ev.stage(1)), 'stage'), `${c.variant} ${c.noData} ${maxBytes}`).toMatchObject({ updates: [], route });
    }
  });

  it('best-effort: open, then finish-begin with nothing pushed; the empty handle held last receives the shared batch and hands it', () => {
    const d = new Driver(cfg('best-effort'));
    d.all(ev.frontier(), ev.mint(100), ev.stage(0), ev.stage(1), ev.open(0), ev.open(1), ev.push(0, [0]));
    // The empty handle has nothing to push: a push is not enabled, finish-begin is.
    expect(step(d.cfg, d.state, { ...ev.push(1, [0]) }).ok).toBe(false);
    expect(enabledActions(d.cfg, d.state).filter((e) => 'worker' in e && e.worker === 1).map((e) => e.kind)).toEqual(['finish-begin']);
    expect(expectKind(d.do(ev.finishBegin(0)), 'finish-begin').last).toBe(false);
    expect(expectKind(d.do(ev.finishBegin(1)), 'finish-begin').last).toBe(true);
    expect(expectKind(d.do(ev.finishEnd(0)), 'finish-end').received).toBeNull();
    expect(expectKind(d.do(ev.finishEnd(1)), 'finish-end').received?.updates).toEqual([0]);
    expect(expectKind(d.do(ev.hand(0)), 'hand').batches).toEqual([]);
    expect(expectKind(d.do(ev.hand(1)), 'hand').batches.map((b) => b.updates)).toEqual([[0]]);
    expect(expectKind(d.do(ev.append()), 'append')).toMatchObject({ batches: 1, updates: [0], result: { ok: true } });
  });

  it('best-effort: an empty handle that opens after the others finished starts its own instance and gets nothing', () => {
    const d = new Driver(cfg('best-effort'));
    d.all(ev.frontier(), ev.mint(100), ev.stage(0), ev.open(0), ev.push(0, [0]), ev.finishBegin(0), ev.finishEnd(0), ev.stage(1));
    expect(expectKind(d.do(ev.open(1)), 'open').created).toBe(true);
    expect(expectKind(d.do(ev.finishBegin(1)), 'finish-begin').last).toBe(true);
    expect(expectKind(d.do(ev.finishEnd(1)), 'finish-end').received).toBeNull();
    d.all(ev.hand(0), ev.hand(1));
    expect(expectKind(d.do(ev.append()), 'append')).toMatchObject({ batches: 1, updates: [0] });
  });

  it('barrier: no skip; the empty finisher arrives by finish and, finishing last, is the deliverer', () => {
    const d = new Driver(cfg('barrier'));
    d.all(ev.frontier(), ev.mint(100), ev.stage(0), ev.stage(1));
    expect(enabledActions(d.cfg, d.state).some((e) => e.kind === 'skip')).toBe(false);
    expect(step(d.cfg, d.state, ev.skip(1))).toMatchObject({ ok: false });
    expect(expectKind(d.do(ev.open(1)), 'open')).toMatchObject({ created: true, participants: 2 });
    d.all(ev.open(0), ev.push(0, [0]), ev.finishBegin(0));
    expect(expectKind(d.do(ev.finishBegin(1)), 'finish-begin').last).toBe(true);
    expect(expectKind(d.do(ev.finishEnd(0)), 'finish-end').received).toBeNull();
    expect(expectKind(d.do(ev.finishEnd(1)), 'finish-end').received?.updates).toEqual([0]);
    d.all(ev.hand(0), ev.hand(1));
    expect(expectKind(d.do(ev.append()), 'append')).toMatchObject({ batches: 1, updates: [0] });
  });

  it('barrier: a process with no data at all finishes empty handles and appends nothing from them', () => {
    const d = new Driver(config({ variant: 'barrier', noData: 'finish', updates: [] }));
    d.all(ev.frontier(), ev.mint(100), ev.stage(0), ev.stage(1), ev.open(0), ev.open(1), ev.finishBegin(0), ev.finishBegin(1));
    expect(expectKind(d.do(ev.finishEnd(0)), 'finish-end').received).toBeNull();
    expect(expectKind(d.do(ev.finishEnd(1)), 'finish-end').received).toBeNull();
    d.all(ev.hand(0), ev.hand(1));
    expect(expectKind(d.do(ev.append()), 'append')).toMatchObject({ batches: 0, updates: [] });
    d.drain();
    expect(isSealed(d.state)).toBe(true);
  });

  it("rejects an implementation that skips the open or reports a skip instead (the trace of 'skip' under 'finish')", () => {
    const d = new Driver(cfg('barrier'));
    d.all(ev.frontier(), ev.mint(100), ev.stage(0));
    const stage1 = step(d.cfg, d.state, { kind: 'stage', replica: 0, process: 0, worker: 1, sharedId: 0, updates: [], bytes: 0, route: 'none' });
    expect(stage1).toMatchObject({ ok: false, reason: expect.stringContaining('route') });
    d.do(ev.stage(1));
    expect(step(d.cfg, d.state, ev.hand(1))).toMatchObject({ ok: false, reason: expect.stringContaining('must open its handle next') });
  });

  for (const variant of ['best-effort', 'barrier'] as const) {
    it(`${variant}: every enabled action is accepted by step; random walks end sealed (idle workers finish empty)`, () => {
      const c = wide({ variant, noData: 'finish', maxBytesChoices: [0, 50, 1000], barrierChoices: [false, true] });
      const pick = rng(3);
      let empties = 0;
      for (let walk = 0; walk < 12; walk++) {
        const { trace, state } = randomWalk(c, pick, (s, next) => {
          for (const { event } of next) expect(step(c, s, event).ok).toBe(true);
        });
        empties += trace.filter((e) => e.kind === 'stage' && e.route === 'empty').length;
        // With the policy on, a worker with no data routes none only when its description is not shared.
        const knob = new Map<string, number>();
        for (const e of trace) {
          if (e.kind === 'mint') knob.set(`${e.replica}/${e.desc.sharedId}`, e.desc.maxBytes);
          if (e.kind === 'stage' && e.route === 'none') expect(knob.get(`${e.replica}/${e.sharedId}`)).toBe(0);
        }
        expect(isSealed(state)).toBe(true);
      }
      expect(empties).toBeGreaterThan(0);
    });
  }
});

describe('append: mismatch and delete across replicas', () => {
  const cfg = config({ variant: 'off', replicas: 2 });
  it('the second replica is refused, deletes its batches, and moves its lower to the shard\'s upper', () => {
    const d = new Driver(cfg);
    for (const r of [0, 1]) d.all(ev.frontier(r), ev.mint(0, r), ev.stage(0, 0, r), ev.stage(1, 0, r));
    for (const r of [0, 1]) d.all(ev.ownBatch(0, 0, r), ev.ownBatch(1, 0, r), ev.hand(0, 0, r), ev.hand(1, 0, r));
    expect(expectKind(d.do(ev.append(0)), 'append').result).toEqual({ ok: true });
    expect(step(cfg, d.state, ev.delete(1)).ok).toBe(false);
    expect(expectKind(d.do(ev.append(1)), 'append')).toMatchObject({ batches: 2, result: { ok: false, current: 1 } });
    expect(step(cfg, d.state, ev.append(1))).toMatchObject({ reason: expect.stringContaining('already appended') });
    expect(step(cfg, d.state, ev.frontier(1)).ok).toBe(false);
    expect(expectKind(d.do(ev.delete(1)), 'delete')).toEqual({ kind: 'delete', replica: 1, lower: 0, batches: 2, reason: 'mismatch' });
    expect(isFinal(cfg, d.state)).toBe(true);
    expect(isSealed(d.state)).toBe(true);
    expect(d.state.history.appends[1]?.deleted).toBe(2);
  });
  it('a refused append with no batches ends the description at once', () => {
    const c = config({ variant: 'off', replicas: 2, intervals: 2, updates: [u(0, 1, 0, 1)] });
    const d = new Driver(c);
    d.all(ev.frontier(0), ev.mint(0, 0), ev.stage(0), ev.stage(1), ev.hand(0), ev.hand(1), ev.append(0));
    d.all(ev.frontier(1), ev.mint(0, 1), ev.stage(0, 0, 1), ev.stage(1, 0, 1), ev.hand(0, 0, 1), ev.hand(1, 0, 1));
    expect(expectKind(d.do(ev.append(1)), 'append').result).toEqual({ ok: false, current: 1 });
    expect(d.state.replicas[1]?.mint.context).toMatchObject({ lower: 1, live: null });
  });
  it('an append waits for every worker to hand', () => {
    const d = new Driver(tiny('off'));
    d.all(ev.frontier(), ev.mint(0), ev.stage(0), ev.ownBatch(0), ev.hand(0));
    expect(step(d.cfg, d.state, ev.append())).toMatchObject({ reason: "not enabled: append: replica 0's append waits for workers 1 to hand" });
  });
  it('inline backpressure turns the append\'s inline parts hollow once state would be full', () => {
    const c = config({ variant: 'off', intervals: 2, updates: [u(0, 0, 0, 20), u(1, 1, 0, 20)], persist: { ...persist, inlineTotalMaxBytes: 40 } });
    const d = new Driver(c);
    d.all(ev.frontier(), ev.mint(0), ev.stage(0), ev.stage(1), ev.ownBatch(0), ev.hand(0), ev.hand(1));
    expect(expectKind(d.do(ev.append()), 'append').parts).toEqual({ hollow: 0, inline: 1 });
    d.all(ev.frontier(), ev.mint(0), ev.stage(0), ev.stage(1), ev.ownBatch(0), ev.hand(0), ev.hand(1));
    // 20 + 20 = 40 reaches the limit: refused first (its own step), the one inline part flushed.
    expect(step(c, d.state, ev.append())).toMatchObject({ ok: false, reason: expect.stringContaining('refused by inline backpressure first') });
    expect(expectKind(d.do(ev.backpressure()), 'backpressure')).toMatchObject({ lower: 1, inlineBytes: 20, adding: 20, flushed: 1 });
    expect(step(c, d.state, ev.backpressure()).ok).toBe(false); // flushed already
    expect(expectKind(d.do(ev.append()), 'append').parts).toEqual({ hollow: 1, inline: 0 });
    expect(d.state.shard.inlineBytes).toBe(20);
  });

  it('the refusal and the retry are two steps: another replica may append in between, and the retry is a mismatch', () => {
    const c = config({ variant: 'off', replicas: 2, intervals: 2, updates: [u(0, 0, 0, 20), u(1, 1, 0, 20)], persist: { ...persist, inlineTotalMaxBytes: 40 } });
    const d = new Driver(c);
    d.all(ev.frontier(0), ev.frontier(1), ev.mint(0, 0), ev.mint(0, 1));
    d.all(ev.stage(0, 0, 0), ev.stage(1, 0, 0), ev.ownBatch(0, 0, 0), ev.hand(0, 0, 0), ev.hand(1, 0, 0), ev.append(0));
    d.all(ev.stage(0, 0, 1), ev.stage(1, 0, 1), ev.ownBatch(0, 0, 1), ev.hand(0, 0, 1), ev.hand(1, 0, 1));
    // replica 1's append of [0,1) mismatches; it deletes; replica 0 goes on to [1,2) and is refused …
    d.all(ev.append(1), ev.delete(1), ev.frontier(0), ev.mint(0, 0), ev.stage(0, 0, 0), ev.stage(1, 0, 0), ev.ownBatch(0, 0, 0), ev.hand(0, 0, 0), ev.hand(1, 0, 0));
    d.do(ev.backpressure(0));
    // … and before its retry replica 1 appends [1,2) itself (its inline part is flushed too).
    d.all(ev.frontier(1), ev.mint(0, 1), ev.stage(0, 0, 1), ev.stage(1, 0, 1), ev.ownBatch(0, 0, 1), ev.hand(0, 0, 1), ev.hand(1, 0, 1), ev.backpressure(1), ev.append(1));
    expect(expectKind(d.do(ev.append(0)), 'append')).toMatchObject({ parts: { hollow: 1, inline: 0 }, result: { ok: false, current: 2 } });
    expect(expectKind(d.do(ev.delete(0)), 'delete').batches).toBe(1);
  });

  it('a sink whose as-of is ahead of the shard bumps it with an empty append first, then appends', () => {
    const c = config({ variant: 'off', workersPerProcess: 1, intervals: 3, asOf: 2, updates: [u(0, 2, 0, 20)] });
    const d = new Driver(c);
    d.all(ev.frontier(), ev.mint(0), ev.stage(0), ev.ownBatch(0), ev.hand(0));
    expect(d.state.replicas[0]?.mint.context.live).toMatchObject({ lower: 2, upper: 3 });
    expect(step(c, d.state, ev.append())).toMatchObject({ ok: false, reason: expect.stringContaining('must first bump the shard from 0 to its lower 2') });
    expect(expectKind(d.do(ev.bump()), 'bump')).toMatchObject({ from: 0, to: 2 });
    expect(expectKind(d.do(ev.append()), 'append')).toMatchObject({ lower: 2, upper: 3, result: { ok: true } });
    expect(d.state.history.shardUppers).toEqual([0, 2, 3]);
  });
});

describe('sweep: inside every builder() call, under the registry lock, before the lookup', () => {
  it('a call that finds more than 2·retained entries sweeps first, joins as well as creates; the lookup follows', () => {
    const c = config({ variant: 'best-effort', updates: [u(0, 0, 0, 1), u(1, 0, 1, 1)] });
    const d = new Driver(c);
    d.all(ev.frontier(), ev.mint(10), ev.stage(0), ev.stage(1));
    // Worker 0's call finds the map empty: no sweep is due.
    expect(step(c, d.state, ev.sweep(0))).toMatchObject({ reason: expect.stringContaining('holds 0 entries, not more than 2 × 0: no sweep is due') });
    d.do(ev.open(0));
    // Worker 1's call (a join) finds 1 entry > 2 × 0: its open is not enabled until it swept.
    expect(step(c, d.state, ev.open(1))).toMatchObject({ reason: expect.stringContaining("worker 1's builder() call must sweep first") });
    expect(expectKind(d.do(ev.sweep(1)), 'sweep')).toMatchObject({ worker: 1, removed: [] }); // entry 0 live: retained 1
    // The lock is worker 1's until its open: worker 0 can still push and finish (they never take it).
    expect(step(c, d.state, ev.sweep(1))).toMatchObject({ reason: expect.stringContaining('already swept') });
    d.all(ev.push(0, [0]));
    expect(expectKind(d.do(ev.open(1)), 'open').created).toBe(false);
  });
  it('the six-id sequence: each call after the first removes the previous, dead entry', () => {
    const c = config({ variant: 'best-effort', workersPerProcess: 1, intervals: 6, updates: Array.from({ length: 6 }, (_, t) => u(t, t, 0, 1)) });
    const d = new Driver(c);
    const removed: (readonly number[])[] = [];
    for (let t = 0; t < 6; t++) {
      d.all(ev.frontier(), ev.mint(10), ev.stage(0), ev.open(0), ev.push(0, [t]), ev.finishBegin(0), ev.finishEnd(0), ev.hand(0), ev.append());
    }
    for (const e of d.trace) if (e.kind === 'sweep') removed.push(e.removed);
    expect(removed).toEqual([[0], [1], [2], [3], [4]]);
    expect(d.state.replicas[0]?.registries[0]?.sweep.context.retained).toBe(0);
  });
  it('while a call holds the lock no other open or skip of the process is enabled', () => {
    const c = config({ variant: 'barrier', workersPerProcess: 3, updates: [u(0, 0, 0, 1), u(1, 0, 1, 1)], noData: 'skip' });
    const d = new Driver(c);
    d.all(ev.frontier(), ev.mint(10), ev.stage(0), ev.stage(1), ev.stage(2), ev.open(0), ev.sweep(1));
    expect(step(c, d.state, ev.skip(2))).toMatchObject({ reason: expect.stringContaining("locked by worker 1's builder() call") });
    d.do(ev.open(1));
    expect(expectKind(d.do(ev.skip(2)), 'skip').early).toBe(false);
  });
  it('sweep-hold/-release are bug-only: the sweeper visits live entries in ascending id order (predicted) across scheduling points', () => {
    const c = config({ variant: 'best-effort', updates: [u(0, 0, 0, 1), u(1, 0, 1, 1)], bugs: { sweepUpgradeRace: true } });
    const d = new Driver(c);
    d.all(ev.frontier(), ev.mint(10), ev.stage(0), ev.stage(1), ev.open(0));
    expect(step(c, d.state, ev.sweep(1))).toMatchObject({ reason: 'not enabled: sweep: the sweep must first visit live entries 0' });
    expect(step(c, d.state, ev.sweepRelease(1)).ok).toBe(false);
    expect(expectKind(d.do(ev.sweepHold(1)), 'sweep-hold')).toMatchObject({ worker: 1, sharedId: 0 });
    // The race: worker 0 finishes during the hold — two references, it is not last.
    d.all(ev.push(0, [0]));
    expect(expectKind(d.do(ev.finishBegin(0)), 'finish-begin').last).toBe(false);
    expect(expectKind(d.do(ev.sweepRelease(1)), 'sweep-release').closed).toBe(true);
    expect(expectKind(d.do(ev.sweep(1)), 'sweep').removed).toEqual([0]);
    expect(expectKind(d.do(ev.open(1)), 'open').created).toBe(true);
    const clean = config({ variant: 'best-effort', updates: [u(0, 0, 0, 1), u(1, 0, 1, 1)] });
    const e = new Driver(clean);
    e.all(ev.frontier(), ev.mint(10), ev.stage(0), ev.stage(1), ev.open(0));
    expect(step(clean, e.state, ev.sweepHold(1))).toMatchObject({ reason: expect.stringContaining('only with the sweep-upgrade-race bug') });
  });
  it("with a registry shared by several sinks (sharedRegistry) a call may sweep or not, another sink's sweep is an environment step, and what a sweep removes stays predicted", () => {
    const c = config({ variant: 'best-effort', intervals: 2, updates: [u(0, 0, 0, 1), u(1, 1, 0, 1)], sharedRegistry: true });
    const d = new Driver(c);
    // Another sink's call swept (no worker): before this sink opened anything.
    expect(expectKind(d.do({ kind: 'sweep', replica: 0, process: 0, removed: [] }), 'sweep').removed).toEqual([]);
    d.all(ev.frontier(), ev.mint(10), ev.stage(0));
    // This sink's call may sweep although its own entries do not say so (other sinks' count).
    expect(expectKind(d.do(ev.sweep(0)), 'sweep')).toMatchObject({ worker: 0, removed: [] });
    d.all(ev.open(0), ev.push(0, [0]), ev.finishBegin(0), ev.finishEnd(0));
    // The entry is dead now: a sweep must remove exactly it.
    expect(step(c, d.state, { kind: 'sweep', replica: 0, process: 0, removed: [] })).toMatchObject({ ok: false, reason: expect.stringContaining('predicted field differs: sweep.removed') });
    expect(expectKind(d.do({ kind: 'sweep', replica: 0, process: 0, removed: [0] }), 'sweep').removed).toEqual([0]);
    expect(() => validateConfig(config({ variant: 'best-effort', sharedRegistry: 'yes' as unknown as boolean }))).toThrow(/sharedRegistry must be a boolean/);
    // Without a shared registry a sweep names its worker.
    expect(step(tiny('best-effort'), initialState(tiny('best-effort')), { kind: 'sweep', replica: 0, process: 0, removed: [] })).toMatchObject({ reason: expect.stringContaining('names the worker') });
  });
  it("shared registry with the upgrade race: another sink's sweep visits this sink's live entries in order, and no open of this sink interleaves", () => {
    const c = config({ variant: 'best-effort', updates: [u(0, 0, 0, 1), u(1, 0, 1, 1)], bugs: { sweepUpgradeRace: true }, sharedRegistry: true });
    const d = new Driver(c);
    d.all(ev.frontier(), ev.mint(10), ev.stage(0), ev.stage(1), ev.open(0));
    const env = { replica: 0, process: 0 } as const;
    expect(expectKind(d.do({ kind: 'sweep-hold', ...env, sharedId: 0 }), 'sweep-hold').sharedId).toBe(0);
    expect(step(c, d.state, ev.open(1))).toMatchObject({ reason: expect.stringContaining("locked by another sink's builder() call") });
    expect(expectKind(d.do({ kind: 'sweep-release', ...env, sharedId: 0, closed: false }), 'sweep-release').closed).toBe(false);
    expect(expectKind(d.do({ kind: 'sweep', ...env, removed: [] }), 'sweep').removed).toEqual([]);
    expect(expectKind(d.do(ev.open(1)), 'open').created).toBe(false);
  });
});

describe('events the model never enables', () => {
  const cfg = tiny('best-effort');
  const d = new Driver(cfg);
  d.all(ev.frontier(), ev.mint(1000));
  const cases: [string, TraceEvent, string][] = [
    ['no such replica', ev.stage(0, 0, 5), 'there is no replica 5'],
    ['no such worker', ev.stage(9), 'replica 0 has no worker 9'],
    ['wrong process', ev.stage(1, 1), 'worker 1 lives in process 0, not 1'],
    ['open before stage', ev.open(1), 'worker 1 has not staged'],
    ['push before open', ev.push(1, [1]), 'worker 1 has not staged; it holds no handle'],
    ['finish-end without handle', ev.finishEnd(1), 'holds no handle'],
    ['skip outside barrier', ev.skip(1), 'worker 1 has not staged; it reports no skip'],
    ['own batch before stage', ev.ownBatch(1), 'it writes no own batch now'],
    ['hand before stage', ev.hand(1), 'it cannot hand now'],
    ['delete with nothing refused', ev.delete(), 'no refused append'],
    ['no such process', ev.sweep(0, 3), 'worker 0 lives in process 0, not 3'],
    ['a sweep outside a builder() call', ev.sweep(1), 'it is in no builder() call that could sweep'],
    ['drop', { kind: 'drop', replica: 0, process: 0, worker: 0, sharedId: 0, closed: false }, 'drop-without-finish'],
  ];
  it.each(cases)('%s', (_, event, reason) => {
    expect(step(cfg, d.state, event)).toMatchObject({ ok: false, reason: expect.stringContaining(reason) });
  });
  it('offers the actor\'s enabled event as `expected`', () => {
    const r = step(cfg, d.state, ev.open(1));
    expect(r).toMatchObject({ ok: false, expected: { kind: 'stage', worker: 1, route: 'shared' } });
  });
  it('a replica-level event with no live description', () => {
    const s = initialState(cfg);
    expect(step(cfg, s, ev.append())).toMatchObject({ reason: 'not enabled: append: replica 0 has no live description' });
    expect(step(cfg, s, ev.stage(0))).toMatchObject({ reason: 'not enabled: stage: replica 0 has no live description' });
  });
  it('worker phases in messages', () => {
    const e = new Driver(config({ variant: 'barrier', updates: [u(0, 0, 0, 10), u(1, 0, 1, 500)] }));
    e.all(ev.frontier(), ev.mint(100), ev.stage(0), ev.stage(1));
    const reason = (x: TraceEvent) => {
      const r = step(e.cfg, e.state, x);
      return r.ok ? '' : r.reason;
    };
    expect(reason(ev.stage(0))).toContain('worker 0 must open its handle next');
    expect(reason(ev.hand(1))).toContain('worker 1 must report a skip next');
    e.all(ev.skip(1));
    expect(reason(ev.hand(1))).toContain('worker 1 must write its own batch next');
    e.all(ev.open(0));
    expect(reason(ev.stage(0))).toContain('worker 0 holds an open handle (opened)');
    expect(reason(ev.finishBegin(0))).toContain('worker 0 has pushed 0 of its 1 staged updates');
    expect(reason(ev.finishEnd(0))).toContain('worker 0 has not begun its finish');
    e.all(ev.push(0, [0]), ev.finishBegin(0));
    expect(reason(ev.push(0, [0]))).toContain('worker 0 is finishing');
    expect(reason(ev.finishBegin(0))).toContain('already began its finish');
    e.all(ev.finishEnd(0), ev.ownBatch(1));
    expect(reason(ev.stage(1))).toContain('worker 1 must hand its batches next');
    e.all(ev.hand(1));
    expect(reason(ev.stage(1))).toContain('worker 1 is done with the description');
  });
});

describe('firstDifference', () => {
  it('names nested paths and whole plain arrays', () => {
    expect(firstDifference({ a: { b: 1 } }, { a: { b: 2 } }, 'x')).toBe('x.a.b expected 1, got 2');
    expect(firstDifference({ a: [1, 2] }, { a: [1, 3] }, 'x')).toBe('x.a expected [1,2], got [1,3]');
    expect(firstDifference({ a: [1] }, { a: 1 }, 'x')).toBe('x.a expected [1], got 1');
    expect(firstDifference({ a: [{ b: 1 }] }, { a: [{ b: 2 }] }, 'x')).toBe('x.a[0].b expected 1, got 2');
    expect(firstDifference({ a: { b: 1 } }, { a: null }, 'x')).toBe('x.a expected {"b":1}, got null');
    expect(firstDifference({ a: 1 }, { a: 1, extra: 2 }, 'x')).toBeNull();
  });
});

describe('exploration invariants', () => {
  const variants = ['off', 'best-effort', 'barrier'] as const;
  for (const variant of variants) {
    it(`${variant}: every enabled action is accepted by step; random walks end sealed`, () => {
      const cfg = wide({ variant, maxBytesChoices: [0, 50, 1000], bugs: { sweepUpgradeRace: variant === 'barrier' } }, u(4, 0, 3, 30));
      const pick = rng(7);
      for (let walk = 0; walk < 12; walk++) {
        const { state } = randomWalk(cfg, pick, (s, next) => {
          for (const { event } of next) expect(step(cfg, s, event).ok).toBe(true);
        });
        expect(isSealed(state)).toBe(true);
        expect(state.shard.upper).toBe(cfg.intervals);
      }
    });
  }

  it('serialize is canonical: equal states (keys sorted) serialize equally', () => {
    const sortKeys = (x: unknown): unknown =>
      Array.isArray(x)
        ? x.map(sortKeys)
        : typeof x === 'object' && x !== null
          ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, sortKeys(v)]))
          : x;
    const cfg = tiny('best-effort');
    const bySorted = new Map<string, string>();
    const queue = [initialState(cfg)];
    const seen = new Set<string>();
    while (queue.length > 0) {
      const s = queue.pop() as (typeof queue)[number];
      const key = serialize(s);
      if (seen.has(key)) continue;
      seen.add(key);
      const sorted = JSON.stringify(sortKeys(s));
      const prior = bySorted.get(sorted);
      if (prior !== undefined) expect(prior).toBe(key);
      bySorted.set(sorted, key);
      for (const { next } of successors(cfg, s)) queue.push(next);
    }
    expect(bySorted.size).toBe(seen.size);
  });
});

describe('a replica sealed by another replica', () => {
  it('still sees its desired frontier advance', () => {
    const cfg = config({ variant: 'off', replicas: 2, intervals: 2, workersPerProcess: 1, updates: [u(0, 0, 0, 1)] });
    const d = new Driver(cfg);
    d.all(ev.frontier(1), ev.mint(0, 1), ev.stage(0, 0, 1));
    d.all(ev.frontier(0), ev.frontier(0), ev.mint(0, 0), ev.stage(0), ev.ownBatch(0), ev.hand(0), ev.append(0));
    d.all(ev.ownBatch(0, 0, 1), ev.hand(0, 0, 1), ev.append(1), ev.delete(1));
    expect(d.state.replicas[1]?.mint.value).toBe('sealed');
    expect(expectKind(d.do(ev.frontier(1)), 'frontier').upper).toBe(2);
    expect(isFinal(cfg, d.state)).toBe(true);
  });
});

describe('supersede: the mint follows the persist frontier', () => {
  // two replicas, barrier, 2 workers, 2 intervals; both workers have data in the first interval
  const cfg = config({ variant: 'barrier', replicas: 2, intervals: 2, updates: [u(0, 0, 0, 10), u(1, 0, 1, 20)] });
  const shared = (d: Driver, r: number) => {
    d.all(ev.stage(0, 0, r), ev.stage(1, 0, r), ev.open(0, 0, r), ev.open(1, 0, r), ev.push(0, [0], 0, r), ev.push(1, [1], 0, r));
    d.all(ev.finishBegin(0, 0, r), ev.finishBegin(1, 0, r), ev.finishEnd(0, 0, r), ev.finishEnd(1, 0, r), ev.hand(0, 0, r), ev.hand(1, 0, r));
  };

  it('another replica passes the live lower: a newer description; the unstaged worker skips, the append worker deletes the stale batch', () => {
    const d = new Driver(cfg);
    d.all(ev.frontier(0), ev.mint(1000, 0), ev.frontier(0));
    // replica 0's worker 0 pushes and waits at the barrier; worker 1 has not staged
    d.all(ev.stage(0, 0, 0), ev.open(0, 0, 0), ev.push(0, [0], 0, 0), ev.finishBegin(0, 0, 0));
    expect(step(cfg, d.state, ev.mint(1000, 0))).toMatchObject({ ok: false, reason: expect.stringContaining('is not past its lower') });
    d.all(ev.frontier(1), ev.mint(1000, 1));
    shared(d, 1);
    expect(expectKind(d.do(ev.append(1)), 'append').result).toEqual({ ok: true });
    // the shard's upper 1 is past replica 0's lower 0 and below its desired 2: supersede
    expect(expectKind(d.do(ev.mint(1000, 0)), 'mint').desc).toEqual({ lower: 1, upper: 2, appendWorker: 1, sharedId: 1, maxBytes: 1000, barrier: true });
    expect(d.state.replicas[0]?.superseded?.desc.sharedId).toBe(0);
    // no third description while one is superseded
    expect(step(cfg, d.state, ev.mint(1000, 0))).toMatchObject({ ok: false, reason: expect.stringContaining('superseded one') });
    // worker 1 must skip the superseded description, not stage it
    expect(step(cfg, d.state, ev.stage(1, 0, 0))).toMatchObject({ ok: false, reason: expect.stringContaining('superseded before it staged') });
    expect(expectKind(d.do({ kind: 'superseded', replica: 0, process: 0, worker: 1, sharedId: 0 }), 'superseded').sharedId).toBe(0);
    expect(expectKind(d.do(ev.skip(1, 0, 0)), 'skip')).toMatchObject({ sharedId: 0, early: false });
    // the skip finalized the barrier: worker 0 (the deliverer, not a skipper) receives the batch
    expect(expectKind(d.do(ev.finishEnd(0, 0, 0)), 'finish-end').received?.updates).toEqual([0]);
    expect(step(cfg, d.state, ev.delete(0)).ok).toBe(false);
    d.all(ev.hand(0, 0, 0), ev.hand(1, 0, 0));
    expect(expectKind(d.do({ kind: 'delete', replica: 0, lower: 0, batches: 0, reason: 'stale' }), 'delete')).toEqual({ kind: 'delete', replica: 0, lower: 0, batches: 1, reason: 'stale' });
    expect(d.state.replicas[0]?.superseded).toBeNull();
    d.drain();
    expect(isSealed(d.state)).toBe(true);
    expect(d.state.history.deleted).toBe(1);
    // replica 0 never appended [0, 1): its superseded description was deleted, not appended
    expect(d.state.history.appends.filter((a) => a.replica === 0).map((a) => [a.lower, a.upper])).toEqual([[1, 2]]);
    expect(d.state.history.appends[0]).toMatchObject({ replica: 1, lower: 0, upper: 1, result: { ok: true } });
  });

  it('a poll (the mint reads the shard) only while a supersede could follow; it changes nothing', () => {
    const poll = (replica: number, sharedId = 0): TraceEvent => ({ kind: 'poll', replica, sharedId });
    const d = new Driver(cfg);
    expect(step(cfg, d.state, poll(0))).toMatchObject({ ok: false, reason: expect.stringContaining('no live description') });
    d.all(ev.frontier(0), ev.mint(1000, 0));
    // [0, 1) with desired 1: no shard upper fits strictly between lower and desired
    expect(step(cfg, d.state, poll(0))).toMatchObject({ ok: false, reason: expect.stringContaining('no room for a newer lower') });
    d.do(ev.frontier(0));
    const before = d.state;
    expect(d.do(poll(0))).toEqual({ kind: 'poll', replica: 0, sharedId: 0 });
    expect(d.state).toEqual(before);
    // the id is predicted: a poll naming another description is refused
    expect(step(cfg, d.state, poll(0, 7))).toMatchObject({ ok: false, reason: expect.stringContaining('sharedId') });
    d.all(ev.stage(0, 0, 0), ev.open(0, 0, 0), ev.push(0, [0], 0, 0), ev.finishBegin(0, 0, 0));
    d.all(ev.frontier(1), ev.mint(1000, 1));
    shared(d, 1);
    d.do(ev.append(1));
    d.do(ev.mint(1000, 0));
    expect(step(cfg, d.state, poll(0, 1))).toMatchObject({ ok: false, reason: expect.stringContaining('superseded and pending') });
    // replica 1's description ended with its append: nothing live until its next mint
    expect(step(cfg, d.state, poll(1))).toMatchObject({ ok: false, reason: expect.stringContaining('no live description') });
    d.all(ev.frontier(1), ev.mint(1000, 1));
    expect(step(cfg, d.state, poll(1, 2))).toMatchObject({ ok: false, reason: expect.stringContaining('no room') });
  });

  it('a poll while the append collects hands and once it is ready; none after it ended', () => {
    const c = config({ variant: 'off', replicas: 1, intervals: 3, updates: [u(0, 0, 0, 10)] });
    const d = new Driver(c);
    d.all(ev.frontier(0), ev.mint(0, 0), ev.frontier(0), ev.frontier(0));
    expect(step(c, d.state, { kind: 'poll', replica: 0, sharedId: 0 }).ok).toBe(true);
    d.all(ev.stage(0, 0, 0), ev.ownBatch(0, 0, 0), ev.hand(0, 0, 0), ev.stage(1, 0, 0), ev.hand(1, 0, 0));
    expect(step(c, d.state, { kind: 'poll', replica: 0, sharedId: 0 }).ok).toBe(true);
    d.do(ev.append(0));
    expect(step(c, d.state, { kind: 'poll', replica: 0, sharedId: 0 })).toMatchObject({ ok: false, reason: expect.stringContaining('no live description') });
    d.do(ev.mint(0, 0));
    // a fresh description [1, 3): room, nothing begun
    expect(step(c, d.state, { kind: 'poll', replica: 0, sharedId: 1 }).ok).toBe(true);
  });

  it('a worker that already handed goes on with the newer description; nothing handed, nothing to delete', () => {
    const c = config({ variant: 'off', replicas: 2, intervals: 2, updates: [u(0, 1, 0, 10)] });
    const d = new Driver(c);
    d.all(ev.frontier(0), ev.mint(0, 0), ev.frontier(0), ev.stage(0, 0, 0), ev.hand(0, 0, 0));
    d.all(ev.frontier(1), ev.mint(0, 1), ev.stage(0, 0, 1), ev.stage(1, 0, 1), ev.hand(0, 0, 1), ev.hand(1, 0, 1), ev.append(1));
    d.do(ev.mint(0, 0));
    // worker 1 skips description 0; with nothing handed it is done at that last hand
    d.all({ kind: 'superseded', replica: 0, process: 0, worker: 1, sharedId: 0 }, ev.hand(1, 0, 0));
    expect(d.state.replicas[0]?.superseded).toBeNull();
    expect(expectKind(d.do(ev.stage(0, 0, 0)), 'stage')).toMatchObject({ sharedId: 1, updates: [0], route: 'own' });
    d.drain();
    expect(isSealed(d.state)).toBe(true);
  });
});

describe('abort: enabled until the replica is sealed (nothing left to write)', () => {
  // Two replicas of two workers, off, two intervals: worker 1 has an update at time 0, worker 0 one at time 1.
  const cfg = config({ variant: 'off', replicas: 2, intervals: 2, updates: [u(0, 0, 1, 10), u(1, 1, 0, 10)], faults: { aborts: 1, indeterminate: 0, cleanup: false } });
  const abort: TraceEvent = { kind: 'abort', replica: 0, reason: 'permanent storage failure' };

  /** Replica 0's description [0, 2) is superseded by [1, 2) (replica 1 appended [0, 1)); worker 1 had
   * handed an own batch for it. Replica 0 then appends [1, 2): its lower reaches K while the stale
   * delete of description 0 (append worker 0) is still to run. */
  const sealedWithStalePending = (): Driver => {
    const d = new Driver(cfg);
    d.all(ev.frontier(0), ev.frontier(0), ev.mint(0, 0), ev.stage(1, 0, 0), ev.ownBatch(1, 0, 0), ev.hand(1, 0, 0));
    d.all(ev.frontier(1), ev.mint(0, 1), ev.stage(0, 0, 1), ev.stage(1, 0, 1), ev.ownBatch(1, 0, 1), ev.hand(0, 0, 1), ev.hand(1, 0, 1), ev.append(1));
    expect(expectKind(d.do(ev.mint(0, 0)), 'mint').desc).toMatchObject({ lower: 1, upper: 2, appendWorker: 1 });
    d.all({ kind: 'superseded', replica: 0, process: 0, worker: 0, sharedId: 0 }, ev.hand(0, 0, 0));
    d.all(ev.stage(0, 0, 0), ev.ownBatch(0, 0, 0), ev.hand(0, 0, 0), ev.stage(1, 0, 0), ev.hand(1, 0, 0));
    expect(expectKind(d.do(ev.append(0)), 'append')).toMatchObject({ lower: 1, upper: 2, result: { ok: true } });
    const rep = d.state.replicas[0];
    expect(rep?.mint.value).toBe('sealed');
    expect(rep?.superseded?.desc.sharedId).toBe(0);
    return d;
  };

  it('a replica whose lower reached K with a stale delete pending is not sealed: the delete can fail, and an abort leaves its batch behind', () => {
    const d = sealedWithStalePending();
    expect(isSealed(d.state)).toBe(false);
    expect(d.do(abort)).toEqual(abort);
    expect(d.state.history.faults.batchesAbandoned).toBe(1);
    // the restart starts at the shard's upper K: sealed at once, and the run can end
    expect(expectKind(d.do({ kind: 'restart', replica: 0, lower: 0 }), 'restart').lower).toBe(2);
    d.drain();
    expect(isSealed(d.state)).toBe(true);
    // the aborted incarnation never deleted its stale batch; the new one has none
    expect(d.trace.filter((e) => e.kind === 'delete' && e.replica === 0)).toEqual([]);
  });

  it('once the stale delete ran the replica is sealed: nothing is left to abort', () => {
    const d = sealedWithStalePending();
    expect(expectKind(d.do({ kind: 'delete', replica: 0, lower: 0, batches: 0, reason: 'stale' }), 'delete')).toMatchObject({ lower: 0, batches: 1 });
    expect(step(cfg, d.state, abort)).toMatchObject({ ok: false, reason: expect.stringContaining('nothing left to abort') });
  });
});
