/**
 * `sbkit crash-test` (explore/crash/): the kill plan, the join of traces across incarnations (an
 * in-flight compare-and-set resolved from the writer tokens in state), the child's pacing, the command's
 * bad input — and, against PostgreSQL, a short real run (2 replica processes, 5 SIGKILLs) that must
 * pass, and a canary with a gallery bug that must fail. The real runs skip only when no server is
 * there (printing why), as the other PostgreSQL tests do; `.ci/run` starts one.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../vocab/index.ts';
import type { StateDiff } from '../../impl/persist/state.ts';
import { dropTables, pgTargetOrSkip, uniqueTable, withOption } from '../../test-support/pg-target.ts';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { main } from '../cli.ts';
import { crashReasons, runCrashTest } from './crash-test.ts';
import { renderCrashReport } from './render.ts';
import { captureIo } from '../io.ts';
import { pacedScheduler, seals } from './child.ts';
import { commitsOf, joinTraces } from './join.ts';
import { killPlan } from './plan.ts';
import type { TraceLine } from './protocol.ts';
import type { Incarnation, SupervisedRun } from './supervisor.ts';
import { readTraceFile } from './trace-file.ts';

const target = pgTargetOrSkip('explore/crash/crash.test.ts');
const scratch = mkdtempSync(path.join(os.tmpdir(), 'sbkit-crash-test-'));
const tables: string[] = [];
afterAll(async () => {
  rmSync(scratch, { recursive: true, force: true });
  if (target.url !== undefined) await dropTables(target.url, tables);
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

describe.skipIf(target.skip !== undefined)('sbkit crash-test on PostgreSQL + files', () => {
  const table = uniqueTable('t_crash');
  tables.push(table);
  // Collected even when skipped: without a server there is no URL to put the option on.
  const consensus = target.url === undefined ? '' : withOption(target.url, 'table', table);
  const seed = Number(process.env['SBKIT_SEED'] ?? 1);

  it('a missing blob directory exits 2 naming --blob', async () => {
    const r = await run(['crash-test', '--consensus', consensus, '--blob', `file:${path.join(scratch, 'missing')}`]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--blob: .*missing/);
  });

  // The runs' work is their intervals and kills; the time bound only ends a run that hangs, so it sits far
  // above what a loaded machine takes (a busy machine makes these runs slower, never red).
  const GUARD_SECONDS = '1200';

  it(`2 replica processes, 5 SIGKILLs: nothing lost or duplicated, every leak collected, the joined trace predicted by the model (seed ${seed})`, async () => {
    const blob = mkdtempSync(path.join(scratch, 'run-'));
    const started = performance.now();
    const r = await run(['crash-test', '--replicas', '2', '--kills', '5', '--seconds', GUARD_SECONDS, '--intervals', '150', '--seed', String(seed), '--consensus', consensus, '--blob', `file:${blob}`]);
    console.log(`${r.out}(${((performance.now() - started) / 1000).toFixed(1)} s in all)`);
    expect(r.code, `${r.out}\n${r.err}`).toBe(0);
    expect(r.out).toContain(`sbkit crash-test: seed ${seed};`);
    expect(r.out).toMatch(/^kills +5 of 5 survived/m);
    expect(r.out).toMatch(/^audit +the shard's upper 150 of 150; 30,000 of 30,000 updates, 0 lost, 0 duplicated, 0 dangling references/m);
    expect(r.out).toMatch(/^leaks +.*collected by \d+ cleanups, 0 left; 0 from live writers/m);
    expect(r.out).toMatch(/^model +joined trace of 7 incarnations, .*: (\d+)\/\1 appends predicted exactly/m);
    expect(r.out).toMatch(/^properties +every always\/eventually property holds; witnessed: .*replica-restarted/m);
    expect(r.out).toMatch(new RegExp(`^verdict: ok — seed ${seed}$`, 'm'));
    expect(r.err).toMatch(/^\[\d+\.\d s\] shard upper \d+\/150 · kills \d\/5/m);
  });

  const small = (replicas: number, intervals: number) => ({
    variant: 'best-effort' as const, replicas, processes: 1, workersPerProcess: 2, intervals, rows: 20, rowBytes: 100, threshold: 1 << 20, seed, intervalMs: 0, bugs: [],
  });

  it('the stop at the moment of a commit loses no trace: the join resolves the commit from the shard, says the tail is missing, and the run is incomplete, not failed', async () => {
    const blob = mkdtempSync(path.join(scratch, 'hold-commit-'));
    const lines: string[] = [];
    // Replica 0's first incarnation freezes right after the compare-and-set that moved the shard to 6
    // committed, before its trace has the append: the stop (as at the time bound) comes then.
    const report = await runCrashTest({
      workload: small(1, 20), kills: 0, seconds: 120, consensus, blob: `file:${blob}`, progress: (l) => lines.push(l),
      hold: { replica: 0, incarnation: 0, point: { at: 'commit', upper: 6 } },
      stopWhen: (l) => l.includes('held after its commit'),
    });
    expect(lines).toContainEqual('replica 0 incarnation 0 held after its commit of [5, 6), before its trace has the append');
    expect(report.run.timedOut).toBe(true);
    expect(report.failures).toEqual([]);
    expect(report.audit.upper).toBe(6);
    expect(report.join).toMatchObject({ ok: true, inflightApplied: 1, tails: [expect.stringMatching(/^replica 0 incarnation 0 \(writer \S+\) was stopped while it ran; its trace ends after event \d+, with its commit of \[5, 6\) in flight/)] });
    expect(report.incomplete).toEqual([expect.stringMatching(/^stopped on "replica 0 incarnation 0 held after its commit of \[5, 6\).*" at shard upper 6 of 20, after 0 of 0 kills: /)]);
    expect(crashReasons(report).map((r) => r.exit)).toEqual([4]);
    // every process it started (the incarnation and its standby) has exited
    expect(report.run.processes.map((p) => p.exit === undefined)).toEqual([false, false]);
    const text = renderCrashReport(report);
    expect(text).toMatch(/^trace tail +replica 0 incarnation 0 .* in flight/m);
    expect(text).toMatch(new RegExp(`^verdict: INCOMPLETE — seed ${seed}: nothing it could judge failed\n {2}- stopped on `, 'm'));
  });

  it('every path of the supervisor ends: a stop while a restart waits for a standby that never loads kills that standby too', async () => {
    const blob = mkdtempSync(path.join(scratch, 'hold-load-'));
    // The standby of replica 0's second incarnation never loads; the kill's restart takes it and waits.
    const report = await runCrashTest({
      workload: small(1, 40), kills: 1, seconds: 120, consensus, blob: `file:${blob}`,
      hold: { replica: 0, incarnation: 1, point: { at: 'load' } },
      stopWhen: (l) => l.includes('waits for its standby process to load'),
    });
    expect(report.run.kills).toHaveLength(1);
    expect(report.run.timedOut).toBe(true);
    expect(report.failures).toEqual([]);
    expect(report.run.processes.length).toBeGreaterThanOrEqual(2);
    expect(report.run.processes.filter((p) => p.exit === undefined)).toEqual([]);
    expect(report.run.processes.find((p) => p.index === 1)?.exit).toMatchObject({ signal: 'SIGKILL' });
  });

  it('through the real binary: the time bound stops the run, it exits 4 with its reason, and the command ends', async () => {
    const blob = mkdtempSync(path.join(scratch, 'bound-'));
    const bin = path.join(import.meta.dirname, '..', '..', 'bin', 'sbkit.js');
    const r = await promisify(execFile)('node', [bin, 'crash-test', '--replicas', '2', '--kills', '2', '--seconds', '1', '--intervals', '400', '--seed', String(seed), '--consensus', consensus, '--blob', `file:${blob}`], { timeout: 60_000 })
      .then(() => ({ code: 0, stdout: '', stderr: '' }), (e: { code: number; stdout: string; stderr: string }) => e);
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(4);
    expect(r.stdout).toMatch(new RegExp(`^verdict: INCOMPLETE — seed ${seed}: nothing it could judge failed\n {2}- the time bound of 1 s was reached at shard upper \\d+ of 400`, 'm'));
    expect(r.stderr).toMatch(/^sbkit crash-test: exit 4:\n {2}- incomplete: seed \d+: the time bound of 1 s was reached/m);
    expect(r.stdout).toMatch(/^processes +\d+ started, \d+ exited$/m);
  });

  it('the canary: with restart-rewrites-appended-interval a restarted incarnation duplicates what the shard holds, and the run fails', async () => {
    const blob = mkdtempSync(path.join(scratch, 'canary-'));
    const r = await run(['crash-test', '--replicas', '1', '--kills', '1', '--seconds', GUARD_SECONDS, '--intervals', '40', '--seed', String(seed), '--consensus', consensus, '--blob', `file:${blob}`, '--bug', 'restart-rewrites-appended-interval']);
    expect(r.code, r.out).toBe(1);
    expect(r.out).toMatch(/BUG restart-rewrites-appended-interval switched on/);
    expect(r.out).toMatch(/^ {2}- audit: \d+ update\(s\) are in the shard more than once$/m);
    expect(r.out).toMatch(/^ {2}- model: diverged at event/m);
    expect(r.out).toMatch(/^ {2}- property no-loss-no-duplication: /m);
    expect(r.out).toMatch(new RegExp(`^verdict: FAILED — seed ${seed}$`, 'm'));
  });
});
