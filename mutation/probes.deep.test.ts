/**
 * The check's whole budget, instrumented: the killer of `npm run mutation` (mutation/check.stryker.mjs) —
 * the plain check, the fault world and the gallery, seed 1, one job, unshrunk — run in this process with
 * probes at the points of surviving mutants that mutation/evidence.ts judges equivalent. Each probe
 * counts what would have to happen for its mutant to change an output; every count must stay 0 while
 * every stage still gives the killer's verdicts (plain and fault world pass, every gallery bug caught).
 *
 * - `ReplicaState.appendStarted` is never read before its first write (mint.ts writes it with every
 *   description it makes live; mayPoll reads it only with one live): its initial value reaches nothing.
 * - `at` (replica-state.ts) never throws: the message of its RangeError reaches nothing (a throw would
 *   also break the run, which the check reports whatever the message).
 * - a task's name (TaskGroup.spawn: `r0 append w1`, `barrier timer …`) is read only by `TaskGroup.running`,
 *   and nothing the check runs reads it: the names reach no output.
 * - the append worker's inbox never holds a hand of another description when it takes the hands of
 *   one (append.ts): its filter never rejects a hand, so a filter that takes every hand takes the same.
 * - a barrier's `late` is read only once it is finalized, and never on a barrier its timer completed (the
 *   registry records that completion itself): the state's initial lateness and the one its timer's
 *   completion writes reach nothing;
 * - without faults every barrier state made after early skips sees an arrival, which arms its timer if
 *   construction did not.
 * - a registry's calls for one sink always pass that sink's writer and trace (sink 0's are the registry's
 *   own): a context made afresh per call equals the one the registry keeps, field by field.
 * - no open without a barrier meets an id its registry may hold late: an id a barrier used, in a registry
 *   where a barrier was opened with a deadline (a late id needs its timer). The misuse programs open such
 *   ids without a barrier on purpose, never with a deadline that makes a timer.
 *
 * Deep: the whole budget, instrumented (several minutes).
 */
import { afterAll, describe, expect, it, vi } from 'vitest';
import { BUG_NAMES, type BugName } from '../vocab/index.ts';
import type { BugSwitches } from '../impl/bugs.ts';
import type { Expiry } from '../impl/shared/barrier-state.ts';
import { Mailbox } from '../impl/runtime/mailbox.ts';
import { TaskGroup } from '../impl/runtime/task-group.ts';
import { SharedBatches } from '../impl/shared/shared-batches.ts';
import { asBatchId, keyOf } from '../impl/shared/batch-id.ts';
import type { RegistrySink, SharedBatchesContext } from '../impl/shared/context.ts';
import type { SharedBatchId, SharedId } from '../vocab/index.ts';
import { runCheck } from '../conformance/check.ts';
import { DEFAULT_FAULT_RATE } from '../conformance/faults.ts';
import { plant, type Change } from '../conformance/test-support/plant.ts';

const probe = vi.hoisted(() => ({
  states: 0,
  appendStartedReadUnwritten: 0,
  atCalls: 0,
  atThrows: 0,
  runningReads: 0,
  takes: 0,
  handsRejected: 0,
  lateReads: 0,
  lateReadUnfinalized: 0,
  timerCompletions: 0,
  lateReadAfterTimer: 0,
  earlyStates: 0,
  earlyArrived: 0,
  sinkCalls: 0,
  sinkContextsDiffering: 0,
  timedRegistries: 0,
  bestEffortOpensWithTimer: 0,
  bestEffortOpensOfBarrierIds: 0,
}));

