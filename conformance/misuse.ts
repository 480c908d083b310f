/**
 * Misuse, as a property of every run. The sink never misuses its own objects — it pushes inside its
 * descriptions, finishes once, appends or deletes a batch once — so the typed refusals of misuse
 * (push after finish, finish twice, an update outside a description, a batch appended twice, a store
 * asked to break its contract...) are code no generated run reaches, and a mutant that removes one
 * survives every other check. Each run therefore also drives a few of the implementation's objects of
 * its own through a random program of calls, some of them misuse, and a model of use predicts each
 * call's outcome from the program alone: done, or refused with which code and a message naming what
 * was wrong. After a refusal nothing changed: the data that reaches a batch (or the shard, or a store)
 * is exactly the data of the accepted calls, and every counter and status says so.
 *
 * The model of use is the contract of vocab/PROTOCOL.md and the classes' doc comments, computed here
 * over abstract states (a handle open/finished/dropped with pushes in flight; a batch owned, deleting,
 * consumed or deleted; ...), never by asking the object.
 *
 * The contracts are the implementation's, not only what the kit's own callers need: a real caller may
 * reuse its arrays, use ids anywhere in their declared range, run writers of different configurations
 * on one shard, or race claims for one replica (the last four scenarios: what a check of the kit's own
 * callers never tries). Each scenario is one unit (its section below).
 *
 * Which scenario a run tries, and its program, follow from a hash of its workload (deterministic,
 * replayable); over the default budget each scenario runs dozens of random programs. Everything runs
 * on in-memory stores under the pass-through scheduler (reuse: one that lets the builder task read only
 * when the program says), after the run itself, in well under a millisecond.
 */
import type { PersistConfig, StorageFault, TraceEvent } from '../vocab/index.ts';
import { decodePart } from '../impl/part-codec.ts';
import type { Consensus } from '../impl/persist/consensus.ts';
import { batchId } from '../impl/shared/batch-id.ts';
import { SharedBatches } from '../impl/shared/shared-batches.ts';
import { TaskGroup } from '../impl/runtime/task-group.ts';
import { BugSwitches } from '../impl/bugs.ts';
import { SbkitError, type SbkitErrorCode } from '../impl/errors.ts';
import { MetricsRecorder } from '../impl/metrics.ts';
import type { Batch } from '../impl/persist/batch.ts';
import { BatchBuilder } from '../impl/persist/batch-builder.ts';
import { BlobClient } from '../impl/persist/blob-client.ts';
import { MemBlob } from '../impl/persist/blob.ts';
import { resolvePersistConfig } from '../impl/persist/config.ts';
import { MemConsensus } from '../impl/persist/consensus.ts';
import { FaultyBlob, FaultyConsensus, injectedFault } from '../impl/persist/faulty.ts';
import type { RetryContext } from '../impl/persist/retry.ts';
import { claimWriter, readWriters, retireWriter, writerOfKey, type Retired } from '../impl/persist/writer-registry.ts';
import { ShardWriter } from '../impl/persist/shard-writer.ts';
import type { RunConfig } from '../impl/run-config.ts';
import { Trace } from '../impl/runtime/trace.ts';
import type { Scheduler } from '../impl/seams.ts';
import { BarrierState } from '../impl/shared/barrier-state.ts';
import { BuilderInstance } from '../impl/shared/builder-instance.ts';
import type { SharedBatchHandle } from '../impl/shared/handle.ts';
import { sharedHarness } from '../impl/test-support/harness.ts';
import type { Update } from '../impl/update.ts';

/** What the model predicts for one call. */
type Expect =
  | { readonly ok: true }
  | { readonly ok: false; readonly code: SbkitErrorCode; readonly names: readonly string[]; readonly causeNames?: string };

const OK: Expect = { ok: true };
const refused = (code: SbkitErrorCode, ...names: string[]): Expect => ({ ok: false, code, names });

export const SCENARIOS = ['handles', 'barrier', 'builder', 'batch', 'stores', 'registry', 'faults', 'failing', 'reuse', 'ids', 'writers', 'claims'] as const;
export type Scenario = (typeof SCENARIOS)[number];

export interface MisuseVerdict {
  readonly scenario: Scenario;
  /** The calls made, one line each (what a failure prints). */
  readonly program: readonly string[];
  /** Refusal codes the model predicted, with how many times (the vacuity counters). */
  readonly refusals: Readonly<Record<string, number>>;
  /** What went wrong: empty when every call behaved as predicted. */
  readonly wrong: readonly string[];
}

/** Small seeded source (xorshift32) of the program's choices. */
class Draw {
  #s: number;
  constructor(seed: number) {
    this.#s = seed >>> 0 || 0x9e3779b9;
  }
  int(n: number): number {
    let x = this.#s;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.#s = x >>> 0;
    return this.#s % n;
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)] as T;
  }
}

/** The hash a run's misuse follows from: its shape and data (FNV-1a), a different salt from bad input's. */
export function misuseSeed(c: RunConfig): number {
  let k = 0x811c9dc5 ^ 0x5bd1e995;
  const data = c.updates.reduce((n, u) => n + u.time * 131 + u.value.length * 7 + u.id, 0);
  const p = c.persist;
  for (const x of [c.updates.length, data, c.intervals, c.replicas, c.workersPerProcess, c.processes, c.asOf ?? 0, c.pushChunkUpdates ?? 0, p?.blobTargetSize ?? 0, p?.inlineSingleMaxBytes ?? 0, p?.inlineTotalMaxBytes ?? 0, c.variant.length]) {
    k = Math.imul(k ^ x, 16777619) >>> 0;
  }
  return k;
}

/**
 * The scheduler the programs' objects run under: pass-through (every point resumes at once), except
 * that a program past POINT_LIMIT scheduling points is spinning — a retry loop that never ends, say, a
 * store that refuses for good retried forever — and its next point throws. Without the limit such a
 * loop runs on microtasks alone and `sbkit check` never returned (Stryker could only time it out).
 */
const POINT_LIMIT = 20_000;
let points = 0;
class Spinning extends Error {
  override readonly name = 'Spinning';
}
const programScheduler: Scheduler = {
  point: () => (++points > POINT_LIMIT ? Promise.reject(new Spinning(`passed more than ${POINT_LIMIT} scheduling points: a loop that never ends`)) : Promise.resolve()),
};

/** One run's misuse: the scenario and program its workload picks. */
export function misuseJudged(c: RunConfig): Promise<MisuseVerdict> {
  const seed = misuseSeed(c);
  return runScenario(SCENARIOS[seed % SCENARIOS.length] as Scenario, seed);
}

/** A scenario's random program from `seed`, judged against the model of use. */
export async function runScenario(scenario: Scenario, seed: number): Promise<MisuseVerdict> {
  // Ids from 1 in every program: a replay prints the same program as the check that found it.
  nextUpdateId = 1;
  points = 0;
  const judge = new Judge(scenario, new Draw(Math.imul(seed, 2654435761) >>> 0));
  // The refusals are judged by their type and message, never their stack (capturing one is most of a
  // refusal's cost); the limit is restored before anything else runs.
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    await SCENARIO[scenario](judge);
  } catch (e) {
    judge.wrong.push(`the program itself threw ${describe(e)}`);
  } finally {
    Error.stackTraceLimit = limit;
  }
  return { scenario, program: judge.program, refusals: judge.refusals, wrong: judge.wrong };
}

/** Calls, predictions and what disagreed. */
class Judge {
  readonly program: string[] = [];
  readonly refusals: Record<string, number> = {};
  readonly wrong: string[] = [];
  constructor(
    readonly scenario: Scenario,
    readonly draw: Draw,
  ) {}

  /** Makes the call, and compares its outcome with the prediction. Returns the call's value when it
   * was predicted to succeed and did. */
  async call<T>(what: string, expect: Expect, run: () => Promise<T> | T): Promise<T | undefined> {
    this.program.push(what);
    if (!expect.ok) this.refusals[expect.code] = (this.refusals[expect.code] ?? 0) + 1;
    let value: T;
    try {
      value = await returns(run());
    } catch (e) {
      if (expect.ok) {
        this.wrong.push(`${what}: expected to succeed, threw ${describe(e)}`);
        return undefined;
      }
      if (!(e instanceof SbkitError)) {
        this.wrong.push(`${what}: expected ${expect.code}, threw ${describe(e)} (not a typed SbkitError)`);
      } else if (e.code !== expect.code) {
        this.wrong.push(`${what}: expected ${expect.code}, refused with ${e.code}: "${e.message}"`);
      } else {
        const missing = expect.names.filter((n) => !e.message.includes(n));
        if (missing.length > 0) this.wrong.push(`${what}: refused (${e.code}) but the message does not name ${missing.map((m) => JSON.stringify(m)).join(', ')}: "${e.message}"`);
        // A refusal that reports another failure carries it as its cause (what a caller inspects or logs).
        if (expect.causeNames !== undefined && !(e.cause instanceof Error && e.cause.message.includes(expect.causeNames))) {
          this.wrong.push(`${what}: refused (${e.code}) without the failure it reports as its cause (${JSON.stringify(expect.causeNames)}): cause is ${describe(e.cause)}`);
        }
      }
      return undefined;
    }
    if (!expect.ok) {
      this.wrong.push(`${what}: expected ${expect.code}, but it succeeded`);
      return undefined;
    }
    return value;
  }

