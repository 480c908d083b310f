/**
 * linearizeByShard (impl/linearize.ts): a response-order trace is put in the shard's order, each
 * replica's own order kept; a trace no order can explain is refused, saying where it got stuck. The fault
 * world's events: a restart reads the shard, an indeterminate-applied compare-and-set of the append moves it.
 */
import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../vocab/index.ts';
import { linearizeByShard } from '../linearize.ts';

const ok = (replica: number, lower: number, upper: number): TraceEvent => ({
  kind: 'append',
  replica,
  lower,
  upper,
  batches: 1,
  parts: { hollow: 1, inline: 0 },
  runs: 1,
  updates: [],
  result: { ok: true },
});
const refused = (replica: number, lower: number, upper: number, current: number): TraceEvent => ({ ...ok(replica, lower, upper), result: { ok: false, current } } as TraceEvent);
const frontier = (replica: number, upper: number): TraceEvent => ({ kind: 'frontier', replica, upper });

describe('linearizeByShard', () => {
  it('keeps a trace that already is in the shard\'s order as it is', () => {
    const trace = [frontier(0, 1), frontier(1, 1), ok(0, 0, 1), refused(1, 0, 1, 1), frontier(1, 2), ok(1, 1, 2)];
    expect(linearizeByShard(trace)).toEqual({ ok: true, trace, moved: 0 });
  });

  it('moves a refusal whose response came after a later commit back before that commit', () => {
    // Replica 1 read the shard at 1, then replica 0 committed [1, 2); replica 1's answer arrived last.
    const trace = [ok(0, 0, 1), frontier(0, 2), ok(0, 1, 2), refused(1, 0, 1, 1), frontier(1, 2)];
    const r = linearizeByShard(trace);
    expect(r).toEqual({ ok: true, trace: [ok(0, 0, 1), frontier(0, 2), refused(1, 0, 1, 1), ok(0, 1, 2), frontier(1, 2)], moved: 1 });
  });

  it('delays a refusal that read a commit whose own response has not arrived yet', () => {
    const trace = [refused(1, 0, 1, 1), frontier(1, 2), ok(0, 0, 1)];
    expect(linearizeByShard(trace)).toEqual({ ok: true, trace: [ok(0, 0, 1), refused(1, 0, 1, 1), frontier(1, 2)], moved: 2 });
  });

  it('refuses two commits of one range, and a refusal at an upper the shard never had', () => {
    const twice = linearizeByShard([ok(0, 0, 1), ok(1, 0, 1)]);
    expect(twice).toMatchObject({ ok: false, why: expect.stringMatching(/no order fits the shard at upper 1; waiting: #1 .*"replica":1/) });
    expect(linearizeByShard([ok(0, 0, 2), refused(1, 0, 1, 1)])).toMatchObject({ ok: false });
  });

  it('starts from a given upper (a shard that already has data)', () => {
    expect(linearizeByShard([ok(0, 5, 6)], 5)).toMatchObject({ ok: true, moved: 0 });
    expect(linearizeByShard([ok(0, 5, 6)])).toMatchObject({ ok: false });
  });

  const mint = (replica: number, lower: number, upper: number): TraceEvent => ({ kind: 'mint', replica, desc: { lower, upper, appendWorker: 0, sharedId: lower, maxBytes: 0, barrier: false } });
  const applied = (replica: number): TraceEvent => ({ kind: 'fault', replica, op: 'consensus.cas', fault: 'indeterminate-applied' });
  const abort = (replica: number): TraceEvent => ({ kind: 'abort', replica, reason: 'SIGKILL' });
  const restart = (replica: number, lower: number): TraceEvent => ({ kind: 'restart', replica, lower });

  it('places a supersede mint (a mint while a description is live) where the shard was at its new lower', () => {
    // Replica 1's mint read upper 1 and superseded its [0, 2); replica 0's commits of [0, 1) and [1, 2)
    // are recorded around it.
    const trace = [mint(1, 0, 2), ok(0, 0, 1), mint(0, 1, 2), ok(0, 1, 2), mint(1, 1, 2)];
    expect(linearizeByShard(trace)).toEqual({ ok: true, trace: [mint(1, 0, 2), ok(0, 0, 1), mint(0, 1, 2), mint(1, 1, 2), ok(0, 1, 2)], moved: 1 });
    // a first mint reads nothing
    expect(linearizeByShard([mint(1, 0, 2), ok(0, 0, 1)])).toMatchObject({ ok: true, moved: 0 });
  });

  it('places a restart where the shard was at the upper it read, before a commit that came earlier in time', () => {
    // Replica 1 restarted reading upper 1; replica 0's commit of [1, 2) is recorded before it.
    const trace = [ok(0, 0, 1), abort(1), mint(0, 1, 2), ok(0, 1, 2), restart(1, 1), frontier(1, 2)];
    expect(linearizeByShard(trace)).toEqual({ ok: true, trace: [ok(0, 0, 1), abort(1), mint(0, 1, 2), restart(1, 1), ok(0, 1, 2), frontier(1, 2)], moved: 1 });
    expect(linearizeByShard([restart(0, 3)])).toMatchObject({ ok: false, why: expect.stringMatching(/at upper 0/) });
  });

  it('an indeterminate-applied compare-and-set of the append moves the shard; the append that learns it does not', () => {
    // Replica 0's CaS of [0, 1) applied (answer lost); replica 1's refusal saw it before replica 0 learned it.
    const trace = [mint(0, 0, 1), applied(0), refused(1, 0, 1, 1), ok(0, 0, 1), mint(0, 1, 2), ok(0, 1, 2)];
    expect(linearizeByShard(trace)).toEqual({ ok: true, trace, moved: 0 });
    // Killed before it learned it: the commit still moves the shard, the restart reads its upper.
    const killed = [mint(0, 0, 1), applied(0), abort(0), restart(0, 1), mint(0, 1, 2), ok(0, 1, 2)];
    expect(linearizeByShard(killed)).toEqual({ ok: true, trace: killed, moved: 0 });
  });

  it('a compare-and-set fault outside the append (the writer registry: down, or after the last append) touches nothing', () => {
    // A registry claim failing while replica 0 is down, and a retirement after its append.
    const trace = [mint(0, 0, 1), abort(0), applied(0), restart(0, 0), mint(0, 0, 1), ok(0, 0, 1), applied(0)];
    expect(linearizeByShard(trace)).toEqual({ ok: true, trace, moved: 0 });
    // Mid-description, it is the append's: here it would commit [0, 1) a second time.
    expect(linearizeByShard([ok(1, 0, 1), mint(0, 0, 1), applied(0)])).toMatchObject({ ok: false });
  });
});
