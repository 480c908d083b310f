/** The builder machine's barrier with a deadline (vocab/PROTOCOL.md "Barrier with a deadline"), step by step. */
import { describe, expect, it } from 'vitest';
import { builder, type BuilderContext, type BuilderEvent } from './builder.ts';
import type { Local } from './local.ts';
import { pathOf } from './local.ts';

const sizes = new Map([
  [1, 10],
  [2, 10],
  [3, 10],
]);

/** Fires each event in turn; `null` where one is not enabled (the run stops there). */
function run(input: { timesOut: boolean; participants?: number }, events: readonly BuilderEvent[]): (Local<BuilderContext> | null)[] {
  let b: Local<BuilderContext> | null = builder.start({ barrier: true, participants: input.participants ?? 3, timesOut: input.timesOut, blobTargetSize: 1000 });
  const out: (Local<BuilderContext> | null)[] = [];
  for (const e of events) {
    b = b === null ? null : builder.fire(b, e);
    out.push(b);
  }
  return out;
}

const last = <T>(xs: readonly T[]): T => xs[xs.length - 1] as T;
const open: BuilderEvent = { type: 'OPEN' };
const push = (...updates: number[]): BuilderEvent => ({ type: 'PUSH', updates, sizes });
const finish = (worker: number): BuilderEvent => ({ type: 'FINISH_BEGIN', worker });
const timeout: BuilderEvent = { type: 'TIMEOUT' };

describe('a barrier with a deadline', () => {
  it('has no timer before its first report, without a deadline, or once it completed', () => {
    expect(last(run({ timesOut: true }, [open, timeout]))).toBeNull();
    expect(last(run({ timesOut: false }, [open, push(1), finish(0), timeout]))).toBeNull();
    // every participant reported: completed, the timer changes nothing
    expect(last(run({ timesOut: true, participants: 1 }, [open, push(1), finish(0), timeout]))).toBeNull();
  });

  it('completes when its timer fires with every joined handle finished: the last finisher receives, late workers go best-effort', () => {
    const steps = run({ timesOut: true }, [open, push(1), finish(0), open, push(2), finish(1), timeout, open, push(3), { type: 'SKIP' }]);
    const [, , , , , fin1, fired, late, latePush, lateSkip] = steps;
    expect(pathOf(fin1?.value ?? '')).toBe('live');
    expect(fired?.context).toMatchObject({ expired: true, late: true, pending: 1 });
    expect(pathOf(fired?.value ?? '')).toBe('finalized');
    expect(fired?.context.instances[0]?.receiver).toBe(1);
    // a late open starts a second, best-effort instance of the id
    expect(pathOf(late?.value ?? '')).toBe('live');
    expect(late?.context.instances.map((i) => i.handles)).toEqual([2, 1]);
    expect(late?.context.refs).toBe(1);
    expect(latePush?.context.instances[1]?.cut.updates).toEqual([3]);
    // a late skip changes nothing the protocol sees
    expect({ ...lateSkip?.context }).toEqual({ ...latePush?.context });
    // the late instance is best-effort: its only handle's finish drops the last reference and receives
    const end = builder.fire(latePush as Local<BuilderContext>, finish(2));
    expect(pathOf(end?.value ?? '')).toBe('notLive.dead');
    expect(end?.context.instances[1]?.receiver).toBe(2);
  });

  it('fires while a joined handle still pushes: the barrier completes when that handle begins its finish, with its updates', () => {
    const steps = run({ timesOut: true }, [open, push(1), finish(0), open, timeout, push(2), finish(1)]);
    const fired = steps[4];
    expect(pathOf(fired?.value ?? '')).toBe('live');
    expect(fired?.context).toMatchObject({ expired: true, late: false, unfinished: 1 });
    const done = last(steps);
    expect(pathOf(done?.value ?? '')).toBe('finalized');
    expect(done?.context).toMatchObject({ late: true, pending: 1 });
    expect(done?.context.instances[0]).toMatchObject({ receiver: 1, cut: { updates: [1, 2] } });
    // after it fired, a joining handle still belongs to the barrier, and a second timer never fires
    expect(last(run({ timesOut: true }, [open, finish(0), timeout, timeout]))).toBeNull();
  });

  it('counts a skip recorded before the entry existed as its first report', () => {
    const steps = run({ timesOut: true }, [{ type: 'SKIP' }, open, timeout, push(1), finish(0)]);
    expect(steps[2]?.context).toMatchObject({ expired: true, pending: 2, unfinished: 1 });
    expect(last(steps)?.context).toMatchObject({ late: true, pending: 1 });
    expect(last(steps)?.context.instances[0]?.receiver).toBe(0);
  });

  it('completes normally when the last participant reports, timer fired or not', () => {
    // the timer fired while worker 1 pushed; worker 1's finish is the last report: a normal completion
    const steps = run({ timesOut: true, participants: 2 }, [open, open, push(1), finish(0), timeout, push(2), finish(1)]);
    expect(last(steps)?.context).toMatchObject({ late: false, pending: 0, expired: true });
    expect(pathOf(last(steps)?.value ?? '')).toBe('finalized');
    // no late worker exists then: a further open is an over-report, refused
    expect(builder.fire(last(steps) as Local<BuilderContext>, open)).toBeNull();
  });
});