  /** A state the model predicts, compared with what the implementation shows. */
  same(what: string, expected: unknown, actual: unknown): void {
    const e = JSON.stringify(expected);
    const a = JSON.stringify(actual);
    if (e !== a) this.wrong.push(`after ${this.program.length} calls: ${what} is ${a}, the model says ${e}`);
  }
}

/** A call that never returned: the object deadlocked (the model's "blocked" is never a right answer). */
class Stalled extends Error {
  override readonly name = 'Stalled';
}

/**
 * `p`, or a `Stalled` refusal when it can never settle. The objects here wait on promises only (in-memory
 * stores, the pass-through scheduler): once the microtask queue has drained (a `process.nextTick` runs
 * only then) and a full event-loop turn has passed, an unsettled call is blocked for good. Without this a
 * deadlocked object left `sbkit check` with nothing to run: Node exited with code 13 and no message.
 */
async function returns<T>(p: Promise<T> | T): Promise<T> {
  if (!(p instanceof Promise)) return p;
  let settled = false;
  const mark = (): void => {
    settled = true;
  };
  p.then(mark, mark);
  await new Promise<void>((resolve) => process.nextTick(resolve));
  if (!settled) await new Promise<void>((resolve) => setImmediate(resolve));
  if (!settled) throw new Stalled('never returned: the object is blocked on itself (a deadlock)');
  return p;
}

function describe(e: unknown): string {
  if (e instanceof SbkitError) return `${e.code}: "${e.message}"`;
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}

let nextUpdateId = 1;
/** An update at `time` (ids unique within a program; sizes vary so parts cut in different places). */
function update(time: number, size: number): Update {
  const id = nextUpdateId++;
  return { id, key: `m${id}`, value: new Uint8Array(size), time, diff: 1 };
}

const sortedIds = (ids: Iterable<number>): number[] => [...ids].sort((a, b) => a - b);
const show = (us: readonly Update[]): string => `[${us.map((u) => `${u.id}@${u.time}`).join(' ')}]`;

/** Updates for a push: inside the range, or with one at a boundary just outside it. */
function chunk(d: Draw, lower: number, upper: number, outside: boolean): { updates: Update[]; bad?: Update } {
  const n = 1 + d.int(3);
  const updates = Array.from({ length: n }, () => update(lower + d.int(upper - lower), 1 + d.int(40)));
  if (!outside) return { updates };
  const bad = update(lower > 0 && d.int(2) === 0 ? lower - 1 : upper, 1 + d.int(40));
  updates.splice(d.int(n + 1), 0, bad);
  return { updates, bad };
}

// ---------------------------------------------------------------------------------------------------
// Handles on one best-effort shared batch: push, finish, drop, pushes in flight, conflicting opens.

interface HandleModel {
  readonly handle: SharedBatchHandle;
  readonly name: string;
  state: 'open' | 'finished' | 'dropped';
}

async function handles(j: Judge): Promise<void> {
  const d = j.draw;
  const { registry: shared, tasks, events, metrics } = sharedHarness({ scheduler: programScheduler, persist: { blobTargetSize: 1 + d.int(200), inlineSingleMaxBytes: d.int(100) } });
  const lower = d.int(3);
  const upper = lower + 1 + d.int(3);
  const id = 1 + d.int(5);
  const range = { lower, upper };
  // Typed refusals of bad arguments, before any state exists.
  const bad = d.int(6);
  if (bad === 0) await j.call(`builder(-1)`, refused('invalid-config', 'shared id', '-1'), () => shared.builder(-1, range, { worker: 0 }));
  if (bad === 4) await j.call(`builder(${id}, [-1, ${upper}))`, refused('invalid-config', `shared batch ${id} lower`, '-1'), () => shared.builder(id, { lower: -1, upper }, { worker: 0 }));
  if (bad === 5) await j.call(`builder(${id}, [${lower}, ${upper + 0.5}))`, refused('invalid-config', `shared batch ${id} upper`, `${upper + 0.5}`), () => shared.builder(id, { lower, upper: upper + 0.5 }, { worker: 0 }));
  if (bad === 1) await j.call(`builder(${id}, worker -1)`, refused('invalid-workers', 'worker', '-1'), () => shared.builder(id, range, { worker: -1 }));
  if (bad === 2) await j.call(`builder(${id}, [${upper}, ${upper}))`, refused('invalid-config', `upper ${upper} must be greater than lower ${upper}`), () => shared.builder(id, { lower: upper, upper }, { worker: 0 }));
  if (bad === 3) await j.call(`builder(${id}, participants 0)`, refused('invalid-workers', 'participants', '0'), () => shared.builder(id, range, { worker: 0, participants: 0 }));

  const hs: HandleModel[] = [];
  const count = 1 + d.int(3);
  for (let w = 0; w < count; w++) {
    const handle = await j.call(`builder(${id}, [${lower}, ${upper})) by worker ${w}`, OK, () => shared.builder(id, range, { worker: w }));
    if (handle === undefined) return;
    hs.push({ handle, name: `h${w}`, state: 'open' });
  }
  let refs = count;
  const accepted = new Set<number>();
  let pushEvents = 0;
  /** The finish or drop that released the last reference (the entry is dead after it). */
  let lastRelease: 'finish' | 'drop' | undefined;
  const after = (h: HandleModel): string => (h.state === 'finished' ? 'after finish()' : 'after drop()');
  const release = (how: 'finish' | 'drop'): boolean => {
    refs -= 1;
    if (refs === 0) lastRelease = how;
    return refs === 0;
  };
  let received: Batch | null | undefined;

  const steps = 4 + d.int(7);
  for (let s = 0; s < steps && refs > 0; s++) {
    const h = d.pick(hs);
    const op = d.int(7);
    if (op <= 1) {
      const { updates, bad: out } = chunk(d, lower, upper, op === 1);
      const expect =
        h.state !== 'open' ? refused('push-after-finish', after(h)) : out !== undefined ? refused('update-outside-description', `update ${out.id} has time ${out.time}`, `[${lower}, ${upper})`) : OK;
      await j.call(`${h.name}.push(${show(updates)})`, expect, () => h.handle.push(updates));
      if (expect.ok) {
        for (const u of updates) accepted.add(u.id);
        pushEvents += 1;
      }
    } else if (op === 2) {
      await j.call(`${h.name}.push([])`, h.state === 'open' ? OK : refused('push-after-finish', after(h)), () => h.handle.push([]));
    } else if (op === 3 || op === 4) {
      const how = op === 3 ? 'finish' : 'drop';
      if (h.state !== 'open') {
        await j.call(`${h.name}.${how}()`, refused('finish-twice', `${how}() on shared batch ${id}`, after(h)), async () => { if (how === 'finish') await h.handle.finish(); else await h.handle.drop(); });
        continue;
      }
      h.state = how === 'finish' ? 'finished' : 'dropped';
      const last = release(how);
      if (how === 'finish') {
        const batch = await j.call(`${h.name}.finish()`, OK, () => h.handle.finish());
        if (batch !== undefined && (batch !== null) !== (last && accepted.size > 0)) j.wrong.push(`${h.name}.finish(): ${batch === null ? 'no batch' : 'a batch'}, but the model says ${last && accepted.size > 0 ? 'this last finish receives the batch' : 'only the last finish receives one'}`);
        if (last) received = batch;
      } else await j.call(`${h.name}.drop()`, OK, () => h.handle.drop());
    } else if (op === 5) {
      // Pushes not awaited, then finish() or drop() while they are in flight: refused, handle still open.
      if (h.state !== 'open') continue;
      const n = 1 + d.int(2);
      const chunks = Array.from({ length: n }, () => chunk(d, lower, upper, false).updates);
      const pending = chunks.map((c) => h.handle.push(c));
      const how = d.int(2) === 0 ? 'finish' : 'drop';
      await j.call(`${h.name}.${how}() with ${n} pushes in flight`, refused('push-in-flight', `${how}()`, `${n} push() of this handle ${n === 1 ? 'is' : 'are'} in flight`), async () => { if (how === 'finish') await h.handle.finish(); else await h.handle.drop(); });
      await j.call(`${h.name}: the ${n} pushes return`, OK, () => Promise.all(pending));
      for (const c of chunks) for (const u of c) accepted.add(u.id);
      pushEvents += n;
      j.same(`${h.name}.state`, 'open', h.handle.state);
    } else {
      // Another description for the live id.
      // (each bound apart, and both: a check that compares only one of them lets the others through)
      const change = d.int(3);
      const other =
        change === 0
          ? { lower, upper: upper + 1 }
          : change === 1
            ? { lower: lower + 1, upper: upper + 1 }
            : lower > 0
              ? { lower: lower - 1, upper }
              : { lower: lower + 1, upper: upper > lower + 1 ? upper : upper + 1 };
      const participants = d.int(3) === 0 ? 2 : undefined;
      const asked = participants === undefined ? `[${other.lower}, ${other.upper})` : `[${other.lower}, ${other.upper}) with 2 participants`;
      // The message names both descriptions exactly: a best-effort one without a participant count.
      await j.call(`builder(${id}, ${asked})`, refused('conflicting-descriptions', `live builder has [${lower}, ${upper}), builder()`, `asked for ${asked}`), () => shared.builder(id, other, { worker: 9, participants }));
    }
    j.same(`refs(${id})`, refs, shared.refs(id));
    j.same(`${h.name}.state`, h.state, h.handle.state);
  }
  // Every handle still open finishes (the protocol's end); the last one receives what was accepted.
  for (const h of hs) {
    if (h.state !== 'open') continue;
    h.state = 'finished';
    const last = release('finish');
    const batch = await j.call(`${h.name}.finish()`, OK, () => h.handle.finish());
    if (last) received = batch;
    else if (batch !== null && batch !== undefined) j.wrong.push(`${h.name}.finish(): a batch, but only the last finish receives one`);
  }
  await j.call('every builder task ends', OK, () => tasks.whenAllDone());
  // A batch built after the last reference was dropped goes to nobody: counted, and its parts leak.
  j.same('batchesOrphaned', lastRelease === 'drop' && accepted.size > 0 ? 1 : 0, metrics.c.batchesOrphaned);
  const expected = lastRelease === 'finish' && accepted.size > 0 ? sortedIds(accepted) : null;
  j.same('the received batch', expected, received === null || received === undefined ? null : sortedIds(received.updateIds));
  j.same('push events', pushEvents, events.filter((e) => e.kind === 'push').length);
  j.same(`refs(${id})`, 0, shared.refs(id));
}

