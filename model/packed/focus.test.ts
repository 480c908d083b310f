import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../vocab/index.ts';
import { properties } from '../../spec/properties.ts';
import type { BuilderContext } from '../builder.ts';
import type { ModelConfig } from '../config.ts';
import type { Local } from '../local.ts';
import { actorCandidates } from '../system.ts';
import type { SystemState } from '../state.ts';
import { viewOf } from '../view.ts';
import { alternating, randomWalk, rng } from '../test-support/driver.ts';
import { Engine } from './engine.ts';
import { applyOps, applySlotPatch, focusOps, sightOf, type Focus } from './focus.ts';
import { ReadSetError, type Layout } from './layout.ts';
import { EVENT_RULES, type EventRule, type EventRules } from './read-sets.ts';
import { searchPacked } from './search.ts';

type Rule<K extends TraceEvent['kind']> = EventRule<Extract<TraceEvent, { kind: K }>>;

/** The search of `cfg` with one event kind's rule replaced (a read declared too small). */
const withRule = <K extends TraceEvent['kind']>(cfg: ModelConfig, kind: K, rule: (original: Rule<K>) => Rule<K>) => () =>
  searchPacked(cfg, { maxStates: 100_000, por: true }, new Engine(cfg, properties, { eventRules: { ...EVENT_RULES, [kind]: rule(EVENT_RULES[kind] as Rule<K>) } as EventRules }));

describe('a builder entry read in part is checked on every miss: a read declared too small throws', () => {
  const cfg = alternating('best-effort', 3, { maxBytesChoices: [1000] });

  it('the rules as they are hold (the search completes)', () => {
    expect(searchPacked(cfg, { maxStates: 100_000, por: true }, new Engine(cfg, properties)).complete).toBe(true);
  });

  it('finish-begin with refs not read: the last reference looks like any other', () => {
    expect(withRule(cfg, 'finish-begin', (r) => ({ ...r, builder: (e, L) => ({ ...(r.builder?.(e, L) as NonNullable<ReturnType<NonNullable<typeof r.builder>>>), refsUpTo: 0 }) }))).toThrow(
      /depends on .*more of r0\.p0\.builders\[0\] than its focus/,
    );
  });

  it('push without the cut\'s shape: where parts are cut depends on the bytes buffered', () => {
    expect(withRule(cfg, 'push', (r) => ({ ...r, builder: (e, L) => ({ ...(r.builder?.(e, L) as NonNullable<ReturnType<NonNullable<typeof r.builder>>>), cut: 'none' }) }))).toThrow(ReadSetError);
  });

  it('finish-end without the fate: whether it receives depends on the receiver', () => {
    expect(withRule(cfg, 'finish-end', (r) => ({ ...r, builder: (e, L) => ({ ...(r.builder?.(e, L) as NonNullable<ReturnType<NonNullable<typeof r.builder>>>), fate: false, cut: 'none' }) }))).toThrow(
      ReadSetError,
    );
  });

  it('finish-end focused on the current instance: its receipt goes to its handle\'s, an instance it does not read', () => {
    expect(withRule(cfg, 'finish-end', (r) => ({ ...r, builder: (e, L) => ({ ...(r.builder?.(e, L) as NonNullable<ReturnType<NonNullable<typeof r.builder>>>), instance: 'current' }) }))).toThrow(
      /changes instance \d, which it does not read|more of r0\.p0\.builders\[0\] than its focus/,
    );
  });

  it('barrier-timeout: open with refs read up to 1, as elsewhere — a late worker\'s open sets refs to 1 while finishers still hold some', () => {
    const late = alternating('barrier-timeout', 3, { maxBytesChoices: [1000] });
    expect(searchPacked(late, { maxStates: 100_000, por: true }, new Engine(late, properties)).complete).toBe(true);
    expect(withRule(late, 'open', (r) => ({ ...r, builder: (e, L) => ({ ...(r.builder?.(e, L) as NonNullable<ReturnType<NonNullable<typeof r.builder>>>), refsUpTo: 1 }) }))).toThrow(
      /more of r0\.p0\.builders\[0\] than its focus/,
    );
  });

  it('open reading its own entry by path only: joining and starting an instance differ by more than the path', () => {
    const rule = (r: Rule<'open'>): Rule<'open'> => {
      const { builder: _builder, ...rest } = r;
      return { ...rest, paths: (e, L: Layout) => L.buildersOf(e.replica, 0) };
    };
    expect(withRule(cfg, 'open', rule)).toThrow(/more of r0\.p0\.builders\[0\] than its state path|changes more than the state path/);
  });

  it('a view reading what its key leaves out (a receiver) throws', () => {
    const broken: typeof viewOf = (c, s, final) => {
      const b = s.replicas[0]?.registries[0]?.builders[0] as Local<BuilderContext> | null | undefined;
      const v = viewOf(c, s, final);
      return b?.context.instances[0]?.receiver === 1 ? { ...v, final: !v.final } : v;
    };
    expect(() => searchPacked(cfg, { maxStates: 100_000, properties }, new Engine(cfg, properties, { viewOf: broken }))).toThrow(/viewOf reads more of the builder entries/);
  });
});

