/** SharedBatches with a barrier deadline (vocab/PROTOCOL.md "Barrier with a deadline"), under a stepping scheduler. */
import { describe, expect, it } from 'vitest';
import type { PointSite } from '../seams.ts';
import { isSbkitError } from '../errors.ts';
import { sharedHarness, ofKind } from '../test-support/harness.ts';
import { StepScheduler, byPriority, type Pick } from '../test-support/step-scheduler.ts';
import { upd } from '../test-support/workloads.ts';

const range = { lower: 0, upper: 1 };
const isTimer = (s: PointSite): boolean => s.label === 'barrier.timeout';
/** The timer fires only when nothing else can run (every handle waits, or is done). */
const timerLast: Pick = byPriority((s) => (isTimer(s) ? 1 : 0));
/** The timer fires as soon as it is armed. */
const timerFirst: Pick = byPriority((s) => (isTimer(s) ? 0 : 1));

describe('SharedBatches: a barrier with a deadline', () => {
  it('its first report arms one timer whose site carries the deadline; without a deadline there is none', async () => {
    for (const deadline of [5, undefined, Number.POSITIVE_INFINITY]) {
      const sched = new StepScheduler();
      const h = sharedHarness({ scheduler: sched });
      const out = await sched.run(async () => {
        const a = await h.registry.builder(1, range, { worker: 0, participants: 2, deadline });
        const b = await h.registry.builder(1, range, { worker: 1, participants: 2, deadline });
        await Promise.all([a.push([upd(1, 0)]), b.push([upd(2, 0)])]);
        return Promise.all([a.finish(), b.finish()]);
      }, { pick: timerLast });
      expect(out.kind).toBe('settled');
      const timers = sched.log.filter(isTimer);
      expect(timers).toEqual(deadline === 5 ? [{ label: 'barrier.timeout', replica: 0, process: 0, delay: 5 }] : []);
      // every participant reported first: the timer fired after the completion and said nothing
      expect(ofKind(h.events, 'timeout')).toEqual([]);
      await h.tasks.whenAllDone();
    }
  });

  it('fires with every joined handle finished: completes with them (the last finisher receives); a late worker shares best-effort, its skip changes nothing', async () => {
    const sched = new StepScheduler();
    const h = sharedHarness({ scheduler: sched });
    const out = await sched.run(async () => {
      const a = await h.registry.builder(4, range, { worker: 0, participants: 3, deadline: 5 });
      const b = await h.registry.builder(4, range, { worker: 1, participants: 3, deadline: 5 });
      await Promise.all([a.push([upd(1, 0)]), b.push([upd(2, 0)])]);
      return Promise.all([a.finish(), b.finish()]);
    }, { pick: timerLast });
    expect(out.kind).toBe('settled');
    if (out.kind !== 'settled') return;
    const [ra, rb] = out.value;
    expect([ra?.updateIds, rb?.updateIds]).toEqual([undefined, [1, 2]]);
    expect(ofKind(h.events, 'timeout')).toEqual([{ kind: 'timeout', replica: 0, process: 0, sharedId: 4, completes: true }]);
    // the third worker comes late: a new best-effort entry for the same id, then another late one joins it
    const late = await sched.run(async () => {
      const c = await h.registry.builder(4, range, { worker: 2, participants: 3, deadline: 5 });
      const d = await h.registry.builder(4, range, { worker: 0, participants: 3, deadline: 5 });
      await c.push([upd(3, 0)]);
      const got = [await d.finish(), await c.finish()];
      await h.registry.noteSkip(4, 3, 1);
      return got;
    });
    expect(late.kind === 'settled' && late.value.map((x) => x?.updateIds ?? null)).toEqual([null, [3]]);
    expect(ofKind(h.events, 'open').map((e) => [e.worker, e.created, e.participants])).toEqual([
      [0, true, 3],
      [1, false, 3],
      [2, true, null],
      [0, false, null],
    ]);
    expect(ofKind(h.events, 'skip')).toEqual([{ kind: 'skip', replica: 0, process: 0, worker: 1, sharedId: 4, early: false }]);
    await h.tasks.whenAllDone();
  });

  it('fires while a joined handle still pushes: the barrier waits for it, and it delivers everything', async () => {
    const sched = new StepScheduler();
    const h = sharedHarness({ scheduler: sched });
    const out = await sched.run(async () => {
      const a = await h.registry.builder(2, range, { worker: 0, participants: 3, deadline: 0 });
      const b = await h.registry.builder(2, range, { worker: 1, participants: 3, deadline: 0 });
      await a.push([upd(1, 0)]);
      const fa = a.finish();
      // a's report armed the timer; it fires (timerFirst) before b pushes
      await b.push([upd(2, 0)]);
      return Promise.all([fa, b.finish()]);
    }, { pick: timerFirst });
    expect(out.kind).toBe('settled');
    if (out.kind !== 'settled') return;
    expect(out.value.map((x) => x?.updateIds ?? null)).toEqual([null, [1, 2]]);
    const kinds = h.events.map((e) => (e.kind === 'finish-begin' ? `${e.kind} w${e.worker} last=${e.last}` : e.kind === 'timeout' ? `timeout completes=${e.completes}` : e.kind));
    expect(kinds.filter((k) => k.startsWith('timeout') || k.startsWith('finish-begin'))).toEqual([
      'finish-begin w0 last=false',
      'timeout completes=false',
      'finish-begin w1 last=true',
    ]);
    await h.tasks.whenAllDone();
  });

  it('counts a skip recorded before the state existed as the first report: the timer starts with the state', async () => {
    const sched = new StepScheduler();
    const h = sharedHarness({ scheduler: sched });
    const out = await sched.run(async () => {
      await h.registry.noteSkip(6, 3, 2);
      const a = await h.registry.builder(6, range, { worker: 0, participants: 3, deadline: 1 });
      await a.push([upd(1, 0)]);
      return a.finish();
    }, { pick: timerFirst });
    expect(out.kind).toBe('settled');
    if (out.kind !== 'settled') return;
    expect(out.value?.updateIds).toEqual([1]);
    expect(h.events.map((e) => e.kind).filter((k) => k !== 'push')).toEqual(['skip', 'open', 'timeout', 'finish-begin', 'finish-end']);
    expect(ofKind(h.events, 'timeout')[0]?.completes).toBe(false);
    await h.tasks.whenAllDone();
  });

  it('after a normal completion a further report is still an over-report; a bad deadline is refused', async () => {
    const h = sharedHarness();
    const a = await h.registry.builder(8, range, { worker: 0, participants: 1, deadline: 5 });
    await a.push([upd(1, 0)]);
    expect((await a.finish())?.updateIds).toEqual([1]);
    const over = await h.registry.noteSkip(8, 1, 1).catch((e: unknown) => e);
    expect(isSbkitError(over) && over.code).toBe('barrier-over-report');
    const bad = await h.registry.builder(9, range, { worker: 0, participants: 1, deadline: -1 }).catch((e: unknown) => e);
    expect(isSbkitError(bad) && bad.code).toBe('invalid-config');
    await h.tasks.whenAllDone();
  });
});