// ---------------------------------------------------------------------------------------------------
// A builder task that fails (its part's PUT fails for good): the failure reaches every waiter, later
// pushes are refused as `builder-failed` naming it, and the last finish reports it; nothing hangs.

/** Blob storage whose every write fails permanently. */
class ReadOnlyBlob extends MemBlob {
  override async set(key: string): Promise<void> {
    throw new SbkitError('storage-permanent', `injected: the blob store refuses ${key}`);
  }
  override async setIfAbsent(key: string): Promise<boolean> {
    throw new SbkitError('storage-permanent', `injected: the blob store refuses ${key}`);
  }
}

async function failing(j: Judge): Promise<void> {
  const d = j.draw;
  // Every part is hollow and cut at once: the first push makes the builder task write one.
  const { registry: shared, tasks } = sharedHarness({ scheduler: programScheduler, blob: new ReadOnlyBlob(), persist: { blobTargetSize: 1, inlineSingleMaxBytes: 0 } });
  const id = 1 + d.int(5);
  const range = { lower: 0, upper: 1 + d.int(3) };
  const hs: SharedBatchHandle[] = [];
  for (let w = 0, n = 1 + d.int(3); w < n; w++) {
    const h = await j.call(`builder(${id}) by worker ${w}`, OK, () => shared.builder(id, range, { worker: w }));
    if (h === undefined) return;
    hs.push(h);
  }
  const first = hs[d.int(hs.length)] as SharedBatchHandle;
  const u = update(d.int(range.upper), 1 + d.int(40));
  await j.call(`push(${show([u])})`, OK, () => first.push([u]));
  await j.call('the builder task writes its part, and fails', refused('storage-permanent', 'injected'), () => tasks.whenAllDone());
  const later = update(d.int(range.upper), 1 + d.int(40));
  await j.call(`push(${show([later])}) after the builder failed`, { ok: false, code: 'builder-failed', names: [`shared batch ${id}`, 'its builder task failed', 'injected'], causeNames: 'injected' }, () => (d.int(2) === 0 ? first : (hs.at(-1) as SharedBatchHandle)).push([later]));
  // Every handle still finishes; the last one, the receiver, is told why there is no batch.
  for (const [i, h] of hs.entries()) {
    const last = i === hs.length - 1;
    const got = await j.call(`finish() ${last ? '(the last)' : ''}`, last ? refused('storage-permanent', 'injected') : OK, () => h.finish());
    if (!last && got !== null && got !== undefined) j.wrong.push('a finish that was not the last received a batch');
  }
}

// ---------------------------------------------------------------------------------------------------
// A barrier: conflicting participants and modes, skips before the state exists, over-reports.

async function barrier(j: Judge): Promise<void> {
  const d = j.draw;
  const { registry: shared, tasks } = sharedHarness({ scheduler: programScheduler });
  const range = { lower: 0, upper: 1 + d.int(3) };
  const p = 2 + d.int(2);
  const id = 1;
  // Typed refusals of a skip's bad arguments (nothing is recorded for them).
  const bad = d.int(4);
  if (bad === 0) await j.call(`noteSkip(-1, ${p})`, refused('invalid-config', 'shared id', '-1'), () => shared.noteSkip(-1, p, 0));
  if (bad === 1) await j.call(`noteSkip(${id}, 0)`, refused('invalid-workers', 'participants', '0'), () => shared.noteSkip(id, 0, 0));
  if (bad === 2) await j.call(`noteSkip(${id}, ${p}) by worker -1`, refused('invalid-workers', 'worker', '-1'), () => shared.noteSkip(id, p, -1));
  j.same(`earlySkips(${id})`, 0, shared.earlySkips(id));
  // Skips recorded before any state exists, then a conflicting count (skip or open).
  const early = 10;
  const skipped = 1 + d.int(p - 1);
  for (let w = 0; w < skipped; w++) await j.call(`noteSkip(${early}, ${p}) by worker ${w}`, OK, () => shared.noteSkip(early, p, w));
  j.same(`earlySkips(${early})`, skipped, shared.earlySkips(early));
  if (d.int(2) === 0) {
    await j.call(`noteSkip(${early}, ${p + 1})`, refused('conflicting-descriptions', `noteSkip(${early}, ${p + 1}) after skips recorded for ${p} participants`), () => shared.noteSkip(early, p + 1, 5));
  } else {
    await j.call(`builder(${early}, participants ${p + 1})`, refused('conflicting-descriptions', `builder(${early}) with ${p + 1} participants after skips recorded for ${p}`), () => shared.builder(early, range, { worker: 5, participants: p + 1 }));
  }
  j.same(`earlySkips(${early})`, skipped, shared.earlySkips(early));
  // The rest of `early`'s participants skip: it completes, and every later report is an over-report.
  for (let w = skipped; w < p; w++) await j.call(`noteSkip(${early}, ${p}) by worker ${w}`, OK, () => shared.noteSkip(early, p, w));
  j.same(`earlySkips(${early})`, 0, shared.earlySkips(early));
  await j.call(`noteSkip(${early}, ${p}) once more`, refused('barrier-over-report', `noteSkip() for shared batch ${early}`, 'already reported'), () => shared.noteSkip(early, p, 0));

  // A live barrier: opens and skips by p participants, with misuse in between.
  const accepted: number[] = [];
  const finishes: Promise<Batch | null | undefined>[] = [];
  const opened: SharedBatchHandle[] = [];
  let reported = 0;
  for (let w = 0; w < p; w++) {
    const skip = w > 0 && d.int(3) === 0;
    if (skip) {
      await j.call(`noteSkip(${id}, ${p}) by worker ${w}`, OK, () => shared.noteSkip(id, p, w));
    } else {
      const h = await j.call(`builder(${id}, participants ${p}) by worker ${w}`, OK, () => shared.builder(id, range, { worker: w, participants: p }));
      if (h === undefined) return;
      opened.push(h);
      if (d.int(2) === 0) {
        const us = chunk(d, range.lower, range.upper, false).updates;
        await j.call(`worker ${w} pushes ${show(us)}`, OK, () => h.push(us));
        accepted.push(...us.map((u) => u.id));
      }
    }
    reported += 1;
    if (reported < p) {
      // Misuse against the live barrier (each leaves it as it was).
      const m = d.int(4);
      if (m === 0) await j.call(`noteSkip(${id}, ${p + 1})`, refused('conflicting-descriptions', `noteSkip(${id}, ${p + 1}) on a shared batch opened with ${p} participants`), () => shared.noteSkip(id, p + 1, 7));
      if (m === 1) await j.call(`builder(${id}) without a barrier`, refused('conflicting-descriptions', `live builder has [${range.lower}, ${range.upper}) with ${p} participants`), () => shared.builder(id, range, { worker: 7 }));
      if (m === 2) await j.call(`builder(${id}, participants ${p + 1})`, refused('conflicting-descriptions', `asked for [${range.lower}, ${range.upper}) with ${p + 1} participants`), () => shared.builder(id, range, { worker: 7, participants: p + 1 }));
    }
  }
  // Every participant reported (the skips counted): the finishes run; a further report over-reports.
  for (const [i, h] of opened.entries()) finishes.push(j.call(`handle ${i}.finish()`, OK, () => h.finish()));
  const results = await Promise.all(finishes);
  const got = results.filter((b): b is Batch => b !== null && b !== undefined);
  j.same('batches received', accepted.length > 0 ? 1 : 0, got.length);
  j.same('the received batch', accepted.length > 0 ? sortedIds(accepted) : null, got[0] === undefined ? null : sortedIds(got[0].updateIds));
  if (d.int(2) === 0) await j.call(`builder(${id}, participants ${p}) after all reported`, refused('barrier-over-report', `builder() for shared batch ${id}`), () => shared.builder(id, range, { worker: 8, participants: p }));
  else await j.call(`noteSkip(${id}, ${p}) after all reported`, refused('barrier-over-report', `noteSkip() for shared batch ${id}`), () => shared.noteSkip(id, p, 8));
  // Not a barrier: a skip for a live best-effort id.
  const be = await j.call('builder(2) best-effort', OK, () => shared.builder(2, range, { worker: 0 }));
  if (be === undefined) return;
  await j.call('noteSkip(2, 2) on a best-effort batch', refused('conflicting-descriptions', 'opened with no barrier'), () => shared.noteSkip(2, 2, 1));
  await j.call('builder(2).finish()', OK, () => be.finish());

  // One handle too many: p + 1 workers open a barrier of p participants before anyone reports (the
  // registry cannot refuse the extra open: the barrier has not completed). The p-th finish finalizes and
  // its handle, the deliverer, claims the batch, closing the channel: the extra handle's push then meets
  // a closed channel, and its finish is an over-report the barrier itself refuses.
  const extraId = 3;
  const many: SharedBatchHandle[] = [];
  for (let w = 0; w <= p; w++) {
    const h = await j.call(`builder(${extraId}, participants ${p}) by worker ${w}${w === p ? ' (one too many)' : ''}`, OK, () => shared.builder(extraId, range, { worker: w, participants: p }));
    if (h === undefined) return;
    many.push(h);
  }
  const extra = many.pop() as SharedBatchHandle;
  const pushed: number[] = [];
  if (d.int(2) === 0) {
    const us = chunk(d, range.lower, range.upper, false).updates;
    await j.call(`the extra handle pushes ${show(us)} before anyone finishes`, OK, () => extra.push(us));
    pushed.push(...us.map((u) => u.id));
  }
  const reports = await Promise.all(many.map((h, i) => j.call(`handle ${i} of ${extraId}.finish()`, OK, () => h.finish())));
  const delivered = reports.filter((b): b is Batch => b !== null && b !== undefined);
  j.same(`batches received for ${extraId}`, pushed.length > 0 ? 1 : 0, delivered.length);
  j.same(`the batch received for ${extraId}`, pushed.length > 0 ? sortedIds(pushed) : null, delivered[0] === undefined ? null : sortedIds(delivered[0].updateIds));
  const late = chunk(d, range.lower, range.upper, false).updates;
  await j.call(`the extra handle pushes ${show(late)} after the deliverer claimed`, refused('push-after-finish', `shared batch ${extraId}`, 'channel is already closed'), () => extra.push(late));
  await j.call('the extra handle finishes', refused('barrier-over-report', `barrier of shared batch ${extraId}`, `a finish arrived after all ${p} participants reported`), () => extra.finish());
  await j.call('every builder task ends', OK, () => tasks.whenAllDone());

  await barrierContract(j);
}

