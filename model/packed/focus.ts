/**
 * What an event reads of a builder entry, finer than the whole component: the memo key of the packed
 * search holds a *projection* of the entry, and the entry's change is kept as a *patch* that applies to
 * every entry with that projection (engine.ts fills a transition table, entry × patch → entry, as
 * states need it).
 *
 * A focused read (read-sets.ts `builder`) sees the entry's header exactly, `refs` only up to
 * `refsUpTo` (values at or above it look alike), the instance count, and of one instance (the current
 * one, or the one its handle names) what it declares: its cut's shape, its fate, or — for the instance's
 * receiver — its whole cut; never its `handles` count. Everything else it may only copy (other
 * instances), add to (`refs`, `handles`), add new ids to (the instance's updates), set without reading
 * (a receiver it binds) or append (new instances). A path read (read-sets.ts `paths`) sees only the entry's state path and may only
 * change it. An entry lives in several slots (layout.ts: header and instances), so a change is kept
 * slot by slot: the header's and the instance's patches, appended instances set.
 *
 * Verified, not trusted (engine.ts, on every miss): the event is predicted on the entry and again on a
 * `perturbed` one — everything the projection leaves out changed (refs and counts moved by `SHIFT`,
 * phantom update ids added, every other instance rewritten) — and both must give the same event, the
 * same other writes and the same patches, which must reproduce the model's entry exactly both times.
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
  /**
   * What it sees of that instance's cut: its shape — the parts cut and the bytes buffered, not the update
   * ids, which it only adds to (`shape`); all of it when the event's worker is the instance's receiver
   * (`receiver`, with `fate`); or nothing (`none`).
   */
  readonly cut: 'shape' | 'receiver' | 'none';
  /** Whether it sees the instance's fate: receiver, receipts, delivered to nobody. */
  readonly fate: boolean;
}

/** A BuilderRead with the event's worker (-1: none): what a projection depends on besides the entry. */
export interface Focus {
  readonly instance: 'current' | 'handle';
  readonly refsUpTo: number;
  readonly cut: 'shape' | 'receiver' | 'none';
  readonly fate: boolean;
  readonly worker: number;
}

export type Entry = Local<BuilderContext> | null;

/** How far a perturbation moves counts, and the update ids it adds (none is in any workload). */
export const SHIFT = 1000;
const PHANTOMS: readonly number[] = [1_000_001, 1_000_002, 1_000_003];

/** What a focused read sees of an entry's header slot value: all but `refs` above `refsUpTo` (plain
 * data, interned by the engine; the key adds the instance count and the instance read). */
export function projectHeader(h: unknown, refsUpTo: number): unknown {
  if (h === null) return null;
  const { value, context } = h as { value: StateValue; context: { refs: number } };
  return { value, context: { ...context, refs: Math.min(context.refs, refsUpTo) } };
}

/**
 * Which parts of instance `rec` a focus sees, as a small number: bit 0 its fate; bits 1–2 its cut
 * (0 nothing, 1 its shape, 2 all of it). Its handle count it never sees (only adds to).
 */
export function sightOf(rec: InstanceRecord, f: Focus): number {
  const cut = f.cut === 'shape' ? 1 : f.cut === 'receiver' && rec.receiver === f.worker ? 2 : 0;
  return (f.fate ? 1 : 0) | (cut << 1);
}

/** What a focus with sight `v` sees of `rec` (fields this file does not know are seen). */
export function projectInstance(rec: InstanceRecord, v: number): unknown {
  const { handles: _handles, receiver, receipts, toNobody, cut, ...rest } = rec;
  const out: Record<string, unknown> = { ...rest };
  if ((v & 1) !== 0) Object.assign(out, { receiver, receipts, toNobody });
  const c = v >> 1;
  if (c === 2) out['cut'] = cut;
  else {
    const { updates: _updates, partBytes, buffered, ...cutRest } = cut;
    out['cut'] = c === 1 ? { ...cutRest, partBytes, buffered } : cutRest;
  }
  return out;
}

/** What a path read sees of an entry's header slot value. */
export const projectPath = (h: unknown): string | null => (h === null ? null : pathOf((h as { value: StateValue }).value));

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

/**
 * `rec` with what a focus of sight `v` does not see changed. (A receiver it does not see becomes a
 * worker no event names, so that a receiver the event binds differs from it.)
 */
function unseen(rec: InstanceRecord, v: number): InstanceRecord {
  const c = v >> 1;
  const cut = c === 2 ? rec.cut : { ...rec.cut, updates: [...rec.cut.updates, ...PHANTOMS], ...(c === 1 ? {} : { partBytes: [...rec.cut.partBytes, SHIFT], buffered: (rec.cut.buffered ?? 0) + SHIFT }) };
  const fate = (v & 1) !== 0 ? {} : { receiver: rec.receiver === null ? SHIFT : null, receipts: rec.receipts + SHIFT, toNobody: !rec.toNobody };
  return { ...rec, ...fate, handles: rec.handles + SHIFT, cut };
}