vi.mock('../impl/shared/barrier-state.ts', async (original) => {
  const real = await original<typeof import('../impl/shared/barrier-state.ts')>();
  const early = new WeakSet<object>();
  const byTimer = new WeakSet<object>();
  class Probed extends real.BarrierState {
    constructor(...args: ConstructorParameters<typeof real.BarrierState>) {
      super(...args);
      const [, participants, pending] = args;
      if (pending < participants) {
        probe.earlyStates += 1;
        early.add(this);
      }
    }
    override get late(): boolean {
      probe.lateReads += 1;
      if (!this.finalized) probe.lateReadUnfinalized += 1;
      if (byTimer.has(this)) probe.lateReadAfterTimer += 1;
      return super.late;
    }
    override arrive(finisher: number | null): boolean {
      if (early.delete(this)) probe.earlyArrived += 1;
      return super.arrive(finisher);
    }
    override expire(bugs: BugSwitches): Expiry {
      const outcome = super.expire(bugs);
      if (outcome === 'completed') {
        probe.timerCompletions += 1;
        byTimer.add(this);
      }
      return outcome;
    }
  }
  return { ...real, BarrierState: Probed };
});

vi.mock('../impl/sink/replica-state.ts', async (original) => {
  const real = await original<typeof import('../impl/sink/replica-state.ts')>();
  class Probed extends real.ReplicaState {
    constructor(...args: ConstructorParameters<typeof real.ReplicaState>) {
      super(...args);
      probe.states += 1;
      let value = this.appendStarted;
      let written = false;
      Object.defineProperty(this, 'appendStarted', {
        get: () => {
          if (!written) probe.appendStartedReadUnwritten += 1;
          return value;
        },
        set: (v: boolean) => {
          written = true;
          value = v;
        },
      });
    }
  }
  return {
    ...real,
    ReplicaState: Probed,
    at: <T>(list: readonly T[], i: number): T => {
      probe.atCalls += 1;
      try {
        return real.at(list, i);
      } catch (e) {
        probe.atThrows += 1;
        throw e;
      }
    },
  };
});

const running = Object.getOwnPropertyDescriptor(TaskGroup.prototype, 'running')?.get;
vi.spyOn(TaskGroup.prototype, 'running', 'get').mockImplementation(function (this: TaskGroup) {
  probe.runningReads += 1;
  return running?.call(this) as readonly string[];
});
const takeWhere = Mailbox.prototype.takeWhere;
vi.spyOn(Mailbox.prototype, 'takeWhere').mockImplementation(function <T>(this: Mailbox<T>, pred: (item: T) => boolean): T[] {
  probe.takes += 1;
  return takeWhere.call(this, (item: T) => {
    const taken = pred(item);
    if (!taken) probe.handsRejected += 1;
    return taken;
  }) as T[];
});

/** Per registry: the ids a barrier used (an open with participants, a skip), whether a barrier was
 * opened with a deadline, and the sinks its calls passed. */
const barrierIds = new WeakMap<SharedBatches, Set<string>>();
const timed = new WeakSet<SharedBatches>();
const sinksSeen = new WeakMap<SharedBatches, Map<number, RegistrySink>>();
function registryCall(registry: SharedBatches, id: SharedId | SharedBatchId, participants: number | undefined, deadline: number | undefined, open: boolean, sink: RegistrySink | undefined): void {
  const key = keyOf(asBatchId(id));
  const ids = barrierIds.get(registry) ?? new Set<string>();
  barrierIds.set(registry, ids);
  if (participants !== undefined) {
    ids.add(key);
    if (open && deadline !== undefined && deadline >= 0 && Number.isFinite(deadline) && !timed.has(registry)) {
      timed.add(registry);
      probe.timedRegistries += 1;
    }
  } else if (open && timed.has(registry)) {
    probe.bestEffortOpensWithTimer += 1;
    if (ids.has(key)) probe.bestEffortOpensOfBarrierIds += 1;
  }
  if (sink === undefined) return;
  probe.sinkCalls += 1;
  let seen = sinksSeen.get(registry);
  if (seen === undefined) {
    const { ctx } = registry as unknown as { ctx: SharedBatchesContext };
    seen = new Map([[0, { sink: 0, writer: ctx.writer, trace: ctx.trace, shard: ctx.shard }]]);
    sinksSeen.set(registry, seen);
  }
  const first = seen.get(sink.sink);
  if (first === undefined) seen.set(sink.sink, sink);
  else if (first.writer !== sink.writer || first.trace !== sink.trace) probe.sinkContextsDiffering += 1;
}
const open = SharedBatches.prototype.builder;
vi.spyOn(SharedBatches.prototype, 'builder').mockImplementation(function (this: SharedBatches, id, range, opts) {
  registryCall(this, id, opts.participants, opts.deadline, true, opts.sink);
  return open.call(this, id, range, opts);
});
const skip = SharedBatches.prototype.noteSkip;
vi.spyOn(SharedBatches.prototype, 'noteSkip').mockImplementation(function (this: SharedBatches, id, participants, worker, sink) {
  registryCall(this, id, participants, undefined, false, sink);
  return skip.call(this, id, participants, worker, sink);
});

