import { describe, expect, it } from 'vitest';
import { runCheck, tokenOf } from './check.ts';
import { CONFIG_CHECKS, configCheck, runStream, streamReport, type ConfigCheck } from './streams.ts';
import { decodeToken, ReplayTokenError } from './token.ts';
import { workloadOf } from './test-support/workload.ts';

const WORKLOAD = workloadOf('best-effort', [['tiny', 'medium']]);

/** A planted broken check: refuses its third case on every configuration of two replicas or more. */
const planted: ConfigCheck = {
  name: 'planted',
  unit: 'planted cases',
  cases: () => 5,
  budget: (runs) => runs,
  judge: async (c, pick) => (c.replicas >= 2 && pick === 2 ? `case 2 on ${c.replicas} replicas` : undefined),
};

describe('streams of checks derived from the configuration alone', () => {
  it('a stream finds a planted failure and shrinks configuration and case together', async () => {
    const s = await runStream(planted, 'best-effort', 300, 7, undefined);
    expect(s.failure).toBeDefined();
    expect(s.failure?.pick).toBe(2);
    expect(s.failure?.workload.replicas).toBe(2);
    expect(s.failure?.why).toBe('case 2 on 2 replicas');
    expect(s.failure?.runsToFailure).toBeGreaterThanOrEqual(1);
  });

  it('a passing stream runs its whole budget', async () => {
    const s = await runStream({ ...planted, judge: async () => undefined }, 'off', 40, 3, undefined);
    expect(s).toEqual({ name: 'planted', runs: 40 });
  });

  it('sbkit check prints each stream with its runs; folded, no stream runs and the summary says so', async () => {
    const r = await runCheck({ variant: 'off', runs: 40, seed: 5 });
    expect(r.exitCode).toBe(0);
    const o = r.variants[0];
    for (const c of CONFIG_CHECKS) expect(o?.streams?.[c.name]).toBe(c.budget(40, c.cases('off')));
    expect(r.summary).toContain('corrupted configurations');
    expect(r.output).toContain('derived from the configuration alone, own streams');
    const folded = await runCheck({ variant: 'off', runs: 40, seed: 5, fold: true });
    expect(folded.exitCode).toBe(0);
    expect(folded.variants[0]?.streams).toBeUndefined();
    expect(folded.summary).toContain('folded into every run');
    expect(r.summary).toMatch(/metrics checked \+ \d+ corrupted configurations, \d+ misuse programs in streams of their own, seed 5/);
  });

  it('a stream case replays from its token: the token carries the check and the case', async () => {
    const token = tokenOf(streamReport('misuse-refused', 3, WORKLOAD, 'planted', undefined));
    expect(decodeToken(token).stream).toEqual({ check: 'misuse-refused', pick: 3 });
    const r = await runCheck({ variant: 'best-effort', replay: token });
    // The real misuse check holds on the real implementation: the replay judges it again.
    expect(r.exitCode).toBe(0);
    expect(r.output).toContain('every check holds');
  });

  it('a token naming no stream is refused', () => {
    const good = tokenOf(streamReport('bad-input-refused', 0, WORKLOAD, 'x', undefined));
    const body = JSON.parse(Buffer.from(good.slice(4), 'base64url').toString('utf8')) as Record<string, unknown>;
    const bad = `sb1.${Buffer.from(JSON.stringify({ ...body, st: 'no-such-check' })).toString('base64url')}`;
    expect(() => decodeToken(bad)).toThrow(ReplayTokenError);
    expect(configCheck('no-such-check')).toBeUndefined();
  });
});

describe('a stream failure as a regression test', () => {
  it('judges the token\'s case again on its configuration', async () => {
    const { counterexampleTestSource } = await import('./emit.ts');
    const report = streamReport('bad-input-refused', 4, WORKLOAD, 'planted', undefined);
    const src = counterexampleTestSource(report, tokenOf(report), 'conformance/x.test.ts');
    expect(src).toContain("configCheck(\"bad-input-refused\")");
    expect(src).toContain('judgeStreamCase(check, c.workload, c.stream.pick, c.bug)');
    // What the emitted test asserts holds on the real implementation for this case.
    const check = configCheck('bad-input-refused');
    expect(check).toBeDefined();
    const { judgeStreamCase } = await import('./streams.ts');
    if (check !== undefined) expect(await judgeStreamCase(check, WORKLOAD, 4, undefined)).toBeUndefined();
  });
});