describe('patches', () => {
  /** Every (entry, next entry, event) a random walk of `cfg` meets on process 0's entry 0. */
  function changes(cfg: ModelConfig, walks: number): { b: Local<BuilderContext> | null; next: Local<BuilderContext> | null; e: TraceEvent }[] {
    const out: { b: Local<BuilderContext> | null; next: Local<BuilderContext> | null; e: TraceEvent }[] = [];
    const entry = (s: SystemState) => (s.replicas[0]?.registries[0]?.builders[0] ?? null) as Local<BuilderContext> | null;
    const pick = rng(17);
    for (let i = 0; i < walks; i++) {
      randomWalk(cfg, pick, (s, next) => {
        for (const x of next) if (x.event.kind === 'push' || x.event.kind === 'open' || x.event.kind === 'finish-begin') out.push({ b: entry(s), next: entry(x.next), e: x.event });
      });
    }
    return out;
  }

  it('reproduce the model\'s entry, slot by slot', () => {
    const cfg = alternating('best-effort', 3, { maxBytesChoices: [1000] });
    const seen = changes(cfg, 20);
    expect(seen.length).toBeGreaterThan(50);
    for (const { b, next, e } of seen) {
      const f: Focus = { instance: 'current', refsUpTo: 2, cut: e.kind === 'push' ? 'shape' : 'none', fate: false, worker: 'worker' in e ? (e.worker ?? -1) : -1 };
      const i = (b?.context.instances.length ?? 0) - 1;
      const ops = focusOps(b, next, f, i, 3);
      expect(typeof ops).not.toBe('string');
      expect(applyOps(b, ops as Exclude<typeof ops, string>, 3)).toEqual(next);
    }
  });

  it('add only update ids that are new (so patches of one instance commute as the search assumes)', () => {
    const rec = { cut: { updates: [1, 4], partBytes: [], buffered: 20 }, handles: 2, receiver: null, receipts: 0, toNobody: false };
    expect(applySlotPatch(rec, { t: 'instance', rec: {}, cut: { buffered: 30 }, handles: 0, added: [2] })).toEqual({ ...rec, cut: { updates: [1, 2, 4], partBytes: [], buffered: 30 } });
    expect(applySlotPatch(rec, { t: 'instance', rec: {}, cut: {}, handles: 0, added: [4] })).toBeUndefined();
  });

  it('a focus sees an instance\'s whole cut only when its worker is the receiver', () => {
    const rec = { cut: { updates: [1], partBytes: [], buffered: 20 }, handles: 1, receiver: 2, receipts: 0, toNobody: false };
    const f: Focus = { instance: 'handle', refsUpTo: 2, cut: 'receiver', fate: true, worker: 2 };
    expect(sightOf(rec, f)).toBe(1 | (2 << 1));
    expect(sightOf(rec, { ...f, worker: 1 })).toBe(1);
  });
});