/** `b` with everything a focused read does not see changed. */
export function perturb(b: Entry, f: Focus, i: number): Entry {
  if (b === null) return null;
  const c = b.context;
  const instances = c.instances.map((rec, j) => (j === i ? unseen(rec, sightOf(rec, f)) : otherInstance(rec, f.worker)));
  return { value: b.value, context: { ...c, refs: c.refs >= f.refsUpTo ? c.refs + SHIFT : c.refs, instances } };
}

/**
 * What the property view (model/view.ts) sees of an instance: all but its receiver and its cut's shape
 * (the parts cut, the bytes buffered) — the view counts handles, receipts, update ids and deliveries to
 * nobody. Of a header it sees only that the entry exists (engine.ts keys it so).
 */
export function projectForView(rec: InstanceRecord): unknown {
  const { receiver: _receiver, cut, ...rest } = rec;
  const { partBytes: _partBytes, buffered: _buffered, ...cutRest } = cut;
  return { ...rest, cut: cutRest };
}

/** Every header field of a builder entry changed (its instances as they are). */
function perturbedHeader(c: BuilderContext): BuilderContext {
  return {
    ...c,
    barrier: !c.barrier,
    participants: c.participants + SHIFT,
    blobTargetSize: c.blobTargetSize + SHIFT,
    timesOut: !c.timesOut,
    refs: c.refs + SHIFT,
    pending: c.pending + SHIFT,
    deliverer: c.deliverer === null ? 0 : null,
    unfinished: c.unfinished + SHIFT,
    expired: !c.expired,
    late: !c.late,
    earlySkips: c.earlySkips + SHIFT,
  };
}

/** `b` with everything the view does not see changed (its header's fields and state, its instances'
 * receivers and cut shapes). */
export function perturbForView(b: Entry): Entry {
  if (b === null) return null;
  const c = b.context;
  return {
    value: 'perturbed',
    context: {
      ...perturbedHeader(c),
      instances: c.instances.map((rec) => ({
        ...rec,
        receiver: rec.receiver === null ? SHIFT : null,
        cut: { ...rec.cut, partBytes: [...rec.cut.partBytes, SHIFT], buffered: (rec.cut.buffered ?? 0) + SHIFT },
      })),
    },
  };
}

/** `b` with everything but its state path changed. */
export function perturbPath(b: Entry): Entry {
  if (b === null) return null;
  const c = b.context;
  return {
    value: b.value,
    context: {
      ...perturbedHeader(c),
      instances: c.instances.map((rec) => otherInstance(rec, -1)),
    },
  };
}

/**
 * The change of one slot of an entry (layout.ts cuts an entry into its header and instance slots), as
 * plain data interned by the engine: a header's new state and fields (absolute) and what `refs` gained;
 * a header's new state only (a path read); an instance's changed fields (absolute) but what its
 * `handles` gained and the update ids it gained (unless the read sees them: then absolute).
 */
export type SlotPatch =
  | { readonly t: 'header'; readonly value: StateValue; readonly header: Readonly<Record<string, unknown>>; readonly refs: number }
  | { readonly t: 'path'; readonly value: StateValue }
  | {
      readonly t: 'instance';
      /** Fields that changed (but handles and cut), and cut fields that changed (but unseen update ids). */
      readonly rec: Readonly<Record<string, unknown>>;
      readonly cut: Readonly<Record<string, unknown>>;
      readonly handles: number;
      /** Update ids added (null: the focus sees them; a change is in `cut`). */
      readonly added: readonly number[] | null;
    };

/** A change of an entry, slot by slot: `at` 0 is the header, 1 + j instance j; a value set, or a patch. */
export type EntryOp = { readonly at: number; readonly set: unknown } | { readonly at: number; readonly patch: SlotPatch };

/** The header slot's value of an entry: the builder without its instances. */
export function headerOf(b: Entry): unknown {
  if (b === null) return null;
  const { instances: _instances, ...context } = b.context;
  return { value: b.value, context };
}

/** Every slot of `next` set (from or to no entry: what the key holds is the whole entry). */
function setAll(next: Entry, slots: number): EntryOp[] {
  const ops: EntryOp[] = [{ at: 0, set: headerOf(next) }];
  for (let j = 0; j < slots; j++) ops.push({ at: 1 + j, set: next?.context.instances[j] ?? null });
  return ops;
}

/**
 * The change from `b` to `next` as a focused read may make it (`i`: the instance it reads; `slots`: the
 * entry's instance slots), or a string saying why it is not one (an instance it does not read changed,
 * ids removed): then the read set is wrong.
 */
