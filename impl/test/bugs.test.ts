/**
 * The bug gallery: each switch, in a deterministic scenario that shows its real consequence, and the
 * same scenario with the switch off behaving correctly.
 */
import { describe, expect, it } from 'vitest';
import type { BugName, TraceEvent } from '../../vocab/index.ts';
import { BUG_NAMES } from '../../vocab/index.ts';
import { BUG_DESCRIPTIONS, BugSwitches } from '../bugs.ts';
import { isSbkitError } from '../errors.ts';
import type { RunConfig } from '../run.ts';
import type { PointSite } from '../seams.ts';
import { ofKind } from '../test-support/harness.ts';
import { settled, steppedRun } from '../test-support/run-harness.ts';
import { byPriority, fifo, type Pick } from '../test-support/step-scheduler.ts';
import { perWorker } from '../test-support/workloads.ts';
import { encodedUpdateSize } from '../update.ts';

const hollow = { inlineSingleMaxBytes: 0 }; // every part is a blob, so leaks are visible

function base(over: Partial<RunConfig>): RunConfig {
  return {
    variant: 'best-effort',
    replicas: 1,
    processes: 1,
    workersPerProcess: 2,
    intervals: 1,
    updates: perWorker(1, 2, [3, 3], 16),
    maxBytes: 1 << 20,
    persist: hollow,
    ...over,
  };
}

const both = (bug: BugName) => [
  { on: true, bugs: [bug] },
  { on: false, bugs: [] },
] as const;

