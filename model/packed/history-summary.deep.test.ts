/**
 * The fault history's summary (history-summary.ts) keeps every verdict and every future: on every
 * prefix of random fault-world walks the properties judge a state and its summary alike, both have the
 * same successors (events), and their successors' summaries are equal; a view's retired instances and
 * counters changed where the summary says they do not matter change no verdict, and no property reads
 * a retired instance's handle count; the packed search with and without it finds the same verdicts and
 * the same shortest lengths. `npm run bench` prints the fault world's figures with and without it.
 * Deep: hundreds of random fault-world walks judged on every prefix, and packed searches twice.
 */
import { describe, expect, it } from 'vitest';
import type { Variant } from '../../vocab/index.ts';
import { properties, replacementProperties, type Property } from '../../spec/properties.ts';
import type { BuilderView, SystemView } from '../../spec/view.ts';
import type { ModelConfig } from '../config.ts';
import type { SystemState } from '../state.ts';
import { initialState, successors, type Successor } from '../system.ts';
import { config, rng, tiny, u } from '../test-support/driver.ts';
import { viewOf } from '../view.ts';
import { Engine } from './engine.ts';
import { FLAGS_ID, summarizeHistory } from './history-summary.ts';
import { searchPacked } from './search.ts';

const judged: readonly Property[] = [...properties, ...replacementProperties];

/** `sbkit model --check --workers 3 --intervals 2 --faults`'s shape: 10 B or 100 B alternating. */
const faultWorld = (variant: Variant): ModelConfig =>
  config({
    variant,
    workersPerProcess: 3,
    intervals: 2,
    updates: [0, 1].flatMap((t) => [0, 1, 2].map((w) => u(t * 3 + w, t, w, (w + t) % 2 === 0 ? 10 : 100))),
    maxBytesChoices: [0, 50, 1000],
    faults: { aborts: 1, indeterminate: 1, cleanup: true },
  });

/**
 * A random walk (seeded) that aborts a replica only once `abortAt` events happened, and then at once, so that the
 * aborted incarnation retires builders at every stage of their lives. Visits every state before a step.
 */
function walk(cfg: ModelConfig, seed: number, abortAt: number, visit: (state: SystemState, next: readonly Successor[]) => void): void {
  const pick = rng(seed);
  let state = initialState(cfg);
  for (let n = 0, next = successors(cfg, state); next.length > 0; n++, next = successors(cfg, state)) {
    visit(state, next);
    const abort = next.find((x) => x.event.kind === 'abort');
    const others = next.filter((x) => x.event.kind !== 'abort');
    state = (n >= abortAt || others.length === 0 ? (abort ?? (next[pick(next.length)] as Successor)) : (others[pick(others.length)] as Successor)).next;
  }
  visit(state, []);
}

const summarized = (cfg: ModelConfig, s: SystemState): SystemState => ({ ...s, history: summarizeHistory(cfg, true, s.history) });
const verdicts = (view: SystemView): Record<string, boolean> => Object.fromEntries(judged.map((p) => [p.name, p.check(view).ok]));

