/** The section "Bounding the barrier's wait" of `barrier-timeout` (a sweep of T at two straggler levels: the deep tier). */
import { describe, expect, it } from 'vitest';
import { DEFAULT_STRAGGLER_SLOWDOWN } from '../timing.ts';
import type { Setup } from '../types.ts';
import { TIMEOUTS, timeoutTradeoff, tradeoffHtml, whatTBuys } from './barrier-timeout-report.ts';

const setup: Setup = { replicas: 1, processes: 1, workers: 4, intervals: 12, rows: 200, rowBytes: 200, threshold: 1 << 20, seed: 11, stragglers: { probability: 0.2, slowdown: DEFAULT_STRAGGLER_SLOWDOWN } };

describe('the section "Bounding the barrier\'s wait"', () => {
  it('sweeps T at each straggler level and says what T buys from the figures it ran', async () => {
    const { stragglers: _none, ...base } = setup;
    const t = await timeoutTradeoff({ setup: base, progress: () => undefined }, { stragglers: [0, 0.2], workload: { rows: 200, rowBytes: 200, intervals: 12 } });
    expect(t.levels.map((l) => l.sweep.points.map((p) => p.value))).toEqual([TIMEOUTS, TIMEOUTS]);
    const sentence = whatTBuys(t);
    // Its figures are the runs' own: the p99 at T = 0 and at T = inf of the straggling level appear in it.
    const level = t.levels[1];
    const p99 = (timeout: number): string => {
      const point = level?.sweep.points.find((p) => p.value === timeout);
      return `${(point?.comparison.rows.find((r) => r.variant === 'barrier-timeout')?.latencyP99Ms ?? Number.NaN).toFixed(1)} ms`;
    };
    expect(sentence).toContain(p99(0));
    expect(sentence).toMatch(/^At 20% stragglers/);
    const html = tradeoffHtml(t, { compareCommand: (_s, _setup, extra = []) => `npx sbkit compare ${extra.join(' ')}` });
    expect(html).toContain('<svg');
    expect(html).toContain('--variants barrier-timeout --sweep barrier-timeout=0,1ms,5ms,20ms,inf --json');
    expect(html).toContain('Every run: nothing lost, duplicated or leaked');
  });

  it('says when no stragglers leave anything to buy', () => {
    expect(whatTBuys({ levels: [] })).toMatch(/^Without stragglers/);
  });
});
