import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { passThroughScheduler } from '../impl/seams.ts';
import { CORRUPTIONS, badInputRefused, corruptionFor, corruptionsFor, optionCorruptions } from './bad-input.ts';
import { VARIANTS, variantMeta } from '../impl/variants/index.ts';
import { probeMeta } from '../vocab/test-support/probe-variant.ts';
import { runConfigOf } from './harness.ts';
import { workloadArb } from './workload.ts';

const configs = (['barrier', 'off', 'best-effort'] as const).flatMap((v) => fc.sample(workloadArb(v), { numRuns: 200, seed: 5 })).map((w) => runConfigOf(w, passThroughScheduler).config);

describe('bad input, a property of every run', () => {
  it('every corruption of a generated config is refused with a typed error naming the field', async () => {
    for (const c of [...configs.slice(0, 15), ...configs.slice(200, 215), ...configs.slice(400, 415)]) for (const k of CORRUPTIONS) expect(await badInputRefused(c, k), k.describe).toBeUndefined();
  });

  it('over a few hundred workloads every corruption is tried', () => {
    const tried = new Set(configs.map((c) => corruptionFor(c).describe));
    expect([...tried].sort()).toEqual(CORRUPTIONS.map((k) => k.describe).sort());
  });

  it("a variant's options are corrupted too, each refused naming the option; a variant without options adds none", async () => {
    const [own] = optionCorruptions(probeMeta);
    expect(own?.names).toBe('variantOptions.timeout');
    expect(own?.describe).toBe('--probe-timeout -1');
    const c = configs[0];
    if (c === undefined || own === undefined) throw new Error('no config');
    // the refusal of a registered variant (which takes no option: named the same way as a bad value)
    expect(await badInputRefused(c, own)).toBeUndefined();
    // a variant with options adds one corruption per option (each at -1), one without adds none
    for (const v of VARIANTS) {
      const own = optionCorruptions(variantMeta(v));
      if (own.length === 0) expect(corruptionsFor(v)).toBe(CORRUPTIONS);
      else expect(corruptionsFor(v).map((x) => x.names)).toEqual([...CORRUPTIONS, ...own].map((x) => x.names));
    }
    expect(VARIANTS.some((v) => optionCorruptions(variantMeta(v)).length > 0)).toBe(true);
  });

  it('fails when a corrupted config is accepted, or refused without naming the field', async () => {
    const c = configs[0];
    if (c === undefined) throw new Error('no config');
    expect(await badInputRefused(c, { names: 'replicas', describe: 'a corruption the validator misses', corrupt: (x) => x })).toMatch(/accepted — the run would have started on it/);
    expect(await badInputRefused(c, { names: 'maxBytes', describe: 'a knob function that is fine', atRun: true, corrupt: (x) => x })).toMatch(/the run ended settled, not with a typed error/);
    expect(await badInputRefused(c, { names: 'frobnicate', describe: 'replicas 0, blamed on another field', corrupt: (x) => ({ ...x, replicas: 0 }) })).toMatch(/does not name frobnicate/);
  });
});