describe('the fault history summary', () => {
  it.each(['off', 'best-effort', 'barrier', 'barrier-timeout', 'review bug'] as const)(
    '%s: on every prefix of random walks a state and its summary have the same verdicts, successors and successors\' summaries',
    (variant) => {
      // (the review bug, best-effort's sweep-upgrade race, closes batches for nobody)
      const cfg = variant === 'review bug' ? { ...faultWorld('best-effort'), bugs: { sweepUpgradeRace: true } } : faultWorld(variant);
      let changed = 0;
      const seen = { received: 0, second: 0, abandoned: 0, nobody: 0 };
      for (let seed = 1; seed <= 40; seed++) {
        walk(cfg, seed, (seed * 7) % 36, (state, next) => {
          const s = summarized(cfg, state);
          expect(summarized(cfg, s)).toEqual(s);
          if (JSON.stringify(s) !== JSON.stringify(state)) changed += 1;
          if (next.length === 0) {
            const f = state.history.faults;
            if (f.retiredBuilders.some((b) => b.receivers > 0)) seen.received += 1;
            if (f.retiredBuilders.some((b) => b.instance > 0 && b.updates.length > 0)) seen.second += 1;
            if (f.finishesAbandoned + f.batchesAbandoned > 0) seen.abandoned += 1;
            if (f.retiredBuilders.some((b) => b.deliveredToNobody)) seen.nobody += 1;
          }
          expect(verdicts(viewOf(cfg, s))).toEqual(verdicts(viewOf(cfg, state)));
          const after = successors(cfg, s);
          expect(after.map((x) => x.event)).toEqual(next.map((x) => x.event));
          after.forEach((x, i) => expect(summarized(cfg, x.next)).toEqual(summarized(cfg, (next[i] as (typeof next)[number]).next)));
        });
      }
      // not vacuous: walks ended with an aborted incarnation's received batches, second instances with
      // data (the barrier makes one instance per id), and abandoned finishes or batches, and the summary
      // changed states
      if (variant !== 'off') expect([seen.received, variant === 'barrier' ? 2 : seen.second, seen.abandoned].map((n) => n >= 2)).toEqual([true, true, true]);
      if (variant === 'review bug') expect(seen.nobody).toBeGreaterThanOrEqual(2);
      expect(changed).toBeGreaterThan(30);
    },
  );

  it('a view changed where the summary says it does not matter keeps every verdict; no property reads a retired instance\'s handle count', () => {
    let views = 0;
    for (const variant of ['best-effort', 'barrier', 'barrier-timeout'] as const) {
      const cfg = faultWorld(variant);
      for (let seed = 1; seed <= 40; seed++) {
        walk(cfg, seed, (seed * 7) % 36, (state) => {
          if (state.history.faults.retiredBuilders.length === 0) return;
          views += 1;
          const view = viewOf(cfg, state);
          const dead = (b: BuilderView) => b.incarnation < (state.replicas[b.replica]?.incarnation ?? 0) || state.replicas[b.replica]?.up === false;
          const vouching = new Set(summarizeHistory(cfg, true, state.history).faults.retiredBuilders.filter((b) => b.sharedId !== FLAGS_ID).map((b) => JSON.stringify([b.replica, b.incarnation, b.process, b.sharedId, b.updates])));
          const vouches = (b: BuilderView) => vouching.has(JSON.stringify([b.replica, b.incarnation, b.process, b.sharedId, [...b.updates].sort((x, y) => x - y)]));
          const other = (b: BuilderView): BuilderView => ({
            ...b,
            instance: b.instance > 0 ? b.instance + 1000 : 0,
            receivers: b.receivers > 1 ? b.receivers + 1000 : b.receivers,
            ...(vouches(b) ? {} : { sharedId: b.sharedId + 1000, updates: b.updates.length > 0 ? [1000] : [] }),
          });
          const changed: SystemView = {
            ...view,
            builders: view.builders.map((b) => (dead(b) ? other(b) : b)),
            finishes: { ...view.finishes, begun: view.finishes.begun + 7, abandoned: view.finishes.abandoned + 7 },
            batches: { ...view.batches, written: view.batches.written + 7, abandoned: view.batches.abandoned + 7 },
            ...(view.storage === undefined
              ? {}
              : { storage: { ...view.storage, leakedFromAborted: view.storage.leakedFromAborted * 1000, leakedAfterCleanup: view.storage.leakedAfterCleanup === null ? null : view.storage.leakedAfterCleanup * 1000 } }),
          };
          expect(verdicts(changed)).toEqual(verdicts(view));
          const guarded: SystemView = {
            ...view,
            builders: view.builders.map((b) =>
              dead(b)
                ? new Proxy(b, {
                    get(target, key, receiver) {
                      if (key === 'handles') throw new Error(`a property read a retired instance's handle count`);
                      return Reflect.get(target, key, receiver);
                    },
                  })
                : b,
            ),
          };
          expect(verdicts(guarded)).toEqual(verdicts(view));
        });
      }
    }
    expect(views).toBeGreaterThan(50);
  });

  it('folds what aborts abandoned into the counts they are compared with, and saturates the leak units', () => {
    const cfg = faultWorld('best-effort');
    const h = summarizeHistory(cfg, false, {
      appends: [],
      finishesBegun: 5,
      ownBatches: 2,
      faults: {
        aborts: 1,
        indeterminate: 0,
        retiredBuilders: [
          { replica: 0, incarnation: 0, process: 0, sharedId: 0, instance: 0, handles: 2, receivers: 1, updates: [0, 2], deliveredToNobody: false },
          { replica: 0, incarnation: 0, process: 0, sharedId: 1, instance: 1, handles: 1, receivers: 1, updates: [3], deliveredToNobody: false },
          { replica: 0, incarnation: 0, process: 0, sharedId: 1, instance: 2, handles: 1, receivers: 0, updates: [], deliveredToNobody: false },
        ],
        pendingCleanups: 1,
        finalCleanup: false,
        leakingByReplica: [3],
        leaksExpired: 2,
        leaksCollected: 0,
        referencedDeleted: 0,
        finishesAbandoned: 2,
        batchesAbandoned: 1,
      },
    });
    expect(h.finishesBegun).toBe(3);
    // 2 own + 2 received − 1 abandoned
    expect(h.ownBatches).toBe(3);
    expect(h.faults.retiredBuilders).toEqual([{ replica: 0, incarnation: 0, process: 0, sharedId: FLAGS_ID, instance: 1, handles: 0, receivers: 0, updates: [0, 1, 2, 3, 4, 5], deliveredToNobody: false }]);
    expect([h.faults.leakingByReplica, h.faults.leaksExpired, h.faults.finishesAbandoned, h.faults.batchesAbandoned, h.faults.pendingCleanups]).toEqual([[1], 1, 0, 0, 1]);
  });

  it.each([
    ['tiny best-effort', { ...tiny('best-effort'), faults: { aborts: 1, indeterminate: 1, cleanup: true } }],
    ['tiny barrier-timeout', { ...tiny('barrier-timeout'), faults: { aborts: 1, indeterminate: 1, cleanup: true } }],
    ['the indeterminate-as-mismatch bug', { ...tiny('best-effort'), faults: { aborts: 1, indeterminate: 1, cleanup: false }, bugs: { indeterminateAsMismatch: true } }],
  ] as const)('%s: the packed search with the summary finds what it finds without, at the same depths, in fewer states', (_, cfg) => {
    const search = (historySummary: boolean) => searchPacked(cfg, { maxStates: 1_000_000 }, new Engine(cfg, judged, { historySummary }));
    const [raw, sum] = [search(false), search(true)];
    expect(raw.complete && sum.complete).toBe(true);
    const lengths = (r: typeof raw) => [r.violations.map((v) => [v.property, v.trace.length]), r.witnesses.map((w) => [w.property, w.trace.length]), r.unreached];
    expect(lengths(sum)).toEqual(lengths(raw));
    expect(sum.states).toBeLessThan(raw.states / 2);
  });
});
