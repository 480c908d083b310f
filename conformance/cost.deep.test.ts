/**
 * The cost counters whose faults a spy cannot plant (cost.test.ts has the others): each fault is a
 * textual change inside a private method, a module function or a loop (test-support/plant.ts), and the
 * product's `sbkit check` on the changed copy of the kit fails, naming the counter. Deep: each test copies
 * the kit and runs a check in a process of its own (seconds each).
 */
import { describe, expect, it } from 'vitest';
import { plant, type Change } from './test-support/plant.ts';

/** `sbkit check` on a copy of the kit with `changes` planted: it fails, naming `check`. */
function plantedFails(changes: readonly Change[], args: readonly string[], check: string): string {
  const p = plant(...changes);
  try {
    const r = p.sbkit(['check', '--seed', '1', '--no-shrink', ...args]);
    expect(r.code, r.output.slice(0, 2000)).toBe(1);
    const failures = r.output.split('\n').filter((l) => /^\s+- \[/.test(l));
    expect(failures.join('\n')).toContain(`[cost] ${check}:`);
    expect(r.output).toMatch(/^seed 1; failed on run \d+/m);
    expect(r.output).toMatch(/^replay: sbkit check --replay sb1\./m);
    return failures.join('\n');
  } finally {
    p.dispose();
  }
}

describe('more I/O than the protocol needs fails the check: the counters a textual change plants', () => {
  it("consensus.scans: the re-read's bound `<=` made `<` (every refresh scans, even when nothing is new)", () => {
    plantedFails([{ file: 'impl/persist/shard-writer.ts', from: 'head.seqNo <= have', to: 'head.seqNo < have' }], ['--variant', 'off', '--runs', '100'], 'cost-consensus.scans');
  });

  it('consensus.cas, registry.cas: a claim that writes its registry version twice', () => {
    const out = plantedFails(
      [{ file: 'impl/persist/writer-registry.ts', from: 'if (cas.ok) return seqNo;', to: 'if (cas.ok) { metrics.c.writerRegistrations += 1; await consensus.compareAndSet(key, seqNo, { seqNo: seqNo + 1, data }); return seqNo; }' }],
      ['--variant', 'off', '--runs', '20'],
      'cost-consensus.cas',
    );
    expect(out).toContain('[cost] cost-registry.cas:');
  });

  it('shard.cas: an empty command after every commit (it moves nothing)', () => {
    plantedFails(
      [
        {
          file: 'impl/persist/shard-writer.ts',
          from: 'this.#state = applyDiff(state, diff);',
          to: 'this.#state = applyDiff(state, diff); const touch = { ...diff, seqNo: seqNo + 1, batch: null }; metrics.c.consensusCommands += 1; await consensus.compareAndSet(shardId, seqNo, { seqNo: seqNo + 1, data: encodeDiff(touch) }); this.#state = applyDiff(this.#state, touch);',
        },
      ],
      ['--variant', 'off', '--runs', '20'],
      'cost-shard.cas',
    );
  });

  it('a lost race no other writer caused: a doomed compare-and-set before every command', () => {
    const out = plantedFails(
      [{ file: 'impl/persist/shard-writer.ts', from: 'metrics.c.consensusCommands += 1;', to: 'metrics.c.consensusCommands += 1; metrics.c.consensusCasFailed += 1; await consensus.compareAndSet(shardId, seqNo - 2, { seqNo: seqNo - 1, data });' }],
      ['--variant', 'off', '--runs', '20'],
      'cost-consensus.heads',
    );
    expect(out).toContain('[cost] cost-shardCasLost:');
  });

  it('state.bytes: an append with no batches records an empty batch instead of none', () => {
    plantedFails([{ file: 'impl/persist/shard-writer.ts', from: 'batch: batches.length === 0 ? null : {', to: 'batch: {' }], ['--variant', 'off', '--runs', '200'], 'cost-state.bytes');
  });

  it('mint.polls: the mint polls twice per wake-up', () => {
    plantedFails(
      [
        {
          file: 'impl/sink/mint.ts',
          from: '({ upper } = await r.deps.shard.fetchState());',
          to: "await r.deps.shard.fetchState(); await pointAt(r.deps.scheduler, 'mint.poll', r.where()); if (!mayPoll(r)) continue; r.deps.trace.emit({ kind: 'poll', replica: r.settings.replica, sharedId: (r.live as Description).sharedId }); ({ upper } = await r.deps.shard.fetchState());",
        },
      ],
      ['--variant', 'off', '--runs', '500'],
      'cost-mint.polls',
    );
  });

  it('poll-answered: a mint that polls after its point without asking again whether its window is still open (its read answers after the append began, unused)', () => {
    const out = plantedFails([{ file: 'impl/sink/mint.ts', from: 'if (!mayPoll(r)) continue;', to: '' }], ['--variant', 'off'], 'cost-poll-answered');
    expect(out).toMatch(/appended the description instead of superseding it: the read's answer went unused/);
  });

  it('points.mint.poll: the mint passes its point twice before a poll', () => {
    const poll = "await pointAt(r.deps.scheduler, 'mint.poll', r.where());";
    plantedFails([{ file: 'impl/sink/mint.ts', from: poll, to: `${poll} ${poll}` }], ['--variant', 'off', '--runs', '500'], 'cost-points.mint.poll');
  });

  it('points.builder.recv: a builder task passes its point twice per read', () => {
    const recv = "await pointAt(scheduler, 'builder.recv', where);";
    plantedFails([{ file: 'impl/shared/builder-task.ts', from: recv, to: `${recv} ${recv}` }], ['--variant', 'best-effort', '--runs', '300'], 'cost-points.builder.recv');
  });

  it('points.registry-lock: a builder() call passes its point once more after taking the lock', () => {
    const open = "await this.#acquire(() => pointAt(this.ctx.scheduler, 'shared.open', where), opts.worker);";
    plantedFails([{ file: 'impl/shared/shared-batches.ts', from: open, to: `${open} await pointAt(this.ctx.scheduler, 'shared.open', where);` }], ['--variant', 'best-effort', '--runs', '300'], 'cost-points.registry-lock');
  });

  // A merge tree that merges a level too early or too late still ends every batch within max_runs (at the
  // limit the check draws, 2, the runs never differ), but its merges rewrite other parts, more or fewer.
  for (const merges of ['true', 'depth === maxLevel', 'level.length <= this.maxLen || depth === maxLevel', 'level.length >= this.maxLen || depth === maxLevel']) {
    it(`compaction.rewrites: the merge tree's push keeps a level when \`${merges}\``, () => {
      plantedFails([{ file: 'impl/persist/merge-tree.ts', from: 'if (level.length < this.maxLen || depth === maxLevel) return;', to: `if (${merges}) return;` }], ['--variant', 'off', '--runs', '50'], 'cost-compaction.rewrites');
    });
  }

  it('points.barrier.wake: every woken barrier waiter passes the wake point, not only the deliverer', () => {
    plantedFails([{ file: 'impl/shared/handle.ts', from: 'if (barrier.deliverer === this.handleId) await pointAt', to: 'await pointAt' }], ['--variant', 'barrier', '--runs', '300'], 'cost-points.barrier.wake');
  });
});
