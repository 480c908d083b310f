/**
 * `cost-poll-answered` (poll-answered.ts): a poll whose read found the shard inside its description's
 * window supersedes it. Shown on traces, and failing `sbkit check` on a sink whose append does not wait
 * for the poll's read (the read then answers after the append began, and its answer goes unused).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Description, TraceEvent } from '../vocab/index.ts';
import { runCheck } from './check.ts';
import { unansweredPolls } from './poll-answered.ts';

const planted = vi.hoisted(() => ({ appendIgnoresPoll: false }));

vi.mock('../impl/sink/replica-state.ts', async (original) => {
  const real = await original<typeof import('../impl/sink/replica-state.ts')>();
  class Planted extends real.ReplicaState {
    constructor(...args: ConstructorParameters<typeof real.ReplicaState>) {
      super(...args);
      let polling = this.polling;
      // The planted fault: the append reads `polling` as false, so it never waits for a poll's read.
      Object.defineProperty(this, 'polling', {
        get: () => (planted.appendIgnoresPoll ? false : polling),
        set: (v: boolean) => {
          polling = v;
        },
      });
    }
  }
  return { ...real, ReplicaState: Planted };
});

afterEach(() => {
  planted.appendIgnoresPoll = false;
});

const desc = (sharedId: number, lower: number, upper: number): Description => ({ lower, upper, appendWorker: 0, sharedId, maxBytes: 1, barrier: false });
const append = (replica: number, lower: number, upper: number, ok: boolean | number): TraceEvent =>
  ({ kind: 'append', replica, lower, upper, batches: 0, parts: { inline: 0, hollow: 0 }, runs: 0, updates: [], result: ok === true ? { ok: true } : { ok: false, current: ok as number } }) as unknown as TraceEvent;

/** Replica 1 appends [0, 2); replica 0 minted [0, 3) and polls: the shard's upper (2) is inside its window. */
const polledInside: TraceEvent[] = [
  { kind: 'frontier', replica: 0, upper: 3 },
  { kind: 'mint', replica: 0, desc: desc(0, 0, 3) },
  append(1, 0, 2, true),
  { kind: 'poll', replica: 0, sharedId: 0 },
];

describe('cost-poll-answered: a poll that found the shard inside its window supersedes', () => {
  it('holds when the mint supersedes, when the shard moved after the poll, or when the upper lay outside the window', () => {
    expect(unansweredPolls([...polledInside, { kind: 'mint', replica: 0, desc: desc(1, 2, 3) }, append(0, 2, 3, true)])).toEqual([]);
    expect(unansweredPolls([...polledInside, append(1, 2, 3, true), append(0, 0, 3, 3)])).toEqual([]);
    const outside = polledInside.map((e) => (e.kind === 'frontier' ? { ...e, upper: 2 } : e.kind === 'mint' ? { ...e, desc: desc(0, 0, 2) } : e));
    expect(unansweredPolls([...outside, append(0, 0, 2, 2)])).toEqual([]);
  });

  it('fails a description appended after a poll whose read must have found the shard inside its window', () => {
    expect(unansweredPolls([...polledInside, append(0, 0, 3, 2)])).toEqual([
      "replica 0 polled the shard for description 0 [0, 3) while the shard's upper was 2, and nothing moved it; it then appended the description instead of superseding it: the read's answer went unused",
    ]);
  });

  it('sbkit check fails a sink whose append does not wait for the poll\'s read', async () => {
    const clean = await runCheck({ variant: 'off', seed: 1, shrink: false });
    expect(clean.exitCode, clean.output).toBe(0);
    planted.appendIgnoresPoll = true;
    const broken = await runCheck({ variant: 'off', seed: 1, shrink: false });
    expect(broken.exitCode).toBe(1);
    expect(broken.output).toMatch(/cost-poll-answered/);
    expect(broken.output).toMatch(/appended the description instead of superseding it: the read's answer went unused/);
  }, 300_000);
});