describe('bug gallery', () => {
  it('describes every bug in one line', () => {
    expect(Object.keys(BUG_DESCRIPTIONS).sort()).toEqual([...BUG_NAMES].sort());
    for (const d of Object.values(BUG_DESCRIPTIONS)) {
      expect(d.length).toBeGreaterThan(40);
      expect(d).not.toContain('\n');
    }
    expect(() => new BugSwitches(['no-such-bug'])).toThrow(expect.objectContaining({ code: 'unknown-bug' }));
    expect(new BugSwitches(['threshold-inclusive']).list).toEqual(['threshold-inclusive']);
  });

  describe('sweep-upgrade-race: another worker\'s builder() call sweeps while this one finishes → data lost, parts leaked', () => {
    // Worker 0 opens (the empty map needs no sweep) and pushes; its finish waits until worker 1's
    // builder() call has begun: that call finds 1 entry > 2 × 0, so it sweeps, and with the bug holds
    // worker 0's live entry across a scheduling point that resumes last — worker 0's finish runs during
    // the hold (finishes never take the registry's lock).
    const pick = byPriority((s) => (s.label === 'sweep.release' ? 3 : s.worker === 0 && s.label === 'shared.finish' ? 2 : 1));
    for (const { on, bugs } of both('sweep-upgrade-race')) {
      it(on ? "on: the finisher is not last, the release closes the batch for nobody; the sweeper's handle starts a new batch" : 'off: the sweeper joins, the last finisher receives both workers\' updates', async () => {
        const run = await steppedRun(base({ updates: perWorker(1, 2, [4, 4], 16), bugs }), pick);
        const result = settled(run);
        const sweeps = ofKind(run.events, 'sweep');
        expect(sweeps).toEqual([expect.objectContaining({ worker: 1 })]);
        if (on) {
          expect(ofKind(run.events, 'sweep-hold')).toEqual([expect.objectContaining({ worker: 1, sharedId: 0 })]);
          expect(ofKind(run.events, 'finish-begin').find((f) => f.worker === 0)?.last).toBe(false);
          expect(ofKind(run.events, 'sweep-release')[0]?.closed).toBe(true);
          expect(sweeps[0]?.removed).toEqual([0]);
          expect(ofKind(run.events, 'open').map((o) => o.created)).toEqual([true, true]);
          expect(ofKind(run.events, 'append')[0]).toMatchObject({ batches: 1, result: { ok: true } });
          expect(result.audit.lost).toBe(4);
          expect(result.audit.leakedBlobs).toBe(1);
          expect(result.metrics.batchesOrphaned).toBe(1);
        } else {
          expect(ofKind(run.events, 'sweep-hold')).toHaveLength(0);
          expect(sweeps[0]?.removed).toEqual([]);
          expect(ofKind(run.events, 'open').map((o) => o.created)).toEqual([true, false]);
          expect(result.audit).toMatchObject({ lost: 0, duplicated: 0, leakedBlobs: 0 });
          expect(result.metrics.batchesPerAppend).toBe(1);
        }
      });
    }
  });

  describe('drop-without-finish: the append worker drops its handle', () => {
    // Worker 0 (the append worker of description 0) reaches its finish/drop last.
    const pick = byPriority((s) => (s.worker === 0 && (s.label === 'shared.drop' || s.label === 'shared.finish') ? 2 : 1));
    for (const { on, bugs } of both('drop-without-finish')) {
      it(on ? 'on, best-effort: it held the last reference → the batch goes to nobody' : 'off: the last finisher receives everything', async () => {
        const run = await steppedRun(base({ bugs }), pick);
        const result = settled(run);
        if (on) {
          expect(ofKind(run.events, 'drop')).toEqual([expect.objectContaining({ worker: 0, closed: true })]);
          expect(result.audit.lost).toBe(6);
          expect(result.audit.leakedBlobs).toBe(1);
        } else {
          expect(ofKind(run.events, 'drop')).toHaveLength(0);
          expect(result.audit).toMatchObject({ lost: 0, leakedBlobs: 0 });
          expect(result.metrics.batchesPerAppend).toBe(1);
        }
      });
    }
    it('on, barrier: the dropped participant never arrives → the others wait forever', async () => {
      const run = await steppedRun(base({ variant: 'barrier', bugs: ['drop-without-finish'] }), pick);
      expect(run.out.kind).toBe('never-settled');
      expect(ofKind(run.events, 'finish-end')).toHaveLength(0);
      const off = await steppedRun(base({ variant: 'barrier' }), pick);
      expect(settled(off).audit.lost).toBe(0);
    });
  });

  describe('late-handle-joins-finished-builder: a late open revives a closed builder', () => {
    // A dead entry survives until the map outgrows twice its length after the last sweep. Interval 0:
    // both workers open before either finishes (worker 1's call sweeps, entry 0 live: retained 1).
    // Interval 1: worker 1 runs only after worker 0 handed it, so worker 0's entry 1 is dead when
    // worker 1's call finds 2 entries ≤ 2 × 1 and looks it up without a sweep.
    const pick = (): Pick => {
      let w0Hands = 0;
      return (parked) => {
        const rank = (site: PointSite): number =>
          site.worker === 1 && w0Hands === 1 ? 3 : site.label === 'shared.finish' && parked.some((p) => p.site.label === 'shared.open') ? 2 : 1;
        let best = 0;
        parked.forEach((p, i) => {
          if (rank(p.site) < rank((parked[best] as (typeof parked)[number]).site)) best = i;
        });
        const chosen = (parked[best] as (typeof parked)[number]).site;
        if (chosen.worker === 0 && chosen.label === 'write.hand') w0Hands += 1;
        return best;
      };
    };
    for (const { on, bugs } of both('late-handle-joins-finished-builder')) {
      it(on ? 'on: the late pushes are silently lost' : 'off: the late worker gets a separate batch', async () => {
        const run = await steppedRun(base({ intervals: 2, updates: perWorker(2, 2, [3, 3], 16), bugs }), pick());
        const result = settled(run);
        const opens = ofKind(run.events, 'open').filter((o) => o.sharedId === 1);
        expect(ofKind(run.events, 'sweep').map((s) => s.removed)).toEqual([[]]);
        if (on) {
          expect(opens.map((o) => o.created)).toEqual([true, false]);
          expect(ofKind(run.events, 'finish-end').filter((e) => e.sharedId === 1).map((e) => e.received?.updates.length ?? null)).toEqual([3, null]);
          expect(result.audit.lost).toBe(3);
        } else {
          expect(opens.map((o) => o.created)).toEqual([true, true]);
          expect(ofKind(run.events, 'append')[1]?.batches).toBe(2);
          expect(result.audit.lost).toBe(0);
        }
      });
    }
  });

  describe('barrier-lost-wakeup: register after re-check', () => {
    // Worker 0 finishes first; its registration is delayed past worker 1's finalizing finish.
    const prio = (s: PointSite): number =>
      s.label === 'barrier.register' ? 3 : s.worker === 1 && s.label === 'shared.finish' ? 2 : 1;
    for (const { on, bugs } of both('barrier-lost-wakeup')) {
      it(on ? 'on: the waiter sleeps forever (tasks never settle)' : 'off: the waiter wakes', async () => {
        const run = await steppedRun(base({ variant: 'barrier', bugs }), byPriority(prio));
        const ends = ofKind(run.events, 'finish-end');
        if (on) {
          expect(run.out.kind).toBe('never-settled');
          expect(ends.map((e) => e.worker)).toEqual([1]); // only the deliverer returned
          expect(ofKind(run.events, 'append')).toHaveLength(0);
        } else {
          expect(settled(run).audit.lost).toBe(0);
          expect(ends.map((e) => e.worker).sort()).toEqual([0, 1]);
        }
      });
    }
  });

  describe('barrier-skip-double-count: an early skip applied twice', () => {
    // Worker 2 has nothing and skips first; worker 1 opens early but pushes late.
    const updates = perWorker(1, 3, [2, 2, 0], 16);
    const early = new Set(['write.stage', 'shared.open']);
    const pick = byPriority((s) => (s.worker === 2 ? 0 : s.worker === 1 && !early.has(s.label) ? 2 : 1));
    for (const { on, bugs } of both('barrier-skip-double-count')) {
      it(on ? 'on: finalizes early; the late push is lost and its finish over-reports' : 'off: one batch of both writers', async () => {
        // Worker 2 reports its empty interval by a skip (noData 'skip'; the barrier's default is 'finish').
        const run = await steppedRun(base({ variant: 'barrier', workersPerProcess: 3, updates, noData: 'skip', bugs }), pick);
        const received = (e: TraceEvent): number | null => (e.kind === 'finish-end' ? (e.received?.updates.length ?? null) : null);
        if (on) {
          expect(run.out.kind).toBe('rejected');
          if (run.out.kind === 'rejected') expect(isSbkitError(run.out.error, 'barrier-over-report')).toBe(true);
          expect(ofKind(run.events, 'finish-begin')[0]).toMatchObject({ worker: 0, last: true });
          expect(ofKind(run.events, 'finish-end').map(received)).toEqual([2]); // worker 1's 2 updates missing
          expect(ofKind(run.events, 'open').map((o) => o.worker)).toEqual([0, 1]); // both joined the state
          expect(ofKind(run.events, 'push').some((p) => p.worker === 1)).toBe(true); // …and pushed into a closed channel
        } else {
          const result = settled(run);
          expect(ofKind(run.events, 'finish-end').map(received).sort()).toEqual([4, null]);
          expect(result.audit.lost).toBe(0);
        }
      });
    }
  });

  describe('append-keeps-batches-on-mismatch: no delete after a mismatch', () => {
    for (const { on, bugs } of both('append-keeps-batches-on-mismatch')) {
      it(on ? 'on: the loser\'s blobs leak' : 'off: the loser deletes its batches', async () => {
        const run = await steppedRun(base({ replicas: 2, intervals: 3, updates: perWorker(3, 2, [2, 2], 16), bugs }), fifo);
        const result = settled(run);
        expect(result.metrics.mismatches).toBeGreaterThan(0);
        expect(result.audit).toMatchObject({ lost: 0, duplicated: 0 });
        const mismatchedBatches = ofKind(run.events, 'append')
          .filter((a) => !a.result.ok)
          .reduce((n, a) => n + a.parts.hollow, 0);
        expect(mismatchedBatches).toBeGreaterThan(0);
        if (on) {
          expect(ofKind(run.events, 'delete')).toHaveLength(0);
          expect(result.audit.leakedBlobs).toBe(mismatchedBatches);
        } else {
          expect(ofKind(run.events, 'delete').every((d) => d.reason === 'mismatch')).toBe(true);
          expect(result.metrics.blobDeletes).toBe(mismatchedBatches);
          expect(result.audit.leakedBlobs).toBe(0);
        }
      });
    }
  });

  describe("empty-finish-hands-nothing: noData 'finish', the empty finisher drops what it received", () => {
    // Worker 0 shares three updates, worker 1 has none and finishes an empty handle last: it receives.
    const pick = byPriority((s) => (s.worker === 1 && s.label === 'shared.finish' ? 2 : 1));
    for (const variant of ['best-effort', 'barrier'] as const) {
      for (const { on, bugs } of both('empty-finish-hands-nothing')) {
        it(`${variant}, ${on ? 'on: the batch goes to nobody → data lost, parts leaked' : 'off: the empty finisher hands the shared batch'}`, async () => {
          const run = await steppedRun(base({ variant, updates: perWorker(1, 2, [3, 0], 16), noData: 'finish', bugs }), pick);
          const result = settled(run);
          const received = ofKind(run.events, 'finish-end').find((f) => f.worker === 1)?.received;
          expect(received?.updates).toEqual([0, 1, 2]);
          expect(ofKind(run.events, 'hand').find((h) => h.worker === 1)?.batches).toEqual(on ? [] : [received]);
          expect(result.audit.lost).toBe(on ? 3 : 0);
          expect(result.audit.leakedBlobs).toBe(on ? 1 : 0);
        });
      }
    }
  });

  describe('threshold-inclusive: bytes equal to maxBytes', () => {
    const updates = perWorker(1, 2, [4, 1], 16);
    const w0Bytes = updates.slice(0, 4).reduce((n, u) => n + encodedUpdateSize(u), 0);
    for (const { on, bugs } of both('threshold-inclusive')) {
      it(on ? 'on: routes shared (wrong)' : 'off: routes own', async () => {
        const run = await steppedRun(base({ updates, maxBytes: w0Bytes, bugs }), fifo);
        const result = settled(run);
        const stage0 = ofKind(run.events, 'stage').find((s) => s.worker === 0);
        expect(stage0?.bytes).toBe(w0Bytes);
        expect(stage0?.route).toBe(on ? 'shared' : 'own');
        expect(result.metrics.batchesPerAppend).toBe(on ? 1 : 2);
        expect(result.audit.lost).toBe(0);
      });
    }
  });
});
