/**
 * Deep: `sbkit crash-test` for real, against PostgreSQL + files — a short run (2 replica processes, 5
 * SIGKILLs) that must pass, the stop at a commit, the supervisor's every path, the time bound through the
 * real binary, and a canary with a gallery bug that must fail (tens of seconds of replica processes). They
 * skip only when no server is there (printing why), as the other PostgreSQL tests do; `.ci/run` starts
 * one. The kill plan, the join and bad input are crash.test.ts's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { dropTables, pgTargetOrSkip, uniqueTable, withOption } from '../../test-support/pg-target.ts';
import { main } from '../cli.ts';
import { captureIo } from '../io.ts';
import { crashReasons, runCrashTest } from './crash-test.ts';
import { renderCrashReport } from './render.ts';

const target = pgTargetOrSkip('explore/crash/crash.deep.test.ts');
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
