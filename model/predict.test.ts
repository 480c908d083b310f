import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../vocab/index.ts';
import { appendsOf, predictAppends } from './predict.ts';
import { config, Driver, ev, u } from './test-support/driver.ts';

describe('part-count prediction', () => {
  const cfg = config({
    variant: 'best-effort',
    intervals: 2,
    updates: [u(0, 0, 0, 30), u(1, 0, 1, 40), u(2, 1, 0, 10), u(3, 1, 1, 500)],
  });
  const run = () => {
    const d = new Driver(cfg);
    d.all(ev.frontier(), ev.mint(1000), ev.stage(0), ev.stage(1), ev.open(0), ev.open(1));
    d.all(ev.push(0, [0]), ev.push(1, [1]), ev.finishBegin(0), ev.finishBegin(1), ev.finishEnd(0), ev.finishEnd(1));
    d.all(ev.hand(0), ev.hand(1), ev.append(), ev.frontier(), ev.mint(100));
    d.drain();
    return d;
  };

  it('predicts batches, parts and result of every append of an accepted trace', () => {
    const d = run();
    const p = predictAppends(cfg, d.trace);
    expect(p.ok).toBe(true);
    expect(p.appends).toEqual([
      { replica: 0, lower: 0, upper: 1, batches: 1, parts: { hollow: 1, inline: 0 }, result: { ok: true } },
      { replica: 0, lower: 1, upper: 2, batches: 2, parts: { hollow: 1, inline: 1 }, result: { ok: true } },
    ]);
    expect(appendsOf(d.state)).toEqual(p.appends);
    expect(p.ok && p.pending).toEqual([]);
    const cut = predictAppends(cfg, d.trace.slice(0, -1));
    expect(cut.ok && cut.pending.map((e) => e.kind)).toEqual([d.trace.at(-1)?.kind]);
  });

  it('treats the registry-internal sweep-hold/release as stuttering steps unless the model has the review bug', () => {
    const trace = run().trace;
    const hold: TraceEvent = { kind: 'sweep-hold', replica: 0, process: 0, sharedId: 0 };
    const release: TraceEvent = { kind: 'sweep-release', replica: 0, process: 0, sharedId: 0, closed: false };
    const withInternal = [hold, release, ...trace];
    expect(predictAppends(cfg, withInternal).ok).toBe(true);
    const buggy = { ...cfg, bugs: { sweepUpgradeRace: true } };
    expect(predictAppends(buggy, withInternal)).toMatchObject({ ok: false, at: 0, reason: expect.stringMatching(/^not enabled: sweep-hold/) });
    // Divergence indices count the skipped events: they point into the trace as given.
    const wrong = [...withInternal];
    const at = wrong.findIndex((e) => e.kind === 'append');
    wrong[at] = { ...(wrong[at] as Extract<TraceEvent, { kind: 'append' }>), batches: 7 };
    expect(predictAppends(cfg, wrong)).toMatchObject({ ok: false, at });
  });

  it('reports the divergence: a wrong part count, or an event the model does not enable', () => {
    const trace = run().trace;
    const at = trace.findIndex((e) => e.kind === 'append');
    const wrong = [...trace];
    wrong[at] = { ...(trace[at] as Extract<TraceEvent, { kind: 'append' }>), parts: { hollow: 2, inline: 0 } };
    const p = predictAppends(cfg, wrong);
    expect(p).toMatchObject({ ok: false, at, reason: 'predicted field differs: append.parts.hollow expected 1, got 2' });
    expect(p.appends).toHaveLength(1);
    if (!p.ok) expect(p.expected).toEqual(trace[at]);
    expect(predictAppends(cfg, trace.slice(1))).toMatchObject({ ok: false, at: 0, reason: expect.stringMatching(/^not enabled: mint/) });
  });
});
