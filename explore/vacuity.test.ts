import { describe, expect, it } from 'vitest';
import { VARIANTS } from './variants/index.ts';
import { search } from '../model/search.ts';
import { type Property, propertyByName } from '../spec/properties.ts';
import { CHECK_FAULTS, checkConfig } from './model-check.ts';
import { VACUITY_RULES, type VacuityConfig } from './vacuity.ts';
import { main } from './cli.ts';
import { captureIo } from './io.ts';

/** Each rule's premise as a `sometimes` property: witnessed iff the property has something to judge. */
const premises: Property[] = VACUITY_RULES.map((r) => ({
  name: r.property,
  kind: 'sometimes',
  guards: 'vacuity',
  statement: `the premise of ${r.property}`,
  check: (view) => (r.premise(view) ? { ok: true } : { ok: false, why: 'not yet' }),
}));

/** Small shapes (one worker: vacuity depends on the variant, the replicas and the fault world, not on workers). */
const CONFIGS: readonly (VacuityConfig & { readonly workers: number })[] = VARIANTS.flatMap((variant) => [
  { variant, replicas: 1, faults: false, workers: 2 },
  { variant, replicas: 2, faults: false, workers: 1 },
  { variant, replicas: 1, faults: true, workers: 1 },
]);

describe('vacuous properties', () => {
  it('every rule names a property of spec/ that is judged (always or eventually)', () => {
    for (const r of VACUITY_RULES) expect(propertyByName(r.property)?.kind, r.property).toMatch(/^(always|eventually)$/);
  });

  it.each(CONFIGS.map((c) => [`${c.variant}, ${c.replicas} replica(s)${c.faults ? ', faults' : ''}`, c] as const))(
    '%s: the model witnesses a premise exactly where the rule says the property is not vacuous',
    (_label, c) => {
      const cfg = { ...checkConfig(c.variant, { workers: c.workers, processes: 1, replicas: c.replicas, intervals: 1 }), ...(c.faults ? { faults: CHECK_FAULTS } : {}) };
      const r = search(cfg, { maxStates: 200_000, properties: premises });
      expect(r.complete).toBe(true);
      const witnessed = new Set(r.witnesses.map((w) => w.property));
      for (const rule of VACUITY_RULES) {
        expect({ property: rule.property, witnessed: witnessed.has(rule.property) }).toEqual({ property: rule.property, witnessed: rule.needs(c) === undefined });
      }
    },
  );

  it('sbkit model --check prints a vacuous property as "vacuous (needs …)", never "holds"', async () => {
    const io = captureIo();
    expect(await main(['model', '--check', '--variant', 'off'], io)).toBe(0);
    const out = io.stdout();
    expect(out).toMatch(/^ {2}eventually +barrier-every-finish-returns +vacuous \(needs a sharing variant: off finishes no handle\)$/m);
    expect(out).toMatch(/^ {2}eventually +converges-after-faults +vacuous \(needs --faults: no fault to converge after\)$/m);
    expect(out).toMatch(/^ {2}always +no-loss-no-duplication +holds$/m);
    expect(out).toMatch(/every always\/eventually property holds, 6 of them vacuously\)$/m);
    const faults = captureIo();
    await main(['model', '--check', '--variant', 'barrier', '--faults', '--json'], faults);
    const verdicts = Object.fromEntries((JSON.parse(faults.stdout()) as { variants: { properties: { name: string; verdict: string }[] }[] }).variants[0]?.properties.map((p) => [p.name, p.verdict]) ?? []);
    expect(verdicts).toMatchObject({ 'converges-after-faults': 'holds', 'barrier-one-shared-batch-per-process': 'holds', 'barrier-every-finish-returns': 'holds', 'leaks-collected': 'holds' });
  });
});
