/**
 * linearizeByShard (test-support/linearize.ts): a response-order trace is put in the shard's order,
 * each replica's own order kept; a trace no order can explain is refused, saying where it got stuck.
 */
import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../vocab/index.ts';
import { linearizeByShard } from '../test-support/linearize.ts';

const ok = (replica: number, lower: number, upper: number): TraceEvent => ({
  kind: 'append',
  replica,
  lower,
  upper,
  batches: 1,
  parts: { hollow: 1, inline: 0 },
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
});