afterAll(() => {
  vi.restoreAllMocks();
});

/** The probes that must stay 0, and those that show the instrumented points were reached. */
const zeros = () => ({
  appendStartedReadUnwritten: probe.appendStartedReadUnwritten,
  atThrows: probe.atThrows,
  runningReads: probe.runningReads,
  handsRejected: probe.handsRejected,
  lateReadUnfinalized: probe.lateReadUnfinalized,
  lateReadAfterTimer: probe.lateReadAfterTimer,
  sinkContextsDiffering: probe.sinkContextsDiffering,
  bestEffortOpensOfBarrierIds: probe.bestEffortOpensOfBarrierIds,
});
const ZEROS = { appendStartedReadUnwritten: 0, atThrows: 0, runningReads: 0, handsRejected: 0, lateReadUnfinalized: 0, lateReadAfterTimer: 0, sinkContextsDiffering: 0, bestEffortOpensOfBarrierIds: 0 };

async function stage(faults: number | undefined): Promise<void> {
  const before = { states: probe.states, atCalls: probe.atCalls, takes: probe.takes, lateReads: probe.lateReads, timerCompletions: probe.timerCompletions, earlyStates: probe.earlyStates, sinkCalls: probe.sinkCalls, timedRegistries: probe.timedRegistries, bestEffortOpensWithTimer: probe.bestEffortOpensWithTimer };
  const r = await runCheck({ variant: 'all', seed: 1, jobs: 1, shrink: false, ...(faults === undefined ? {} : { faults }) });
  expect(r.exitCode, r.output).toBe(0);
  expect(zeros()).toEqual(ZEROS);
  // (the probes were reached: sinks made, indices looked up, hands taken, barriers completed by a report
  // and by their timer, states made after early skips)
  expect(probe.states).toBeGreaterThan(before.states);
  expect(probe.lateReads).toBeGreaterThan(before.lateReads);
  expect(probe.timerCompletions).toBeGreaterThan(before.timerCompletions);
  expect(probe.earlyStates).toBeGreaterThan(before.earlyStates);
  expect(probe.atCalls).toBeGreaterThan(before.atCalls);
  expect(probe.takes).toBeGreaterThan(before.takes);
  expect(probe.sinkCalls).toBeGreaterThan(before.sinkCalls);
  // (the late-id probe's ground: registries with a timer, and opens without a barrier in them)
  expect(probe.timedRegistries).toBeGreaterThan(before.timedRegistries);
  expect(probe.bestEffortOpensWithTimer).toBeGreaterThan(before.bestEffortOpensWithTimer);
}

