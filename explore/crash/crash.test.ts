/**
 * `sbkit crash-test` (explore/crash/): the kill plan, the join of traces across incarnations (an
 * in-flight compare-and-set resolved from the writer tokens in state), the child's pacing, the command's
 * bad input. The real runs against PostgreSQL (replica processes SIGKILLed) are crash.deep.test.ts's.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../vocab/index.ts';
import type { StateDiff } from '../../impl/persist/state.ts';
import { main } from '../cli.ts';
import { captureIo } from '../io.ts';
import { pacedScheduler, seals } from './child.ts';
import { commitsOf, joinTraces } from './join.ts';
import { killPlan } from './plan.ts';
import type { TraceLine } from './protocol.ts';
import type { Incarnation, SupervisedRun } from './supervisor.ts';
import { readTraceFile } from './trace-file.ts';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'sbkit-crash-test-'));
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

async function run(argv: readonly string[]) {
  const io = captureIo();
  const code = await main(argv, io);
  return { code, out: io.stdout(), err: io.stderr() };
}

describe('the kill plan', () => {
  it('is drawn from the seed alone: sorted by upper, within the shard, aimed at a replica of the run', () => {
    const opts = { seed: 7, kills: 12, replicas: 3, intervals: 200, intervalMs: 10 };
    const plan = killPlan(opts);
    expect(killPlan(opts)).toEqual(plan);
    expect(killPlan({ ...opts, seed: 8 })).not.toEqual(plan);
    expect(plan.kills).toHaveLength(12);
    expect(plan.lastUpper).toBe(190);
    const uppers = plan.kills.map((k) => k.atUpper);
    expect(uppers).toEqual([...uppers].sort((a, b) => a - b));
    for (const k of plan.kills) {
      expect(k.atUpper).toBeLessThanOrEqual(plan.lastUpper);
      expect(k.replica).toBeGreaterThanOrEqual(0);
      expect(k.replica).toBeLessThan(3);
      expect(k.delayMs).toBeLessThanOrEqual(20);
    }
    expect(new Set(plan.kills.map((k) => k.replica)).size).toBeGreaterThan(1);
  });
});

describe('a replica process\'s helpers', () => {
  it('paces only the input\'s frontier steps, one per interval', async () => {
    const s = pacedScheduler(30);
    const order: string[] = [];
    const pass = (label: 'input.advance' | 'blob.set', tag: string) => s.point({ label, replica: 0 }).then(() => void order.push(tag));
    const t0 = performance.now();
    await Promise.all([pass('input.advance', 'advance 1'), pass('input.advance', 'advance 2'), pass('blob.set', 'blob.set')]);
    // the first frontier step and every other point pass at once (no timer), so the blob call, though asked
    // last, passes before the second frontier step, which waits for its interval (a lower bound: a busy
    // machine only waits longer)
    expect(order).toEqual(['advance 1', 'blob.set', 'advance 2']);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(25);
  });

  it('knows when an incarnation sealed: an append to K, a refusal at K, a restart at K', () => {
    const append = (upper: number, result: TraceEvent extends never ? never : { ok: true } | { ok: false; current: number }): TraceEvent =>
      ({ kind: 'append', replica: 0, lower: upper - 1, upper, batches: 0, parts: { hollow: 0, inline: 0 }, runs: 0, updates: [], result }) as TraceEvent;
    expect(seals(append(10, { ok: true }), 10)).toBe(true);
    expect(seals(append(9, { ok: true }), 10)).toBe(false);
    expect(seals(append(9, { ok: false, current: 10 }), 10)).toBe(true);
    expect(seals({ kind: 'restart', replica: 0, lower: 10 }, 10)).toBe(true);
    expect(seals({ kind: 'frontier', replica: 0, upper: 10 }, 10)).toBe(false);
  });
});

describe('joining the traces of incarnations', () => {
  const dir = path.join(scratch, 'join');
  mkdirSync(dir, { recursive: true });
  let n = 0;
  const mint = (replica: number, lower: number, upper: number): TraceEvent => ({ kind: 'mint', replica, desc: { lower, upper, appendWorker: 0, sharedId: lower, maxBytes: 0, barrier: false } });
  const ok = (replica: number, lower: number, upper: number): TraceEvent => ({
    kind: 'append',
    replica,
    lower,
    upper,
    batches: 1,
    parts: { hollow: 1, inline: 0 },
    runs: 1,
    updates: [],
    result: { ok: true },
  });
  const diff = (seqNo: number, writer: string, lower: number, upper: number): StateDiff => ({ seqNo, upper, since: 0, batch: { lower, upper, parts: [] }, writer, token: 0 });
  /** An incarnation whose trace file holds `events` at times t0, t0 + 1, … */
  function incarnation(replica: number, index: number, writer: string, t0: number, events: readonly TraceEvent[], killedAt?: number): Incarnation {
    const traceFile = path.join(dir, `t${n++}.jsonl`);
    const lines: TraceLine[] = [{ start: { writer, pid: 1, replica, incarnation: index } }, ...events.map((e, i) => ({ t: t0 + i, e }))];
    writeFileSync(traceFile, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n{"t": 1, "e": {"ki`);
    return { replica, index, applicationName: `app${n}`, traceFile, ...(killedAt === undefined ? {} : { killedAt }) };
  }
  const supervised = (incarnations: Incarnation[], events: SupervisedRun['events'] = []): SupervisedRun => ({
    shardId: 's',
    blobDir: dir,
    incarnations,
    kills: [],
    events,
    cleanups: [],
    failures: [],
    shortfall: [],
    timedOut: false,
    notes: [],
    processes: [],
    wallMs: 0,
  });

  it('reads a killed process\'s prefix and counts a last line cut short', () => {
    const inc = incarnation(0, 0, 'w0-r0', 100, [mint(0, 0, 1)]);
    const file = readTraceFile(inc.traceFile);
    expect(file).toMatchObject({ start: { writer: 'w0-r0' }, events: [{ t: 100, e: mint(0, 0, 1) }], torn: 1 });
    expect(readTraceFile(path.join(dir, 'never-written.jsonl'))).toEqual({ events: [], torn: 0 });
  });

  it('enters a commit the killed incarnation never learned as indeterminate-applied before its abort; its successor follows', () => {
    // Replica 0's first incarnation committed [0, 1) and [1, 2), was killed with [1, 2) in flight.
    const first = incarnation(0, 0, 'w0-r0', 100, [mint(0, 0, 1), ok(0, 0, 1), mint(0, 1, 2)], 110);
    const second = incarnation(0, 1, 'w2-r0', 200, [{ kind: 'restart', replica: 0, lower: 2 }]);
    const other = incarnation(1, 0, 'w1-r1', 101.5, [mint(1, 0, 1)]);
    const cleanup = { t: 205, e: { kind: 'cleanup', replica: 0, deleted: 1 } as TraceEvent };
    const joined = joinTraces(supervised([first, other, second], [cleanup]), [diff(0, 'w0-r0', 0, 1), diff(1, 'w0-r0', 1, 2)]);
    expect(joined).toEqual({
      ok: true,
      inflightApplied: 1,
      torn: 3,
      tails: [],
      trace: [
        mint(0, 0, 1),
        ok(0, 0, 1),
        mint(1, 0, 1),
        mint(0, 1, 2),
        { kind: 'fault', replica: 0, op: 'consensus.cas', fault: 'indeterminate-applied' },
        { kind: 'abort', replica: 0, reason: 'SIGKILL' },
        { kind: 'restart', replica: 0, lower: 2 },
        cleanup.e,
      ],
    });
    // Killed with nothing in flight: just the abort.
    const quiet = joinTraces(supervised([incarnation(0, 0, 'w0-r0', 100, [mint(0, 0, 1)], 105)]), []);
    expect(quiet).toMatchObject({ ok: true, inflightApplied: 0, trace: [mint(0, 0, 1), { kind: 'abort', replica: 0, reason: 'SIGKILL' }] });
  });

  it('an incarnation the stop caught after a commit: the commit joined as indeterminate-applied, then an abort, and the tail said', () => {
    // Stopped (the time bound) right after the shard took [1, 2), before its trace had the append.
    const stopped = { ...incarnation(0, 0, 'w0-r0', 100, [mint(0, 0, 1), ok(0, 0, 1), mint(0, 1, 2)]), stoppedAt: 110 };
    const joined = joinTraces(supervised([stopped]), [diff(0, 'w0-r0', 0, 1), diff(1, 'w0-r0', 1, 2)]);
    expect(joined).toMatchObject({
      ok: true,
      inflightApplied: 1,
      trace: [mint(0, 0, 1), ok(0, 0, 1), mint(0, 1, 2), { kind: 'fault', op: 'consensus.cas', fault: 'indeterminate-applied' }, { kind: 'abort', replica: 0, reason: 'stopped' }],
      tails: ['replica 0 incarnation 0 (writer w0-r0) was stopped while it ran; its trace ends after event 3, with its commit of [1, 2) in flight (the shard has it, the trace no answer: joined as indeterminate-applied), then an abort'],
    });
    // Stopped with nothing in flight: an abort, and the tail says only where the trace ends.
    const quiet = joinTraces(supervised([{ ...incarnation(0, 0, 'w0-r0', 100, [mint(0, 0, 1)]), stoppedAt: 105 }]), []);
    expect(quiet).toMatchObject({ ok: true, inflightApplied: 0, tails: [expect.stringMatching(/was stopped while it ran; its trace ends after event 1, then an abort$/)] });
    // Stopped before its claim returned: it wrote nothing, and nothing of it is joined; a planned kill
    // never lands there (it needs a running incarnation), so without a start line it is refused.
    const unclaimed = { replica: 0, index: 1, applicationName: 'x', traceFile: path.join(dir, 'never-claimed.jsonl') };
    expect(joinTraces(supervised([{ ...unclaimed, stoppedAt: 200 }]), [])).toMatchObject({ ok: true, trace: [], tails: ['replica 0 incarnation 1 was stopped before its start line (its writer claim had not returned): nothing of it to join'] });
    expect(joinTraces(supervised([{ ...unclaimed, killedAt: 200 }]), [])).toEqual({ ok: false, why: 'replica 0 incarnation 1 left no start line' });
    // A planned kill's commit in flight is not a tail: the kill is the point of the run.
    const killed = joinTraces(supervised([incarnation(0, 0, 'w0-r0', 100, [mint(0, 0, 1)], 105)]), [diff(0, 'w0-r0', 0, 1)]);
    expect(killed).toMatchObject({ ok: true, inflightApplied: 1, tails: [] });
  });

  it('refuses what no run can produce: a live incarnation\'s commit without its append, two commits in flight, a commit of another description', () => {
    const live = joinTraces(supervised([incarnation(0, 0, 'w0-r0', 1, [mint(0, 0, 1)])]), [diff(0, 'w0-r0', 0, 1)]);
    expect(live).toMatchObject({ ok: false, why: expect.stringMatching(/was not killed, yet the shard has its commit of \[0, 1\)/) });
    const two = joinTraces(supervised([incarnation(0, 0, 'w0-r0', 1, [mint(0, 0, 1)], 9)]), [diff(0, 'w0-r0', 0, 1), diff(1, 'w0-r0', 1, 2)]);
    expect(two).toMatchObject({ ok: false, why: expect.stringMatching(/2 commits without an append/) });
    const elsewhere = joinTraces(supervised([incarnation(0, 0, 'w0-r0', 1, [mint(0, 0, 1)], 9)]), [diff(0, 'w1-r1', 0, 1), diff(1, 'w0-r0', 1, 2)]);
    expect(elsewhere).toMatchObject({ ok: false, why: expect.stringMatching(/not the description it was appending/) });
    expect(commitsOf([diff(0, 'a', 0, 3), { ...diff(1, 'b', 3, 5), batch: null }])).toEqual([
      { writer: 'a', lower: 0, upper: 3 },
      { writer: 'b', lower: 3, upper: 5 },
    ]);
  });
});

describe('sbkit crash-test: bad input exits 2 naming the flag', () => {
  it.each([
    [['--consensus', 'mem'], /--consensus: must be a postgres:\/\/ URL \(replica processes share the shard/],
    [['--consensus', 'mysql://db'], /--consensus: must be a postgres:\/\/ URL/],
    [['--consensus', 'postgres://u:secret@127.0.0.1:5432/db', '--blob', 'mem'], /--blob: must be file:DIR/],
    [['--consensus', 'postgres://u:secret@127.0.0.1:1/db'], /sbkit crash-test: --consensus: /],
    [['--kills', '-1'], /--kills: expected an integer from 0/],
    [['--replicas', '9'], /--replicas: expected an integer from 1 to 8/],
  ])('%j', async (argv, message) => {
    const r = await run(['crash-test', ...argv]);
    expect(r.code, r.err).toBe(2);
    expect(r.err).toMatch(message);
    expect(r.err).not.toContain('secret');
  });
});
