/**
 * Several writers on one shard, each with its own persist configuration (inline limits, part targets, run
 * limits), as after a configuration change: each append is refused by inline backpressure only when it
 * adds inline bytes and state's plus its own reach its writer's limit — an append with none never waits,
 * whatever the shard holds — and every write lands as predicted. A writer's batch compacts its runs under
 * its own persist_batch_max_runs (2 to 7, with up to 40 parts: several levels of the merge tree): its runs
 * and the part rewrites the compaction costs are the model's (model/parts.ts `compaction`). What each
 * writer knows of the shard is the shard: the appending writer's state right after its commit, and every
 * writer's `fetchState()` after each step (a fold resumed from what it knew), are the state the model
 * predicts — every batch appended, in order, each writer's last committed token — and the one read whole
 * from consensus.
 */
import { BugSwitches } from '../../impl/bugs.ts';
import type { Batch } from '../../impl/persist/batch.ts';
import { BatchBuilder } from '../../impl/persist/batch-builder.ts';
import { compaction } from '../../model/parts.ts';
import { MemBlob } from '../../impl/persist/blob.ts';
import { MemConsensus } from '../../impl/persist/consensus.ts';
import { ShardWriter } from '../../impl/persist/shard-writer.ts';
import { loadShardState, type ShardState } from '../../impl/persist/state.ts';
import { OK, Judge } from './judge.ts';
import { update } from './draw.ts';
import { programScheduler } from './scheduler.ts';
import { writerOf, SHARD, WHERE } from './writer.ts';

export async function writers(j: Judge): Promise<void> {
  const d = j.draw;
  const consensus = new MemConsensus();
  const store = new MemBlob();
  const limits = [1, 2 + d.int(40), 34, 64 + d.int(200), 1 << 20];
  const ws = Array.from({ length: 2 + d.int(2) }, (_, i) => {
    const persist = i === 0 ? {} : { inlineSingleMaxBytes: d.pick([0, 1 + d.int(60), 4096]), inlineTotalMaxBytes: d.pick(limits), blobTargetSize: d.pick([1, 1 + d.int(80), 128 << 20]), maxRuns: d.pick([1, 2, 3, 2 + d.int(6)]) };
    const w = writerOf(persist, store, `w${i}`);
    const shard = new ShardWriter({ shardId: SHARD, consensus, blob: w.blob, scheduler: programScheduler, metrics: w.metrics, config: w.config, where: WHERE, trace: w.trace, bugs: new BugSwitches([]) });
    j.program.push(`writer w${i}: inline single < ${w.config.inlineSingleMaxBytes}, inline total < ${w.config.inlineTotalMaxBytes}, parts of ${w.config.blobTargetSize}, max runs ${w.config.maxRuns ?? 1}`);
    return { ...w, shard, name: `w${i}` };
  });
  let upper = 0;
  let inline = 0;
  /** The model of the shard: each appended batch's [lower, upper) and parts, each writer's last token. */
  const appended: [number, number, number][] = [];
  const tokens = new Map<string, number>();
  const calls = new Map<string, number>();
  for (let step = 4 + d.int(8); step > 0; step--) {
    const w = d.pick(ws);
    const empty = d.int(3) === 0;
    // (now and then the writer's view is one append behind: a mismatch, its batch deleted)
    const stale = d.int(5) === 0 && upper > 0;
    const expected = stale ? upper - 1 : upper;
    const batches: Batch[] = [];
    if (!empty) {
      const bb = new BatchBuilder(w, expected, expected + 1, WHERE);
      // (now and then a long batch: with parts of 1 byte, one part per update)
      await bb.add(Array.from({ length: 1 + d.int(d.int(3) === 0 ? 40 : 4) }, () => update(expected, 1 + d.int(30))));
      const rewrites = w.metrics.c.compactionRewrites;
      const b = await j.call(`${w.name}: a batch`, OK, () => bb.finish());
      if (b === undefined) return;
      j.same(`${w.name}: the batch's runs and the part rewrites compacting them cost`, compaction(b.parts.length, w.config.maxRuns), { runs: b.runs, rewrites: w.metrics.c.compactionRewrites - rewrites });
      batches.push(b);
    }
    const adding = batches.flatMap((b) => b.parts).reduce((n, p) => n + (p.kind === 'inline' ? p.payloadBytes : 0), 0);
    const flush = !stale && adding > 0 && inline + adding >= w.config.inlineTotalMaxBytes;
    const parts = batches.flatMap((b) => b.parts).length;
    const inlineParts = batches.flatMap((b) => b.parts).filter((p) => p.kind === 'inline').length;
    const hollow = flush ? parts : parts - inlineParts;
    const what = `${w.name}.compareAndAppend(${empty ? 'no batches' : `${parts} part(s), ${adding} inline bytes`}, ${expected}, ${expected + 1}) on a shard with ${inline} inline bytes`;
    const r = await j.call(what, OK, () => w.shard.compareAndAppend(batches, expected, expected + 1));
    if (r === undefined) return;
    const token = calls.get(w.name) ?? 0;
    calls.set(w.name, token + 1);
    j.same(`${what}: result`, stale ? { kind: 'upper-mismatch', current: upper, expected } : { kind: 'ok', parts: { hollow, inline: parts - hollow }, flushedParts: flush ? inlineParts : 0 }, r);
    if (stale) {
      for (const b of batches) await b.delete();
      continue;
    }
    upper += 1;
    if (!flush) inline += adding;
    if (parts > 0) appended.push([expected, expected + 1, parts]);
    tokens.set(w.blob.writerId, token);
    const model = { seqNo: upper - 1, upper, inlineBytes: inline, batches: appended, writers: [...tokens].sort() };
    j.same(`${w.name}'s state after its commit`, model, shown(w.shard.cachedState));
    for (const v of ws) j.same(`${v.name}.fetchState()`, model, shown(await v.shard.fetchState()));
    j.same('the shard read whole', model, shown(await loadShardState(consensus, SHARD)));
  }
}

/** What the model predicts of a shard state. */
const shown = (s: ShardState) => ({
  seqNo: s.seqNo,
  upper: s.upper,
  inlineBytes: s.inlineBytes,
  batches: s.batches.map((b) => [b.lower, b.upper, b.parts.length]),
  writers: [...s.writers].sort(),
});