describe("the killer's budget, instrumented at the equivalent survivors' points", () => {
  it('the plain check passes, and no probe fires', async () => {
    await stage(undefined);
    // Without faults every barrier state made after early skips sees an arrival (its opener's finish).
    // (Not so in the fault world, where an incarnation may abort first, nor under a gallery bug that
    // drops a handle: there the timer is the only way out.)
    expect(probe.earlyStates - probe.earlyArrived).toBe(0);
  }, 1_800_000);

  it('the fault world passes, and no probe fires', () => stage(DEFAULT_FAULT_RATE), 1_800_000);

  it('the gallery: every bug is caught, and no probe fires', async () => {
    const missed: string[] = [];
    for (const bug of BUG_NAMES) {
      const r = await runCheck({ variant: 'all', seed: 1, bug, shrink: false });
      if (r.exitCode !== 1) missed.push(bug);
    }
    expect(missed).toEqual([]);
    expect(zeros()).toEqual(ZEROS);
  }, 1_800_000);
});

/**
 * Code reached only with a gallery bug switched on, but not behind its switch (so not Ignored): with every
 * switch off the mutated operand is never evaluated or its arm returns the same value (impl/test/
 * equivalent-mutants.test.ts); with the bug on, the mutant changes only how the bug does its harm, and
 * the gallery stage asks only that the bug is still caught. Shown here as the killer's gallery stage
 * runs it (`sbkit check --bug NAME --seed 1 --no-shrink`), in a copy of the kit with the mutant planted.
 */
describe('gallery-only survivors: with the mutant planted, the bug it sits under is still caught', () => {
  const STAGED_FROM = 'const from = this.#ignoresShard && lower === this.settings.startLower ? 0 : lower;';
  const ADVANCED = '.map((u) => (u.time < lower ? { ...u, time: lower } : u));';
  /** `sbkit check --bug NAME` in a copy of the kit with `change` planted fails (the bug is caught). */
  const caught = (bug: BugName, change: Change) => () => {
    const p = plant(change);
    try {
      const r = p.sbkit(['check', '--bug', bug, '--seed', '1', '--no-shrink']);
      expect(r.code, r.output).toBe(1);
      expect(r.output).toMatch(/FAILED/);
    } finally {
      p.dispose();
    }
  };
  const staged = (operand: string, to: string): Change => ({ file: 'impl/sink/replica-state.ts', from: operand === 'from' ? STAGED_FROM : ADVANCED, to });
  const REWRITE = 'restart-rewrites-appended-interval';

  it('a restarted incarnation rewriting every description (not only its first) still shows restart-rewrites-appended-interval', caught(REWRITE, staged('from', STAGED_FROM.replace('lower === this.settings.startLower', 'true'))), 600_000);
  it('a restarted incarnation rewriting all but its first description still shows restart-rewrites-appended-interval', caught(REWRITE, staged('from', STAGED_FROM.replace('lower === this.settings.startLower', 'lower !== this.settings.startLower'))), 600_000);
  it('rewritten updates that keep their times still show restart-rewrites-appended-interval', caught(REWRITE, staged('map', ADVANCED.replace('u.time < lower', 'false'))), 600_000);
  it('rewritten updates with those at lower copied still show restart-rewrites-appended-interval', caught(REWRITE, staged('map', ADVANCED.replace('u.time < lower', 'u.time <= lower'))), 600_000);
  it('the shared route falling through to the empty one still shows empty-finish-hands-nothing', caught('empty-finish-hands-nothing', { file: 'impl/sink/write.ts', from: "case 'shared':\n      return writeShared(r, ref.worker, desc, staged, barrier);", to: "case 'shared':" }), 600_000);
  // A push into a closed channel happens only under two gallery bugs; refused there as everywhere else
  // (the three mutants of the test that lets those bugs drop the chunk), each bug still shows.
  const REFUSED_ALWAYS: Change = { file: 'impl/shared/handle.ts', from: 'if (!this.#lossIsTheBug()) {', to: 'if (true) {' };
  it('a push into a closed channel refused under the bug too still shows late-handle-joins-finished-builder', caught('late-handle-joins-finished-builder', REFUSED_ALWAYS), 600_000);
  it('a push into a closed channel refused under the bug too still shows barrier-skip-double-count', caught('barrier-skip-double-count', REFUSED_ALWAYS), 600_000);
});
