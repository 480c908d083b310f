/**
 * Update ids out of time order (workload `idOrder: 'reversed'`): an update id is only a name, and the
 * staged order is by id. With ids always ascending in time, a worker that staged several intervals in
 * time order and forgot to sort them by id refined the model (Stryker: seven survivors of the sort in
 * impl/sink/replica-state.ts `staged`). These tests hold the generator to the shape that exposes it, and
 * show that `sbkit check` now fails such a worker.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ReplicaState } from '../impl/sink/replica-state.ts';
import type { Update } from '../impl/update.ts';
import { runCheck } from './check.ts';
import { decodeToken, encodeToken } from './token.ts';
import { materialize, materializeSinks, type Workload } from './workload.ts';
import { workloadOf } from './test-support/workload.ts';

const base = workloadOf('best-effort', [
    ['tiny', 'medium'],
    ['medium', 'none'],
    ['tiny', 'tiny'],
  ], { pacing: 'free' });

describe('update ids out of time order', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('reversed: the same updates, each interval a block after the later ones, ascending within it', () => {
    const time = materialize(base);
    const reversed = materialize({ ...base, idOrder: 'reversed' });
    // the same keys, times and value lengths in the same (time) order; only the names differ
    expect(reversed.map((u) => [u.key, u.time, u.value.length])).toEqual(time.map((u) => [u.key, u.time, u.value.length]));
    expect(time.map((u) => u.id)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    // t0 has 3 updates (tiny, medium ×2), t1 2, t2 2: blocks t2 = 0–1, t1 = 2–3, t0 = 4–6
    expect(reversed.map((u) => u.id)).toEqual([4, 5, 6, 2, 3, 0, 1]);
    expect(reversed.map((u) => u.value)).toEqual(reversed.map((u) => materialize({ ...base, idOrder: 'reversed' }).find((v) => v.id === u.id)?.value));
  });

  it("a second sink's ids continue after the first sink's, reversed the same way", () => {
    const w: Workload = { ...base, idOrder: 'reversed', sinkLoads: [[['tiny', 'none'], ['none', 'none'], ['none', 'tiny']]] };
    const [first, second] = materializeSinks(w);
    expect(first?.map((u) => u.id)).toEqual([4, 5, 6, 2, 3, 0, 1]);
    // t0: 1 update, t2: 1 update → t2's block first (7), then t0's (8)
    expect(second?.map((u) => [u.time, u.id])).toEqual([
      [0, 8],
      [2, 7],
    ]);
  });

  it('a replay token keeps the id order; a bad one is a typed error naming it', () => {
    const schedule = { choices: [1, 2], starve: [] };
    const w: Workload = { ...base, idOrder: 'reversed' };
    expect(decodeToken(encodeToken({ workload: w, schedule })).workload).toEqual(w);
    expect(decodeToken(encodeToken({ workload: base, schedule })).workload).toEqual(base);
    const raw = JSON.parse(Buffer.from(encodeToken({ workload: w, schedule }).slice('sb1.'.length), 'base64url').toString('utf8')) as Record<string, unknown>;
    const bad = `sb1.${Buffer.from(JSON.stringify({ ...raw, io: 'sideways' })).toString('base64url')}`;
    expect(() => decodeToken(bad)).toThrow(/id order/);
  });

  it('sbkit check fails a worker that stages several intervals in time order instead of by id', async () => {
    const clean = await runCheck({ variant: 'off', runs: 500, seed: 1, shrink: false });
    expect(clean.exitCode).toBe(0);
    expect(clean.variants[0]?.reached['ids-across-times'] ?? 0).toBeGreaterThan(0);

    // The mutant Stryker left alive: the slice in the order the worker holds its updates (time order).
    const staged = ReplicaState.prototype.staged;
    vi.spyOn(ReplicaState.prototype, 'staged').mockImplementation(function (this: ReplicaState, worker: number, lower: number, upper: number): Update[] {
      const mine = this.updatesByWorker[worker] ?? [];
      const held = new Map(mine.map((u, i) => [u.id, i]));
      return staged.call(this, worker, lower, upper).sort((a, b) => (held.get(a.id) ?? 0) - (held.get(b.id) ?? 0));
    });
    const broken = await runCheck({ variant: 'off', runs: 500, seed: 1, shrink: false });
    expect(broken.exitCode).toBe(1);
    expect(broken.output).toMatch(/stage/);
    expect(broken.token).toBeDefined();
  });
});