export function focusOps(b: Entry, next: Entry, f: Focus, i: number, slots: number): EntryOp[] | string {
  if (b === null || next === null) return setAll(next, slots);
  const from = b.context.instances;
  const to = next.context.instances;
  if (to.length < from.length) return `removes instances (${from.length} → ${to.length})`;
  for (let j = 0; j < from.length; j++) {
    if (j !== i && to[j] !== from[j] && !sameValue(to[j], from[j])) return `changes instance ${j}, which it does not read (it reads ${i})`;
  }
  const ops: EntryOp[] = [];
  const { refs, instances: _to, ...header } = next.context;
  const { refs: refs0, instances: _from, ...header0 } = b.context;
  if (refs !== refs0 || !sameValue(next.value, b.value) || !sameValue(header, header0)) {
    ops.push({ at: 0, patch: { t: 'header', value: next.value, header, refs: refs - refs0 } });
  }
  if (i >= 0) {
    const r0 = from[i] as InstanceRecord;
    const r1 = to[i] as InstanceRecord;
    if (r1 !== r0 && !sameValue(r1, r0)) {
      // what it sees is in the key and what it does not see the perturbation moves: either way only
      // the fields that changed are kept (absolute), but handles (added) and unseen update ids (added)
      const seesIds = sightOf(r0, f) >> 1 === 2;
      const rec: Record<string, unknown> = {};
      for (const k of Object.keys(r1) as (keyof InstanceRecord)[]) if (k !== 'handles' && k !== 'cut' && !sameValue(r1[k], r0[k])) rec[k] = r1[k];
      const cut: Record<string, unknown> = {};
      for (const k of Object.keys(r1.cut) as (keyof InstanceRecord['cut'])[]) {
        if ((k !== 'updates' || seesIds) && !sameValue(r1.cut[k], r0.cut[k])) cut[k] = r1.cut[k];
      }
      let added: number[] | null = null;
      if (!seesIds) {
        if (r0.cut.updates.some((u) => !r1.cut.updates.includes(u))) return `removes update ids from instance ${i}`;
        const had = new Set(r0.cut.updates);
        added = r1.cut.updates.filter((u) => !had.has(u));
      }
      ops.push({ at: 1 + i, patch: { t: 'instance', rec, cut, handles: r1.handles - r0.handles, added } });
    }
  }
  for (let j = from.length; j < to.length; j++) ops.push({ at: 1 + j, set: to[j] });
  return ops;
}

/** The change from `b` to `next` as a path read may make it: only the state path (else a string says why). */
export function pathOps(b: Entry, next: Entry, slots: number): EntryOp[] | string {
  if (b === null || next === null) return setAll(next, slots);
  if (next.context !== b.context && !sameValue(next.context, b.context)) return 'changes more than the state path';
  return [{ at: 0, patch: { t: 'path', value: next.value } }];
}

/** A slot's value changed by `p` (undefined when `p` does not apply to it). */
export function applySlotPatch(v: unknown, p: SlotPatch): unknown {
  if (v === null || typeof v !== 'object') return undefined;
  if (p.t === 'path') return { value: p.value, context: (v as { context: unknown }).context };
  if (p.t === 'header') {
    const c = (v as { context: { refs: number } }).context;
    // (spread over the old context first: the model's field order, so the entry serializes as the model's would)
    return { value: p.value, context: { ...c, ...p.header, refs: c.refs + p.refs } };
  }
  const r0 = v as InstanceRecord;
  let cut = r0.cut;
  if (p.added !== null && p.added.length > 0) {
    const updates = mergeIds(r0.cut.updates, p.added);
    if (updates === undefined) return undefined;
    cut = { ...r0.cut, ...p.cut, updates };
  } else if (Object.keys(p.cut).length > 0) cut = { ...r0.cut, ...p.cut };
  return { ...r0, ...p.rec, handles: r0.handles + p.handles, cut };
}

/** `b` changed by `ops`, reassembled (undefined when an op does not apply): what the slots will hold. */
export function applyOps(b: Entry, ops: readonly EntryOp[], slots: number): Entry | undefined {
  const parts: unknown[] = [headerOf(b)];
  for (let j = 0; j < slots; j++) parts.push(b?.context.instances[j] ?? null);
  for (const op of ops) {
    const v = 'set' in op ? op.set : applySlotPatch(parts[op.at], op.patch);
    if (v === undefined) return undefined;
    parts[op.at] = v;
  }
  const header = parts[0] as { value: StateValue; context: Omit<BuilderContext, 'instances'> } | null;
  if (header === null) return null;
  const instances = parts.slice(1).filter((x) => x !== null) as InstanceRecord[];
  return { value: header.value, context: { ...header.context, instances } };
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