/**
 * A barrier's own contract, on a `BarrierState` made directly (the registry refuses a skip or an open
 * after completion before the barrier sees it, so through the registry only a finish over-reports):
 * `pending` arrivals from `pending` (early skips already counted), the last one finalizes, the latest
 * finisher delivers, and any further arrival — or any arrival at all when nothing is pending — is an
 * over-report naming whether it was a skip or a finish.
 */
async function barrierContract(j: Judge): Promise<void> {
  const d = j.draw;
  const participants = 1 + d.int(3);
  const pending = d.int(participants + 1);
  const id = 20 + d.int(5);
  const state = new BarrierState(id, participants, pending);
  j.program.push(`new BarrierState(${id}, ${participants} participants, ${pending} pending)`);
  let deliverer: number | null = null;
  const arrivals = pending + 1 + d.int(2);
  for (let i = 0; i < arrivals; i++) {
    const finisher = d.int(3) === 0 ? null : 100 + i;
    const what = `arrive(${finisher === null ? 'a skip' : `finish by handle ${finisher}`})`;
    if (i < pending) {
      const last = i === pending - 1;
      const finalized = await j.call(what, OK, () => state.arrive(finisher));
      if (finisher !== null) deliverer = finisher;
      j.same(`${what} finalized`, last, finalized);
      j.same('deliverer', deliverer, state.deliverer);
    } else {
      await j.call(what, refused('barrier-over-report', `barrier of shared batch ${id}`, `a ${finisher === null ? 'skip' : 'finish'} arrived after all ${participants} participants reported`), () => state.arrive(finisher));
      j.same('deliverer after an over-report', deliverer, state.deliverer);
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// A batch builder: add, finish, add after finish, finish twice, updates outside its range.

function writerOf(persist: Partial<PersistConfig>, blob: MemBlob = new MemBlob(), prefix = 'm0') {
  const metrics = new MetricsRecorder();
  const trace = new Trace();
  const config = resolvePersistConfig(persist);
  return { config, blob: new BlobClient(blob, programScheduler, metrics, prefix, trace), metrics, trace, store: blob };
}

const WHERE = { replica: 0 };

async function builder(j: Judge): Promise<void> {
  const d = j.draw;
  const writer = writerOf({ blobTargetSize: 1 + d.int(120), inlineSingleMaxBytes: d.int(80) });
  const lower = d.int(3);
  const upper = lower + 1 + d.int(3);
  const b = new BatchBuilder(writer, lower, upper, WHERE);
  const accepted: number[] = [];
  let finished = false;
  let batch: Batch | undefined;
  const steps = 3 + d.int(6);
  for (let s = 0; s < steps; s++) {
    const op = d.int(5);
    if (op <= 2) {
      const { updates, bad: out } = chunk(d, lower, upper, op === 2);
      const expect = finished ? refused('push-after-finish', 'add() on a batch builder after finish()') : out !== undefined ? refused('update-outside-description', `update ${out.id} has time ${out.time}`, `[${lower}, ${upper})`) : OK;
      await j.call(`add(${show(updates)})`, expect, () => b.add(updates));
      if (expect.ok) accepted.push(...updates.map((u) => u.id));
    } else {
      const expect = finished ? refused('finish-twice', 'already finished') : OK;
      const got = await j.call('finish()', expect, () => b.finish());
      if (!finished) batch = got;
      finished = true;
    }
  }
  if (!finished) batch = await j.call('finish()', OK, () => b.finish());
  if (batch === undefined) return;
  // Everything accepted, in the order it was added, and nothing refused.
  j.same('the batch', accepted, batch.updateIds);
  j.same('updates in its parts', accepted.length, batch.parts.reduce((n, p) => n + p.updates, 0));
  j.same('updatesWritten', accepted.length, writer.metrics.c.updatesWritten);

  await instanceContract(j, batch);
}

/**
 * A builder instance's contract (builder-instance.ts), on one made directly: the channel closes at the
 * first `claim()` or `orphan()`, both idempotent, and the batch goes to at most one claimant — the first
 * call decides. A claim first receives the batch, and every later claim receives null, an orphan after
 * it changes nothing; an orphan first leaves every claim null, and the batch it built counts as orphaned.
 * In the sink each instance meets one of them once (the last reference's finish or drop), so only a
 * planted bug reached a second call before this program.
 */
async function instanceContract(j: Judge, batch: Batch): Promise<void> {
  const d = j.draw;
  const metrics = new MetricsRecorder();
  const instance = new BuilderInstance(1 + d.int(3), metrics);
  j.program.push('new BuilderInstance()');
  const calls = Array.from({ length: 1 + d.int(3) }, () => (d.int(2) === 0 ? 'claim' : 'orphan'));
  const claims: { readonly first: boolean; readonly got: Promise<Batch | null> }[] = [];
  for (const [i, call] of calls.entries()) {
    if (call === 'claim') {
      // The claim's promise settles only when the task settles (below): held, not awaited here.
      const got = await j.call('claim()', OK, () => ({ pending: instance.claim() }));
      if (got === undefined) return;
      claims.push({ first: i === 0, got: got.pending });
    } else {
      await j.call('orphan()', OK, () => instance.orphan());
    }
    j.same('channel closed', true, instance.channel.closed);
  }
  const built = d.int(3) === 0 ? null : batch;
  j.program.push(`settle(${built === null ? 'no batch' : 'the batch'})`);
  instance.settle(built);
  for (const [k, c] of claims.entries()) {
    const got = await c.got;
    j.same(`claim ${k + 1}${c.first ? ' (the first call)' : ''} receives`, c.first && built !== null ? sortedIds(built.updateIds) : null, got === null ? null : sortedIds(got.updateIds));
  }
  j.same('batchesOrphaned', calls[0] === 'orphan' && built !== null ? 1 : 0, metrics.c.batchesOrphaned);
}

// ---------------------------------------------------------------------------------------------------
// A batch: append (through a shard writer), delete, flush, a failed delete, misuse while deleting.

/** Blob storage whose next delete can be made to fail, permanently, once. */
class ArmedBlob extends MemBlob {
  armed = false;
  override async delete(key: string): Promise<boolean> {
    if (this.armed) {
      this.armed = false;
      throw new SbkitError('storage-permanent', `injected: delete ${key} failed`);
    }
    return super.delete(key);
  }
}

async function batch(j: Judge): Promise<void> {
  const d = j.draw;
  const store = new ArmedBlob();
  const writer = writerOf({ blobTargetSize: 1 + d.int(60), inlineSingleMaxBytes: d.int(3) === 0 ? 0 : d.int(60), inlineTotalMaxBytes: 1 << 20 }, store);
  const upper = 1 + d.int(3);
  const bb = new BatchBuilder(writer, 0, upper, WHERE);
  const n = 1 + d.int(5);
  await bb.add(Array.from({ length: n }, () => update(d.int(upper), 1 + d.int(40))));
  const b = await j.call('finish()', OK, () => bb.finish());
  if (b === undefined) return;
  const consensus = new MemConsensus();
  const shard = new ShardWriter({ shardId: 's0', consensus, blob: writer.blob, scheduler: programScheduler, metrics: writer.metrics, config: writer.config, where: WHERE, trace: writer.trace, bugs: new BugSwitches([]) });
  let status: 'owned' | 'consumed' | 'deleted' = 'owned';
  let hollow = b.parts.filter((p) => p.kind === 'hollow').length;
  const partCount = b.parts.length;
  const name = `batch [0, ${upper})`;
  const gone = (action: string): Expect => refused('batch-consumed', `cannot ${action} ${name}: it was ${status}`);
  const cas = (): number => writer.metrics.c.consensusCommands;

  const steps = 3 + d.int(6);
  for (let s = 0; s < steps; s++) {
    const op = d.int(8);
    if (op === 0) {
      const before = cas();
      const expect = status === 'owned' ? OK : refused('batch-consumed', `cannot append ${name}: it was ${status}`);
      const r = await j.call(`compareAndAppend([b], 0, ${upper})`, expect, () => shard.compareAndAppend([b], 0, upper));
      if (expect.ok) {
        j.same('compareAndAppend', 'ok', r?.kind);
        status = 'consumed';
      } else j.same('consensus commands after a refused append', before, cas());
    } else if (op === 1) {
      const expect = status === 'owned' ? OK : gone('delete');
      const got = await j.call('delete()', expect, () => b.delete());
      if (expect.ok) {
        j.same('blobs deleted', hollow, got);
        status = 'deleted';
      }
    } else if (op === 2) {
      const expect = status === 'owned' ? OK : gone('flush');
      const got = await j.call('flushInlineToBlob()', expect, () => b.flushInlineToBlob());
      if (expect.ok) {
        j.same('parts flushed', partCount - hollow, got);
        hollow = partCount;
      }
    } else if (op === 3) {
      // A delete under way (its first blob delete pending): nothing may take or delete the batch.
      if (status !== 'owned' || hollow === 0) continue;
      const pending = b.delete();
      j.same('appendable while deleting', false, b.appendable);
      const m = d.int(4);
      if (m === 0) await j.call('delete() while deleting', refused('batch-consumed', `cannot delete ${name}: it is being deleted`), () => b.delete());
      if (m === 1) await j.call('flushInlineToBlob() while deleting', refused('batch-consumed', `cannot flush ${name}: it is being deleted`), () => b.flushInlineToBlob());
      if (m === 2) await j.call(`compareAndAppend([b], 0, ${upper}) while deleting`, refused('batch-consumed', `cannot append ${name}: it was being deleted`), () => shard.compareAndAppend([b], 0, upper));
      if (m === 3) await j.call('markConsumed() while deleting', refused('batch-consumed', `cannot append ${name}: it is being deleted`), () => b.markConsumed());
      const got = await j.call('the delete returns', OK, () => pending);
      j.same('blobs deleted', hollow, got);
      status = 'deleted';
    } else if (op === 4) {
      // A delete whose first blob delete fails for good: the batch stays owned and appendable.
      if (status !== 'owned' || hollow === 0) continue;
      store.armed = true;
      await j.call('delete() failing', refused('storage-permanent', 'injected'), () => b.delete({ retries: false }));
      j.same('appendable after a failed delete', true, b.appendable);
    } else if (op === 5) {
      const bad = d.int(6);
      const before = cas();
      if (bad === 3) await j.call(`compareAndAppend([b], -1, ${upper})`, refused('invalid-append', 'expectedUpper', '-1'), () => shard.compareAndAppend([b], -1, upper));
      if (bad === 4) await j.call(`compareAndAppend([b], 0, ${upper + 0.5})`, refused('invalid-append', 'newUpper', `${upper + 0.5}`), () => shard.compareAndAppend([b], 0, upper + 0.5));
      if (bad === 5 && upper > 1) {
        // (the lower apart from the upper: a check of one bound only lets the other through)
        const expect = status === 'owned' ? refused('invalid-append', `${name} cannot be appended over [1, ${upper})`) : refused('batch-consumed', `cannot append ${name}: it was ${status}`);
        await j.call(`compareAndAppend([b], 1, ${upper})`, expect, () => shard.compareAndAppend([b], 1, upper));
      }
      if (bad === 0) await j.call(`compareAndAppend([b], ${upper}, ${upper})`, refused('invalid-append', `newUpper ${upper} must be greater than expectedUpper ${upper}`), () => shard.compareAndAppend([b], upper, upper));
      // (the batches are checked in order: the first b's status before the second is seen)
      const twice = status === 'owned' ? refused('invalid-append', `${name} passed twice`) : refused('batch-consumed', `cannot append ${name}: it was ${status}`);
      if (bad === 1) await j.call(`compareAndAppend([b, b], 0, ${upper})`, twice, () => shard.compareAndAppend([b, b], 0, upper));
      if (bad === 2) {
        const expect = status === 'owned' ? refused('invalid-append', `${name} cannot be appended over [0, ${upper + 1})`) : refused('batch-consumed', `cannot append ${name}: it was ${status}`);
        await j.call(`compareAndAppend([b], 0, ${upper + 1})`, expect, () => shard.compareAndAppend([b], 0, upper + 1));
      }
      j.same('consensus commands after a refused append', before, cas());
    } else {
      j.same('appendable', status === 'owned', b.appendable);
    }
    j.same('status', status, b.status);
  }
  // What the stores hold: a consumed batch's hollow parts stay (the shard owns them); a deleted one's are gone.
  j.same('blobs left', status === 'deleted' ? 0 : hollow, (await store.list()).length);
  j.same('shard upper', status === 'consumed' ? upper : 0, (await shard.fetchState()).upper);
}

// ---------------------------------------------------------------------------------------------------
// The stores' contracts: a PUT never overwrites; a compare-and-set must name the next sequence number.

async function stores(j: Judge): Promise<void> {
  const d = j.draw;
  const store = new MemBlob();
  const a = writerOf({}, store, 'w');
  const b = writerOf({}, store, 'w');
  const key = a.blob.newPartKey();
  const mine = new Uint8Array([1, 2, 3, d.int(200)]);
  await j.call(`set(${key})`, OK, () => a.blob.set(key, mine, WHERE));
  const same = d.int(2) === 0;
  const theirs = same ? mine.slice() : new Uint8Array([9, d.int(200)]);
  await j.call(`set(${key}) by a second client of writer "w" with ${same ? 'the same' : 'other'} bytes`, same ? OK : refused('blob-key-exists', JSON.stringify(key), 'already exists', '"w"'), () => b.blob.set(key, theirs, WHERE));
  j.same('the stored part', [...mine], [...((await store.get(key)) ?? [])]);
  j.same('PUTs counted by the second client', same ? 1 : 0, b.metrics.c.blobPuts);

  const consensus = new MemConsensus();
  const head = d.int(3);
  for (let s = 0; s < head; s++) await j.call(`compareAndSet(k, ${s === 0 ? 'null' : s - 1}, seqNo ${s})`, OK, () => consensus.compareAndSet('k', s === 0 ? null : s - 1, { seqNo: s, data: new Uint8Array([s]) }));
  const expected = head === 0 ? null : head - 1;
  const want = head;
  const wrong = want + 1 + d.int(3);
  await j.call(`compareAndSet(k, ${String(expected)}, seqNo ${wrong})`, refused('consensus-invariant', `new seqNo must be ${want} after ${String(expected)}, got ${wrong}`), () => consensus.compareAndSet('k', expected, { seqNo: wrong, data: new Uint8Array([7]) }));
  j.same('head after a refused compare-and-set', head === 0 ? null : head - 1, (await consensus.head('k'))?.seqNo ?? null);

  // The stores count every call they answer (what tests and tools read of them): reads too.
  const blobStats = { ...store.stats };
  const consensusStats = { ...consensus.stats };
  for (let n = 1 + d.int(6); n > 0; n--) {
    const op = d.int(4);
    if (op === 0) {
      await j.call(`get(${key})`, OK, () => store.get(key));
      blobStats.gets += 1;
    } else if (op === 1) {
      await j.call('list()', OK, () => store.list());
      blobStats.lists += 1;
    } else if (op === 2) {
      await j.call('scan(k, 0)', OK, () => consensus.scan('k', 0));
      consensusStats.scans += 1;
    } else {
      await j.call('head(k)', OK, () => consensus.head('k'));
      consensusStats.heads += 1;
    }
  }
  j.same('blob store stats', blobStats, store.stats);
  j.same('consensus store stats', consensusStats, consensus.stats);
}

// ---------------------------------------------------------------------------------------------------
// The writer registry: claims that race each other for its sequence number, retirements (one retired
// twice), storage faults on its calls (survived), and a permanent failure (refused, nothing committed).

async function registry(j: Judge): Promise<void> {
  const d = j.draw;
  const inner = new MemConsensus();
  /** What the next compare-and-sets, and the next reads, do (in call order; then `ok`). */
  const cas: (StorageFault | 'ok')[] = [];
  const reads: (StorageFault | 'ok')[] = [];
  const consensus = new FaultyConsensus(inner, { decide: (op) => (op === 'consensus.cas' ? cas.shift() : reads.shift()) ?? 'ok' });
  const metrics = new MetricsRecorder();
  const events: TraceEvent[] = [];
  const io: RetryContext = { scheduler: programScheduler, where: WHERE, trace: new Trace({ event: (e) => events.push(e) }), metrics };
  const shard = 'misuse-shard';
  const replicas = 2 + d.int(3);
  /** The model: every writer claimed, by id, with its replica and why it can no longer append. */
  const model = new Map<string, { replica: number; retired: Retired | null }>();
  /** Incarnations committed by claims whose answer was lost: nobody holds them. */
  let orphans = 0;
  const rounds = 2 + d.int(3);
  for (let k = 0; k < rounds; k++) {
    // Claims by distinct replicas at once: they race for the registry's next sequence number (a loser
    // reads again and retries); faults that a retry survives hit whichever calls come next.
    const who = Array.from({ length: replicas }, (_, r) => r).filter(() => d.int(2) === 0);
    if (who.length === 0) who.push(d.int(replicas));
    for (let f = d.int(3); f > 0; f--) cas.push(d.pick(['ok', 'transient', 'indeterminate-applied', 'indeterminate-lost'] as const));
    for (let f = d.int(2); f > 0; f--) reads.push(d.pick(['transient', 'indeterminate'] as const));
    const appliedBefore = consensus.stats['consensus.cas/indeterminate-applied'] ?? 0;
    const got = await Promise.all(who.map((r) => j.call(`claimWriter(replica ${r})`, OK, () => claimWriter(consensus, shard, r, metrics, io))));
    // A claim whose compare-and-set applied though its answer was lost is made again: the incarnation
    // it committed is held by nobody, and the claim made again expires it.
    orphans += (consensus.stats['consensus.cas/indeterminate-applied'] ?? 0) - appliedBefore;
    // (claims of one round are by distinct replicas, and a claim expires only its own replica's writers:
    // the order they committed in does not change what the registry says)
    got.forEach((w, i) => {
      const r = who[i] as number;
      for (const m of model.values()) if (m.replica === r && m.retired === null) m.retired = 'expired';
      if (w === undefined) return;
      if (model.has(w.id)) j.wrong.push(`claimWriter(replica ${r}) returned ${w.id}, a writer claimed before`);
      if (w.replica !== r || w.id !== `w${w.incarnation}-r${r}`) j.wrong.push(`claimWriter(replica ${r}) returned ${JSON.stringify(w)}`);
      model.set(w.id, { replica: r, retired: null });
    });
    cas.length = 0;
    reads.length = 0;
    // Retirements of live writers; now and then one retired already, again (the first reason stands).
    // They meet survivable faults of their own (what the claims left unused is dropped above).
    for (let f = d.int(3); f > 0; f--) cas.push(d.pick(['ok', 'transient', 'indeterminate-applied', 'indeterminate-lost'] as const));
    for (let f = d.int(2); f > 0; f--) reads.push(d.pick(['transient', 'indeterminate'] as const));
    for (const [id, m] of [...model].filter(() => d.int(3) === 0)) {
      const reason: Retired = d.int(2) === 0 ? 'finished' : 'expired';
      const w = { id, incarnation: Number(id.slice(1, id.indexOf('-'))), replica: m.replica, retired: m.retired };
      await j.call(`retireWriter(${id}, ${reason})`, OK, () => retireWriter(consensus, shard, w, reason, metrics, io));
      m.retired ??= reason;
    }
    cas.length = 0;
    reads.length = 0;
  }
  // A compare-and-set that fails permanently: the claim is refused and commits nothing.
  cas.push('permanent');
  const r = d.int(replicas);
  await j.call(`claimWriter(replica ${r}) whose compare-and-set fails permanently`, refused('storage-permanent', 'consensus.cas', 'permanent'), () => claimWriter(consensus, shard, r, metrics, io));
  const read = await readWriters(inner, shard);
  const entries = (m: ReadonlyMap<string, { readonly replica: number; readonly retired: Retired | null }>) =>
    [...m].map(([id, w]) => `${id}:${w.replica}:${w.retired ?? 'live'}`).sort();
  const held = new Map([...read].filter(([id]) => model.has(id)));
  j.same('the writers the registry holds', entries(model), entries(held));
  // Besides those, only the incarnations nobody holds, each expired by the claim made again.
  const unheld = [...read.values()].filter((w) => !model.has(w.id));
  j.same('incarnations nobody holds', orphans, unheld.length);
  j.same('their state', unheld.map(() => 'expired'), unheld.map((w) => w.retired));
  // Every id reads back from its part keys, multi-digit numbers too (a registry reaches incarnation 10).
  const far = `w${10 + d.int(990)}-r${d.int(20)}`;
  for (const id of [...read.keys(), far]) j.same(`writerOfKey("${id}/part-${d.int(20)}")`, id, writerOfKey(`${id}/part-${d.int(20)}`));
  const injected = Object.values(consensus.stats).reduce((n, k) => n + k, 0);
  j.same('fault events (every injected fault, reported once)', injected, events.filter((e) => e.kind === 'fault').length);
}

// ---------------------------------------------------------------------------------------------------
// The fault injector's contract (persist/faulty.ts): what each decided outcome does to each call. The
// fault world is only as strong as this: an `indeterminate-applied` PUT that never reached the store
// would leave the retry's "my key, my bytes" path untried while the trace said otherwise.

async function faults(j: Judge): Promise<void> {
  const d = j.draw;
  const blobStore = new MemBlob();
  const inner = new MemConsensus();
  let next: StorageFault | 'ok' = 'ok';
  const plan = { decide: () => next };
  const stats: Record<string, number> = {};
  const blob = new FaultyBlob(blobStore, plan, stats);
  const consensus = new FaultyConsensus(inner, plan, stats);
  const want: Record<string, number> = {};
  /** The model of the stores: blob contents, and the consensus key's versions. */
  const blobs = new Map<string, number>();
  const versions: number[] = [];
  const steps = 6 + d.int(8);
  for (let s = 0; s < steps; s++) {
    next = d.pick(['ok', 'ok', 'transient', 'indeterminate-applied', 'indeterminate-lost', 'indeterminate', 'permanent'] as const);
    const op = d.pick(['blob.get', 'blob.set', 'blob.setIfAbsent', 'blob.delete', 'blob.list', 'consensus.head', 'consensus.cas', 'consensus.scan'] as const);
    const key = `k${d.int(3)}`;
    const byte = d.int(250);
    // A compare-and-set that expects the head (it applies) or a stale one (it loses its race).
    const head = versions.length === 0 ? null : versions.length - 1;
    const expected = d.int(4) === 0 && head !== null ? (head === 0 ? null : head - 1) : head;
    const wins = expected === head;
    const effectful = op === 'blob.set' || op === 'blob.setIfAbsent' || op === 'blob.delete' || op === 'consensus.cas';
    // What the call does to the stores: `ok` runs it; `indeterminate-applied` runs an effectful call and
    // loses its answer (a compare-and-set that lost its race, or a set-if-absent of a key already there,
    // changed nothing: relabelled `-lost`).
    const runs = next === 'ok' || (next === 'indeterminate-applied' && effectful);
    const changesNothing = (op === 'consensus.cas' && !wins) || (op === 'blob.setIfAbsent' && blobs.has(key));
    const label = next === 'indeterminate-applied' && changesNothing ? 'indeterminate-lost' : next;
    const storeOp = op === 'blob.setIfAbsent' ? 'blob.set' : op;
    const expect: Expect =
      next === 'ok'
        ? OK
        : refused(next === 'transient' ? 'storage-transient' : next === 'permanent' ? 'storage-permanent' : 'storage-indeterminate', 'injected fault', `${storeOp} "${op.startsWith('blob.list') ? '' : op.startsWith('consensus') ? 'c' : key}"`, `(${label})`);
    if (next !== 'ok') want[`${storeOp}/${label}`] = (want[`${storeOp}/${label}`] ?? 0) + 1;
    const call = (): Promise<unknown> => {
      switch (op) {
        case 'blob.get':
          return blob.get(key);
        case 'blob.set':
          return blob.set(key, new Uint8Array([byte]));
        case 'blob.setIfAbsent':
          return blob.setIfAbsent(key, new Uint8Array([byte]));
        case 'blob.delete':
          return blob.delete(key);
        case 'blob.list':
          return blob.list();
        case 'consensus.head':
          return consensus.head('c');
        case 'consensus.cas':
          return consensus.compareAndSet('c', expected, { seqNo: expected === null ? 0 : expected + 1, data: new Uint8Array([byte]) });
        default:
          return consensus.scan('c', 0);
      }
    };
    let caught: unknown;
    await j.call(`${op}${op.startsWith('blob') && op !== 'blob.list' ? `(${key})` : ''} → ${next}`, expect, async () => {
      try {
        return await call();
      } catch (e) {
        caught = e;
        throw e;
      }
    });
    if (next !== 'ok') j.same(`the injected fault of ${op} → ${next}`, { op: storeOp, fault: label }, injectedFault(caught) ?? null);
    if (runs) {
      if (op === 'blob.set' || (op === 'blob.setIfAbsent' && !blobs.has(key))) blobs.set(key, byte);
      if (op === 'blob.delete') blobs.delete(key);
      if (op === 'consensus.cas' && wins) versions.push(byte);
    }
  }
  j.same('the blob store', [...blobs].sort(), await Promise.all([...(await blobStore.list())].sort().map(async (k) => [k, ((await blobStore.get(k)) ?? [])[0]])));
  j.same('the consensus versions', versions, (await inner.scan('c', 0)).map((v) => v.data[0]));
  j.same('faults counted by op and outcome', Object.entries(want).sort(), Object.entries(stats).sort());
}

// ---------------------------------------------------------------------------------------------------
// A caller that reuses its arrays: the chunk array it pushed (or added) is cleared, refilled or
// reordered as soon as the awaited call returns — before the builder task has read it. The batch holds
// exactly what was pushed, in push order, and so do its parts' bytes.

async function reuse(j: Judge): Promise<void> {
  const d = j.draw;
  // The builder task reads its channel only when the program lets it: after the caller reused its array
  // (a runtime may run the task that late; under the pass-through scheduler it would read at once).
  const held: (() => void)[] = [];
  let free = false;
  const scheduler: Scheduler = {
    point: (site) => (free || site.label !== 'builder.recv' ? programScheduler.point(site) : new Promise<void>((resolve) => held.push(resolve))),
  };
  const letRead = (): void => {
    for (const resume of held.splice(0)) resume();
  };
  const { registry: shared, tasks, blob } = sharedHarness({ scheduler, persist: { blobTargetSize: 1 + d.int(120), inlineSingleMaxBytes: d.int(80) } });
  const range = { lower: 0, upper: 1 + d.int(3) };
  const id = 1 + d.int(5);
  const h = await j.call(`builder(${id})`, OK, () => shared.builder(id, range, { worker: 0 }));
  if (h === undefined) return;
  const buffer: Update[] = [];
  const pushed: Update[] = [];
  const reused = (how: number): string => {
    if (how === 0) buffer.length = 0;
    else if (how === 1) buffer.splice(0, buffer.length, ...buffer.map(() => update(range.lower, 3)));
    else buffer.reverse();
    return ['cleared', 'refilled', 'reversed'][how] as string;
  };
  for (let n = 1 + d.int(4); n > 0; n--) {
    buffer.length = 0;
    for (let k = 1 + d.int(4); k > 0; k--) buffer.push(update(range.lower + d.int(range.upper - range.lower), 1 + d.int(40)));
    pushed.push(...buffer);
    await j.call(`push(buffer ${show(buffer)})`, OK, () => h.push(buffer));
    j.program.push(`the caller's buffer ${reused(d.int(3))}`);
    letRead();
  }
  free = true;
  letRead();
  const batch = await j.call('finish()', OK, () => h.finish());
  await j.call('the builder task ends', OK, () => tasks.whenAllDone());
  if (batch === undefined || batch === null) return j.same('the received batch', 'a batch', batch);
  j.same('the batch (in push order)', pushed.map((u) => u.id), batch.updateIds);
  j.same("its parts' keys", pushed.map((u) => u.key), await keysOf(batch, blob));

  // The same caller with a batch builder of its own: the array it added is reused at once.
  const writer = writerOf({ blobTargetSize: 1 + d.int(120), inlineSingleMaxBytes: d.int(80) });
  const b = new BatchBuilder(writer, range.lower, range.upper, WHERE);
  const added: Update[] = [];
  for (let n = 1 + d.int(3); n > 0; n--) {
    buffer.length = 0;
    for (let k = 1 + d.int(4); k > 0; k--) buffer.push(update(range.lower + d.int(range.upper - range.lower), 1 + d.int(40)));
    added.push(...buffer);
    await j.call(`add(buffer ${show(buffer)})`, OK, () => b.add(buffer));
    j.program.push(`the caller's buffer ${reused(d.int(3))}`);
  }
  const own = await j.call('finish()', OK, () => b.finish());
  if (own === undefined) return;
  j.same('the own batch (in add order)', added.map((u) => u.id), own.updateIds);
  j.same("its parts' keys", added.map((u) => u.key), await keysOf(own, writer.store));
}

/** The keys a batch's parts hold, decoded from their bytes (a hollow part's from the blob store). */
async function keysOf(b: Batch, store: MemBlob): Promise<string[]> {
  const keys: string[] = [];
  for (const p of b.parts) {
    const bytes = p.kind === 'inline' ? p.data : await store.get(p.key);
    if (bytes !== undefined) keys.push(...decodePart(bytes).map((u) => u.key));
  }
  return keys;
}

// ---------------------------------------------------------------------------------------------------
// Ids anywhere in their declared range: shared ids from 0 to the far end (2^53 − 1) and update ids near
// it, and the same sequence number in two MV sinks' namespaces of one process-global registry (their
// entries never collide: each gets its own batch, and a sweep removes each under its own sink).

async function ids(j: Judge): Promise<void> {
  const d = j.draw;
  const metrics = new MetricsRecorder();
  const events: TraceEvent[] = [];
  const trace = new Trace({ event: (e) => events.push(e) });
  const tasks = new TaskGroup();
  const config = resolvePersistConfig({ blobTargetSize: 1 + d.int(200), inlineSingleMaxBytes: d.int(100) });
  const store = new MemBlob();
  const sinks = ['shard-a', 'shard-b'].map((shard, sink) => ({ sink, shard, trace, writer: { config, blob: new BlobClient(store, programScheduler, metrics, `w${sink}`, trace), metrics, shardId: shard } }));
  const [a, b] = sinks as [(typeof sinks)[0], (typeof sinks)[0]];
  const shared = new SharedBatches({ replica: 0, process: 0, writer: a.writer, scheduler: programScheduler, trace, bugs: new BugSwitches([]), spawn: tasks.spawn, sinks: [0, 1], shard: a.shard });
  const far = Number.MAX_SAFE_INTEGER;
  await j.call(`builder(${far + 1})`, refused('invalid-config', 'shared id', `${far + 1}`), () => shared.builder(batchId(far + 1, a.shard), { lower: 0, upper: 1 }, { worker: 0, sink: a }));
  // Rounds of opens and finishes, each id's sequence number drawn from the whole range, sometimes the same
  // in both sinks (with different descriptions: no conflict, since they are different ids).
  const dead: { sink: number; seq: number }[] = [];
  let entries = 0;
  let retained = 0;
  let nextUpdate = far - 200;
  for (let round = 3 + d.int(5); round > 0; round--) {
    const seq = d.pick([0, 1 + d.int(9), far - d.int(3), far, Math.floor(far / 2) + d.int(5)]);
    const both = d.int(2) === 0;
    const opened: { sink: (typeof sinks)[0]; upper: number; handle: SharedBatchHandle; ids: number[] }[] = [];
    for (const sink of both ? [a, b] : [d.pick([a, b])]) {
      const upper = 1 + sink.sink + d.int(2);
      const key = `${sink.sink}#${seq}`;
      // A sweep runs first when the map outgrew twice what the last one left (every sink's entries).
      const sweeps = entries > 2 * retained;
      const handle = await j.call(`builder(${sink.shard}#${seq}, [0, ${upper}))`, OK, () => shared.builder(batchId(seq, sink.shard), { lower: 0, upper }, { worker: sink.sink, sink }));
      if (handle === undefined) return;
      if (sweeps) {
        // (before the lookup: every dead entry goes, this id's too)
        const removed = [...dead].sort((x, y) => x.sink - y.sink || x.seq - y.seq);
        const sweep = events.filter((e) => e.kind === 'sweep').at(-1);
        j.same('what the sweep removed, per sink, in id order', [0, 1].map((s) => ({ sink: s, removed: removed.filter((x) => x.sink === s).map((x) => x.seq) })), sweep?.kind === 'sweep' ? sweep.sinks : undefined);
        entries -= removed.length;
        retained = entries;
        dead.length = 0;
      }
      const isNew = !dead.some((x) => `${x.sink}#${x.seq}` === key);
      if (isNew) entries += 1;
      else dead.splice(dead.findIndex((x) => `${x.sink}#${x.seq}` === key), 1);
      j.same(`refs(${sink.shard}#${seq})`, 1, shared.refs(batchId(seq, sink.shard)));
      const us = Array.from({ length: 1 + d.int(3) }, () => ({ id: nextUpdate++, key: `k${nextUpdate}`, value: new Uint8Array(1 + d.int(30)), time: d.int(upper), diff: 1 }));
      await j.call(`push(${show(us)})`, OK, () => handle.push(us));
      opened.push({ sink, upper, handle, ids: us.map((u) => u.id) });
    }
    for (const o of opened) {
      const got = await j.call(`finish() of ${o.sink.shard}#${seq}`, OK, () => o.handle.finish());
      j.same(`the batch of ${o.sink.shard}#${seq}`, o.ids, got?.updateIds ?? null);
      j.same(`its range`, [0, o.upper], got === null || got === undefined ? null : [got.lower, got.upper]);
      dead.push({ sink: o.sink.sink, seq });
    }
  }
  await j.call('every builder task ends', OK, () => tasks.whenAllDone());
}

// ---------------------------------------------------------------------------------------------------
// Several writers on one shard, each with its own persist configuration (inline limits, part targets),
// as after a configuration change: each append is refused by inline backpressure only when it adds
// inline bytes and state's plus its own reach its writer's limit — an append with none never waits,
// whatever the shard holds — and every write lands as predicted.

async function writers(j: Judge): Promise<void> {
  const d = j.draw;
  const consensus = new MemConsensus();
  const store = new MemBlob();
  const limits = [1, 2 + d.int(40), 34, 64 + d.int(200), 1 << 20];
  const ws = Array.from({ length: 2 + d.int(2) }, (_, i) => {
    const persist = i === 0 ? {} : { inlineSingleMaxBytes: d.pick([0, 1 + d.int(60), 4096]), inlineTotalMaxBytes: d.pick(limits), blobTargetSize: d.pick([1, 1 + d.int(80), 128 << 20]) };
    const w = writerOf(persist, store, `w${i}`);
    const shard = new ShardWriter({ shardId: 's', consensus, blob: w.blob, scheduler: programScheduler, metrics: w.metrics, config: w.config, where: WHERE, trace: w.trace, bugs: new BugSwitches([]) });
    j.program.push(`writer w${i}: inline single < ${w.config.inlineSingleMaxBytes}, inline total < ${w.config.inlineTotalMaxBytes}, parts of ${w.config.blobTargetSize}`);
    return { ...w, shard, name: `w${i}` };
  });
  let upper = 0;
  let inline = 0;
  for (let step = 4 + d.int(8); step > 0; step--) {
    const w = d.pick(ws);
    const empty = d.int(3) === 0;
    // (now and then the writer's view is one append behind: a mismatch, its batch deleted)
    const stale = d.int(5) === 0 && upper > 0;
    const expected = stale ? upper - 1 : upper;
    const batches: Batch[] = [];
    if (!empty) {
      const bb = new BatchBuilder(w, expected, expected + 1, WHERE);
      await bb.add(Array.from({ length: 1 + d.int(4) }, () => update(expected, 1 + d.int(30))));
      const b = await j.call(`${w.name}: a batch`, OK, () => bb.finish());
      if (b === undefined) return;
      batches.push(b);
    }
    const adding = batches.flatMap((b) => b.parts).reduce((n, p) => n + (p.kind === 'inline' ? p.payloadBytes : 0), 0);
    const flush = !stale && adding > 0 && inline + adding >= w.config.inlineTotalMaxBytes;
    const parts = batches.flatMap((b) => b.parts).length;
    const inlineParts = batches.flatMap((b) => b.parts).filter((p) => p.kind === 'inline').length;
    const hollow = flush ? parts : parts - inlineParts;
    const what = `${w.name}.compareAndAppend(${empty ? 'no batches' : `${parts} part(s), ${adding} inline bytes`}, ${expected}, ${expected + 1}) on a shard with ${inline} inline bytes`;
    const r = await j.call(what, OK, () => w.shard.compareAndAppend(batches, expected, expected + 1));
    if (r === undefined) return;
    j.same(`${what}: result`, stale ? { kind: 'upper-mismatch', current: upper, expected } : { kind: 'ok', parts: { hollow, inline: parts - hollow }, flushedParts: flush ? inlineParts : 0 }, r);
    if (stale) {
      for (const b of batches) await b.delete();
      continue;
    }
    upper += 1;
    if (!flush) inline += adding;
    const state = await ws[0]?.shard.fetchState();
    j.same('the shard (upper, inline bytes)', [upper, inline], [state?.upper, state?.inlineBytes]);
  }
}

// ---------------------------------------------------------------------------------------------------
// Writer claims that race each other, for one replica or several, with a storage fault of every kind on
// the first compare-and-set, which is held until the second claim committed: every claim returns its own
// writer id, the last committed of a replica is its one live writer, and every incarnation nobody holds
// is expired.

async function claims(j: Judge): Promise<void> {
  const d = j.draw;
  const inner = new MemConsensus();
  const fault = d.pick(['transient', 'indeterminate-applied', 'indeterminate-lost', 'indeterminate', 'permanent'] as const);
  const first = d.int(2) === 0 ? 'held' : 'first';
  let armed = true;
  const faulty = new FaultyConsensus(inner, { decide: (op) => (op === 'consensus.cas' && armed ? ((armed = false), fault) : 'ok') });
  // The first compare-and-set (`held`) waits until the second committed, then meets the fault; or
  // (`first`) meets it at once.
  let calls = 0;
  let release: () => void = () => undefined;
  const second = new Promise<void>((resolve) => (release = resolve));
  const consensus: Consensus = {
    head: (k) => faulty.head(k),
    scan: (k, from) => faulty.scan(k, from),
    async compareAndSet(k, expected, next) {
      const n = calls++;
      if (n === 0 && first === 'held') await second;
      const r = n === 0 ? await faulty.compareAndSet(k, expected, next) : await inner.compareAndSet(k, expected, next);
      if (n === 1) release();
      return r;
    },
  };
  const metrics = new MetricsRecorder();
  const io: RetryContext = { scheduler: programScheduler, where: WHERE, trace: new Trace(), metrics };
  const shard = 'claims';
  // Earlier writers of the replicas, then the race.
  const replicas = 1 + d.int(2);
  const earlier: string[] = [];
  for (let r = 0; r < replicas; r++) {
    const w = await j.call(`claimWriter(replica ${r})`, OK, () => claimWriter(inner, shard, r, metrics));
    if (w !== undefined) earlier.push(w.id);
  }
  const racing = Array.from({ length: 2 + d.int(2) }, () => (d.int(3) === 0 ? d.int(replicas) : 0));
  j.program.push(`claims racing for replicas [${racing.join(', ')}]; the first compare-and-set ${first === 'held' ? 'held until the second committed, then' : ''} ${fault}`);
  const got = await Promise.all(
    racing.map((r, i) => j.call(`claimWriter(replica ${r}) #${i}`, i === 0 && fault === 'permanent' ? refused('storage-permanent', 'consensus.cas', 'permanent') : OK, () => claimWriter(consensus, shard, r, metrics, io))),
  );
  const returned = got.flatMap((w, i) => (w === undefined ? [] : [{ ...w, replica: racing[i] as number }]));
  const idsReturned = returned.map((w) => w.id);
  j.same('writer ids two claims both returned', [], idsReturned.filter((id, i) => idsReturned.indexOf(id) !== i));
  for (const w of returned) if (earlier.includes(w.id)) j.wrong.push(`a claim returned ${w.id}, a writer claimed before the race`);
  const read = await readWriters(inner, shard);
  for (let r = 0; r < replicas; r++) {
    const mine = returned.filter((w) => w.replica === r);
    const live = [...read.values()].filter((w) => w.replica === r && w.retired === null).map((w) => w.id);
    const last = mine.sort((x, y) => y.incarnation - x.incarnation)[0];
    j.same(`replica ${r}'s live writers`, [last === undefined ? earlier[r] : last.id], live);
  }
  for (const w of read.values()) {
    if (!idsReturned.includes(w.id) && !earlier.includes(w.id)) j.same(`${w.id}, held by nobody`, 'expired', w.retired);
  }
}

const SCENARIO: Record<Scenario, (j: Judge) => Promise<void>> = { handles, barrier, builder, batch, stores, registry, faults, failing, reuse, ids, writers, claims };
