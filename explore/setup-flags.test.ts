import { describe, expect, it } from 'vitest';
import { parseArgs } from './args.ts';
import { atSweepPoint } from './compare.ts';
import { SETUP_FLAGS, SWEEP_FLAG, parseStragglers, resolveSetup } from './setup-flags.ts';
import type { Setup } from './types.ts';

const parse = (argv: string[]) => parseArgs({ ...SETUP_FLAGS, sweep: SWEEP_FLAG }, argv);

describe('--stragglers', () => {
  it('takes P or P,SLOWDOWN, a probability as a fraction or a percentage', () => {
    expect(parseStragglers('0.05')).toEqual({ ok: true, value: { probability: 0.05, slowdown: 100 } });
    expect(parseStragglers('5%,20')).toEqual({ ok: true, value: { probability: 0.05, slowdown: 20 } });
    expect(parseStragglers('1,1')).toEqual({ ok: true, value: { probability: 1, slowdown: 1 } });
  });

  it('refuses what is not a probability or a slowdown, naming what was wrong', () => {
    for (const [raw, why] of [['1.5', 'probability'], ['-0.1', 'probability'], ['x', 'probability'], ['0.1,0.5', 'SLOWDOWN'], ['0.1,abc', 'SLOWDOWN'], ['0.1,2,3', 'P,SLOWDOWN']] as const) {
      const p = parseStragglers(raw);
      expect(p.ok).toBe(false);
      if (!p.ok) expect(p.reason).toContain(why);
    }
    const flag = parse(['--stragglers', '2']);
    expect(flag).toEqual({ kind: 'error', message: expect.stringMatching(/^--stragglers: expected a probability/) });
  });

  it('reaches the setup only when on, and sweeps the probability keeping the slowdown', () => {
    const on = parse(['--stragglers', '0.1,30']);
    const off = parse(['--stragglers', '0']);
    if (on.kind !== 'values' || off.kind !== 'values') throw new Error('parse failed');
    const a = resolveSetup(on.values);
    const b = resolveSetup(off.values);
    expect(a.ok && a.value.setup.stragglers).toEqual({ probability: 0.1, slowdown: 30 });
    expect(b.ok && 'stragglers' in b.value.setup).toBe(false);
    const base: Setup = { replicas: 1, processes: 1, workers: 2, intervals: 1, rows: 1, rowBytes: 1, threshold: 1, seed: 1, stragglers: { probability: 0.1, slowdown: 30 } };
    expect(atSweepPoint(base, 'stragglers', 0.2).stragglers).toEqual({ probability: 0.2, slowdown: 30 });
    expect('stragglers' in atSweepPoint(base, 'stragglers', 0)).toBe(false);
    const { stragglers: _s, ...plain } = base;
    expect(atSweepPoint(plain, 'stragglers', 0.5).stragglers).toEqual({ probability: 0.5, slowdown: 100 });
    const sweep = parse(['--sweep', 'stragglers=0,5%,0.2']);
    expect(sweep.kind === 'values' && sweep.values.sweep).toEqual([{ param: 'stragglers', values: [0, 0.05, 0.2] }]);
  });

  it('small-writes has its own defaults: every worker below the inline limit', () => {
    const p = parse(['--scenario', 'small-writes']);
    if (p.kind !== 'values') throw new Error('parse failed');
    const r = resolveSetup(p.values);
    expect(r.ok && r.value.setup).toMatchObject({ intervals: 40, rows: 1000, rowBytes: 20 });
  });
});
