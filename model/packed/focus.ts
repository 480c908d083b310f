/**
 * What an event reads of a builder entry, finer than the whole component: the memo key of the packed
 * search holds a *projection* of the entry, and the entry's change is kept as a *patch* that applies to
 * every entry with that projection (engine.ts fills a transition table, entry × patch → entry, as
 * states need it).
 *
 * A focused read (read-sets.ts `builder`) sees the entry's header exactly, `refs` only up to
 * `refsUpTo` (values at or above it look alike), the instance count, and one instance (the current one,
 * or the one its handle names) without its `handles` count and — unless the event's worker is that
 * instance's receiver and `updates` is 'receiver' — without its update ids. Everything else it may only
 * copy (other instances), add to (`refs`, `handles`) or add ids to (the instance's updates). A path read
 * (read-sets.ts `paths`) sees only the entry's state path and may only change it.
 *
 * Verified, not trusted (engine.ts, on every miss): the event is predicted on the entry and again on a
 * `perturbed` one — everything the projection leaves out changed (refs and counts moved by `SHIFT`,
 * phantom update ids added, every other instance rewritten) — and both must give the same event, the
 * same other writes and the same patch, which must reproduce the model's entry exactly both times.
 * (As with read-sets.ts's `adds`, a model that reads a left-out part in a way this one perturbation
 * does not show would not be caught.)
 */
import type { StateValue } from 'xstate';
import type { BuilderContext, InstanceRecord } from '../builder.ts';
import type { Local } from '../local.ts';
import { pathOf } from '../local.ts';
import { sameValue } from './layout.ts';

/** How an event reads the builder entry of its own batch id (read-sets.ts). */
export interface BuilderRead {
  readonly slot: number;
  /** The instance it reads: the entry's last (`current`) or the one its handle names (`handle`). */
  readonly instance: 'current' | 'handle';
  /** `refs` is compared only below this: larger values look alike (0: not read, only added to). */
  readonly refsUpTo: number;
  /** The instance's update ids: only added to (`added`), or read when the event's worker is its receiver (`receiver`). */
  readonly updates: 'added' | 'receiver';
}

/** A BuilderRead with the event's worker (-1: none): what a projection depends on besides the entry. */
export interface Focus {
  readonly instance: 'current' | 'handle';
  readonly refsUpTo: number;
  readonly updates: 'added' | 'receiver';
  readonly worker: number;
}

export type Entry = Local<BuilderContext> | null;

/** How far a perturbation moves counts, and the update ids it adds (none is in any workload). */
export const SHIFT = 1000;
const PHANTOMS: readonly number[] = [1_000_001, 1_000_002, 1_000_003];

/** The instance a focus reads in `b`: the current one, or `handleInstance` (-1 when there is none). */
export function focusIndex(b: Entry, f: Focus, handleInstance: number): number {
  if (b === null) return -1;
  const n = b.context.instances.length;
  const i = f.instance === 'current' ? n - 1 : handleInstance;
  return i >= 0 && i < n ? i : -1;
}

/** What a focused read sees of `b` besides the instance: state, header, `refs` capped, instance count
 * (plain data, interned by the engine). The instance it reads comes from `n` or from its handle. */
export function projectHeader(b: Entry, refsUpTo: number): unknown {
  if (b === null) return null;
  const { refs, instances, ...header } = b.context;
  return { value: b.value, header, refs: Math.min(refs, refsUpTo), n: instances.length };
}

/** Whether a focused read sees the update ids of instance `rec`. */
export const keepsUpdates = (rec: InstanceRecord, f: Focus): boolean => f.updates === 'receiver' && rec.receiver === f.worker;

/** What a focused read sees of its instance: all but its handle count and (unless `keep`) its update ids. */
export function projectInstance(rec: InstanceRecord, keep: boolean): unknown {
  const { handles: _handles, cut, ...rest } = rec;
  if (keep) return { ...rest, cut };
  const { updates: _updates, ...shape } = cut;
  return { ...rest, cut: shape };
}

/** What a path read sees of `b`. */
export const projectPath = (b: Entry): string | null => (b === null ? null : pathOf(b.value));

/** An instance rewritten in everything a read that skips it could see. */
function otherInstance(rec: InstanceRecord, worker: number): InstanceRecord {
  return {
    ...rec,
    cut: { ...rec.cut, updates: [...rec.cut.updates, ...PHANTOMS], partBytes: [...rec.cut.partBytes, SHIFT], buffered: (rec.cut.buffered ?? 0) + SHIFT },
    handles: rec.handles + SHIFT,
    receiver: rec.receiver === worker ? null : Math.max(worker, 0),
    receipts: rec.receipts + SHIFT,
    toNobody: !rec.toNobody,
  };
}

/** `b` with everything a focused read does not see changed. */
export function perturb(b: Entry, f: Focus, i: number): Entry {
  if (b === null) return null;
  const c = b.context;
  const instances = c.instances.map((rec, j) => {
    if (j !== i) return otherInstance(rec, f.worker);
    return { ...rec, handles: rec.handles + SHIFT, cut: keepsUpdates(rec, f) ? rec.cut : { ...rec.cut, updates: [...rec.cut.updates, ...PHANTOMS] } };
  });
  return { value: b.value, context: { ...c, refs: c.refs >= f.refsUpTo ? c.refs + SHIFT : c.refs, instances } };
}

