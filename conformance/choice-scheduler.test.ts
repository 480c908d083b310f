import { describe, expect, it } from 'vitest';
import { ChoiceScheduler, formatLog } from './choice-scheduler.ts';

/** Three labels for three points (the scheduler does not read them). */
const STEPS = ['write.stage', 'shared.push', 'write.hand'] as const;

/** Two tasks that each append their name at three points. */
async function twoTasks(s: ChoiceScheduler, out: string[]): Promise<string> {
  const task = async (name: string, worker: number) => {
    for (let i = 0; i < 3; i++) {
      await s.point({ label: STEPS[i] ?? 'write.hand', replica: 0, worker });
      out.push(`${name}${i}`);
    }
  };
  await Promise.all([task('a', 0), task('b', 1)]);
  return out.join(' ');
}

describe('ChoiceScheduler', () => {
  it('resumes the oldest pending point when the choices are used up (FIFO)', async () => {
    const s = new ChoiceScheduler([]);
    const out = await s.drive(twoTasks(s, []));
    expect(out).toEqual({ kind: 'settled', value: 'a0 b0 a1 b1 a2 b2', steps: 6 });
  });

  it('follows the choices: index mod number pending', async () => {
    const s = new ChoiceScheduler([1, 1, 1]);
    const out = await s.drive(twoTasks(s, []));
    // step 0 picks b (index 1 of [a,b]); step 1 picks b again (of [a,b]); step 2 picks b (of [a,b]).
    expect(out.kind === 'settled' && out.value).toBe('b0 b1 b2 a0 a1 a2');
    expect(formatLog(s.log)).toContain('<- picked #1 of 2');
  });

  it('is deterministic for the same choices', async () => {
    const choices = [5, 3, 8, 1, 0, 2];
    const runs = await Promise.all([0, 1].map(async () => {
      const s = new ChoiceScheduler(choices);
      return s.drive(twoTasks(s, []));
    }));
    expect(runs[0]).toEqual(runs[1]);
  });

  it('resumes a starved actor only when nothing else is pending', async () => {
    const s = new ChoiceScheduler([], { starved: (site) => site.worker === 0 });
    const out = await s.drive(twoTasks(s, []));
    expect(out.kind === 'settled' && out.value).toBe('b0 b1 b2 a0 a1 a2');
  });

  it('reports a deadlock instead of hanging when every task waits on a peer', async () => {
    const s = new ChoiceScheduler([]);
    const never = new Promise<void>(() => {});
    const run = (async () => {
      await s.point({ label: 'barrier.register', replica: 0, worker: 0 });
      await never;
    })();
    const out = await s.drive(run);
    expect(out).toEqual({ kind: 'deadlock', steps: 1 });
  });

  it('reports a thrown error with the steps taken', async () => {
    const s = new ChoiceScheduler([]);
    const run = (async () => {
      await s.point({ label: 'mint', replica: 0 });
      throw new Error('boom');
    })();
    const out = await s.drive(run);
    expect(out.kind).toBe('threw');
    expect(out.kind === 'threw' && (out.error as Error).message).toBe('boom');
  });

  it('stops at the step limit and names the points still pending', async () => {
    const s = new ChoiceScheduler([], { maxSteps: 3 });
    const run = (async () => {
      for (;;) await s.point({ label: 'sweep', replica: 1, process: 0 });
    })();
    const out = await s.drive(run);
    expect(out.kind).toBe('step-limit');
    expect(out.kind === 'step-limit' && out.pending.map((p) => p.label)).toEqual(['sweep']);
    expect(formatLog(s.log)).toContain('r1 p0');
  });
});

describe('ChoiceScheduler under PCT (priorities and change points)', () => {
  it('runs the highest-priority actor while it can', async () => {
    // actor a (w0) appears first: priority d + 0; b (w1): d + 5 → b runs to completion first.
    const s = new ChoiceScheduler([], { pct: { priorities: [0, 5], changes: [] } });
    const out = await s.drive(twoTasks(s, []));
    expect(out.kind === 'settled' && out.value).toBe('b0 b1 b2 a0 a1 a2');
  });

  it('drops the running actor below every initial priority at a change point', async () => {
    // b has the higher priority; it executes step 1 (its second point), reaches the change point and
    // drops to priority 1, below a's: a runs to the end before b's last point.
    const s = new ChoiceScheduler([], { pct: { priorities: [0, 5], changes: [1] } });
    const out = await s.drive(twoTasks(s, []));
    expect(out.kind === 'settled' && out.value).toBe('b0 b1 a0 a1 a2 b2');
  });

  it('breaks ties by age: all-zero priorities and no change points are FIFO', async () => {
    const s = new ChoiceScheduler([9, 9, 9], { pct: { priorities: [], changes: [] } });
    const out = await s.drive(twoTasks(s, []));
    expect(out.kind === 'settled' && out.value).toBe('a0 b0 a1 b1 a2 b2');
  });

  it('still resumes a starved actor only when nothing else is pending', async () => {
    const s = new ChoiceScheduler([], { pct: { priorities: [0, 5], changes: [] }, starved: (site) => site.worker === 1 });
    const out = await s.drive(twoTasks(s, []));
    expect(out.kind === 'settled' && out.value).toBe('a0 a1 a2 b0 b1 b2');
  });
});
