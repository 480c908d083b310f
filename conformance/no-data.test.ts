/**
 * The no-data policy under the check: with `noData: 'finish'` the model predicts that a worker with no
 * data opens a handle and finishes it empty (route `empty`). Implementations that get it wrong are
 * rejected: one that ignores the policy (does nothing, or skips under the barrier) — a real run of the
 * implementation with 'skip' judged against the 'finish' workload — and traces of an implementation
 * that hands an empty finish's batch twice, or drops it.
 */
import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../vocab/index.ts';
import type { RunResult } from '../impl/run.ts';
import type { DriveOutcome } from './choice-scheduler.ts';
import { judge, modelConfigOf, runOnce, type RunReport } from './harness.ts';
import { FIFO, type Schedule } from './schedule.ts';
import { decodeToken, encodeToken } from './token.ts';
import type { Workload } from './workload.ts';
import { workloadOf } from './test-support/workload.ts';

/** One process of three workers: worker 0 shares a medium load, workers 1 and 2 have no data. */
const finish = workloadOf('barrier', [
    ['medium', 'none', 'none'],
    ['tiny', 'none', 'large'],
  ], { noData: 'finish' });

const clean: DriveOutcome<RunResult> = {
  kind: 'settled',
  steps: 0,
  value: {
    audit: { lost: 0, duplicated: 0, leakedBlobs: 0, danglingKeys: [] },
    metrics: { cleanupRuns: 0 },
    leaks: { fromAborted: 0, fromLive: 0, collected: 0, collectedFromLiveWriters: 0 },
  } as unknown as RunResult,
};

const emptyStages = (trace: readonly TraceEvent[]) => trace.filter((e): e is Extract<TraceEvent, { kind: 'stage' }> => e.kind === 'stage' && e.route === 'empty');

/** A passing run (of `w`, under one of a few fixed schedules) in which an empty finish received the shared batch. */
async function emptyReceiver(w: Workload): Promise<{ report: RunReport; at: number }> {
  for (let k = 0; k < 40; k++) {
    const schedule: Schedule = { choices: Array.from({ length: 60 }, (_, i) => (i * 7 + k) % 5), starve: [] };
    const report = await runOnce(w, schedule);
    expect(report.failures).toEqual([]);
    const empty = new Set(emptyStages(report.trace).map((s) => `${s.worker}/${s.sharedId}`));
    const at = report.trace.findIndex((e) => e.kind === 'finish-end' && e.received !== null && empty.has(`${e.worker}/${e.sharedId}`));
    if (at >= 0) return { report, at };
  }
  throw new Error('no schedule made an empty finish the receiver');
}

describe("noData = 'finish' under the check", () => {
  it('the clean implementation passes, and its empty finishes are in the trace', async () => {
    for (const variant of ['best-effort', 'barrier'] as const) {
      const report = await runOnce({ ...finish, variant, barrierFlags: [variant === 'barrier'] }, FIFO);
      expect(report.failures).toEqual([]);
      expect(emptyStages(report.trace).length).toBe(3);
      // Skips come only from workers that fall back (worker 2's large load), never from one with no data.
      const routes = new Map(report.trace.flatMap((e) => (e.kind === 'stage' ? [[`${e.worker}/${e.sharedId}`, e.route] as const] : [])));
      const skips = report.trace.filter((e) => e.kind === 'skip').map((e) => ('worker' in e ? routes.get(`${e.worker}/${e.sharedId}`) : undefined));
      expect(skips).toEqual(variant === 'barrier' ? ['own'] : []);
    }
  });

  it("rejects an implementation that ignores 'finish' (no open for a worker with no data; a skip under the barrier)", async () => {
    for (const variant of ['best-effort', 'barrier'] as const) {
      const w = { ...finish, variant, barrierFlags: [variant === 'barrier'] };
      // The real implementation with the default policy: exactly what an impl that skips the open does.
      const ignoring = await runOnce({ ...w, noData: 'skip' }, FIFO);
      expect(ignoring.failures).toEqual([]);
      const out = judge(w, ignoring.trace, clean, modelConfigOf(w));
      const f = out.failures.find((x) => x.kind === 'refinement');
      expect(f?.why, variant).toMatch(/predicted field differs: stage\.route expected "empty", got "none"/);
      expect(ignoring.trace[f?.at ?? -1]).toMatchObject({ kind: 'stage', updates: [] });
    }
  });

  it('rejects an empty finish whose batch is handed twice, or not at all', async () => {
    const { report, at } = await emptyReceiver(finish);
    const received = report.trace[at] as Extract<TraceEvent, { kind: 'finish-end' }>;
    const handOf = (worker: number) => report.trace.findIndex((e) => e.kind === 'hand' && e.worker === worker && e.sharedId === received.sharedId);
    const mine = handOf(received.worker);
    const other = handOf(received.worker === 0 ? 1 : 0);
    expect(report.trace[mine]).toMatchObject({ batches: [received.received] });

    // Twice: another worker of the process hands the same batch too.
    const twice = report.trace.map((e, i) => (i === other && e.kind === 'hand' ? { ...e, batches: [received.received as NonNullable<typeof received.received>] } : e));
    const dup = judge(finish, twice, clean).failures.find((x) => x.kind === 'refinement');
    expect(dup).toMatchObject({ at: other });
    expect(dup?.why).toMatch(/predicted field differs: hand\.batches/);

    // Not at all: "it had no data, so it hands nothing" — the batch (and its updates) would be lost.
    const dropped = report.trace.map((e, i) => (i === mine && e.kind === 'hand' ? { ...e, batches: [] } : e));
    const lost = judge(finish, dropped, clean).failures.find((x) => x.kind === 'refinement');
    expect(lost).toMatchObject({ at: mine });
    expect(lost?.why).toMatch(/predicted field differs: hand\.batches/);
  });

  it("replay tokens carry the policy; a token without it means 'skip'", () => {
    const token = encodeToken({ workload: finish, schedule: FIFO });
    expect(decodeToken(token).workload.noData).toBe('finish');
    const skip = encodeToken({ workload: { ...finish, noData: 'skip' }, schedule: FIFO });
    expect(JSON.parse(Buffer.from(skip.slice(4), 'base64url').toString('utf8'))).not.toHaveProperty('n');
    expect(decodeToken(skip).workload.noData).toBe('skip');
    const bad = 'sb1.' + Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(token.slice(4), 'base64url').toString('utf8')), n: 'maybe' })).toString('base64url');
    expect(() => decodeToken(bad)).toThrow(/invalid no-data policy/);
  });
});