/** `b` with everything but its state path changed. */
export function perturbPath(b: Entry): Entry {
  if (b === null) return null;
  const c = b.context;
  return {
    value: b.value,
    context: {
      ...c,
      barrier: !c.barrier,
      participants: c.participants + SHIFT,
      blobTargetSize: c.blobTargetSize + SHIFT,
      refs: c.refs + SHIFT,
      pending: c.pending + SHIFT,
      deliverer: c.deliverer === null ? 0 : null,
      earlySkips: c.earlySkips + SHIFT,
      instances: c.instances.map((rec) => otherInstance(rec, -1)),
    },
  };
}

/**
 * The change from `b` to `next` as a focused read may make it (plain data, interned by the engine):
 * the whole entry when either is null; else the state and header (absolute), what `refs` and the
 * instance's `handles` gained, the instance's other fields (absolute), the update ids it gained (unless
 * the read sees them: then absolute), and instances appended. A string says why the change is not one
 * (an instance it does not read changed, ids removed): the read set is wrong.
 */
export type Patch =
  | { readonly t: 'set'; readonly entry: Entry }
  | {
      readonly t: 'focus';
      readonly value: StateValue;
      readonly header: Readonly<Record<string, unknown>>;
      readonly refs: number;
      readonly i: number;
      readonly rec: Readonly<Record<string, unknown>> | null;
      readonly handles: number;
      readonly added: readonly number[] | null;
      readonly appended: readonly InstanceRecord[];
    }
  | { readonly t: 'path'; readonly value: StateValue };

export function diff(b: Entry, next: Entry, f: Focus, i: number): Patch | string {
  if (b === null || next === null) return { t: 'set', entry: next };
  const from = b.context.instances;
  const to = next.context.instances;
  if (to.length < from.length) return `removes instances (${from.length} → ${to.length})`;
  for (let j = 0; j < from.length; j++) {
    if (j !== i && to[j] !== from[j] && !sameValue(to[j], from[j])) return `changes instance ${j}, which it does not read (it reads ${i})`;
  }
  const { refs, instances: _instances, ...header } = next.context;
  let rec: Record<string, unknown> | null = null;
  let handles = 0;
  let added: number[] | null = null;
  if (i >= 0) {
    const r0 = from[i] as InstanceRecord;
    const r1 = to[i] as InstanceRecord;
    const { handles: h1, ...rest } = r1;
    handles = h1 - r0.handles;
    if (keepsUpdates(r0, f)) rec = rest;
    else {
      const { updates, ...shape } = r1.cut;
      const had = new Set(r0.cut.updates);
      if (r0.cut.updates.some((u) => !updates.includes(u))) return `removes update ids from instance ${i}`;
      added = updates.filter((u) => !had.has(u));
      rec = { ...rest, cut: shape };
    }
  }
  return { t: 'focus', value: next.value, header, refs: refs - b.context.refs, i, rec, handles, added, appended: to.slice(from.length) };
}

/** The change from `b` to `next` as a path read may make it: only the state path (else a string says why). */
export function diffPath(b: Entry, next: Entry): Patch | string {
  if (b === null || next === null) return { t: 'set', entry: next };
  if (next.context !== b.context && !sameValue(next.context, b.context)) return 'changes more than the state path';
  return { t: 'path', value: next.value };
}

/** `b` changed by `p` (null when `p` does not apply to `b`: a patch of a focused read on a null entry). */
export function applyPatch(b: Entry, p: Patch): Entry | undefined {
  if (p.t === 'set') return p.entry;
  if (b === null) return undefined;
  if (p.t === 'path') return { value: p.value, context: b.context };
  const c = b.context;
  const instances = c.instances.slice();
  if (p.i >= 0) {
    const r0 = instances[p.i];
    if (r0 === undefined || p.rec === null) return undefined;
    const updates = p.added === null ? null : mergeIds(r0.cut.updates, p.added);
    if (updates === undefined) return undefined;
    const cut = updates === null ? (p.rec['cut'] as InstanceRecord['cut']) : { ...r0.cut, ...(p.rec['cut'] as object), updates };
    // (spread over r0 first: the model's field order, so the entry serializes as the model's would)
    instances[p.i] = { ...r0, ...p.rec, handles: r0.handles + p.handles, cut } as InstanceRecord;
  }
  for (const rec of p.appended) instances.push(rec);
  return { value: p.value, context: { ...c, ...p.header, refs: c.refs + p.refs, instances } as BuilderContext };
}

/**
 * Ascending ids of `a` and `b` (the model keeps an instance's updates sorted; engine.ts checks that the
 * patch reproduces its entry), or undefined when they share one. SUBTLE: ids are added only where they
 * are new, so two patches of one instance commute exactly when their other changes do — what lets the
 * partial-order reduction judge a pair of outcomes once (search.ts `PersistentSets`).
 */
function mergeIds(a: readonly number[], b: readonly number[]): number[] | undefined {
  if (b.length === 0) return a as number[];
  for (const x of b) if (a.includes(x)) return undefined;
  return [...a, ...b].sort((x, y) => x - y);
}
