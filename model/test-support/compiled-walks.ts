/**
 * Random walks stepped twice, by XState itself and by the compiled machines (model/compiled.ts), compared
 * at every step. compiled.test.ts walks a few seeds per configuration in `npm test`, compiled.deep.test.ts
 * many.
 */
import { expect, vi } from 'vitest';
import { MODEL_VARIANT_NAMES as VARIANTS } from '../variants/index.ts';
import type { ModelConfig } from '../config.ts';
import { rng, tiny, u, wide } from './driver.ts';

type System = typeof import('../system.ts');

/** The system module twice: once with every machine stepped by XState itself, once compiled. */
async function bothSystems(): Promise<{ ref: System; fast: System }> {
  process.env['SBKIT_MODEL_RUNNER'] = 'xstate';
  vi.resetModules();
  const ref = await import('../system.ts');
  delete process.env['SBKIT_MODEL_RUNNER'];
  vi.resetModules();
  const fast = await import('../system.ts');
  return { ref, fast };
}

const configs: [string, ModelConfig][] = [
  ...VARIANTS.map((v): [string, ModelConfig] => [`${v} tiny`, tiny(v)]),
  ...VARIANTS.map((v): [string, ModelConfig] => [`${v} wide`, wide({ variant: v, maxBytesChoices: [0, 50, 1000] }, u(4, 0, 0, 30))]),
  ['best-effort with the sweep race', wide({ variant: 'best-effort', bugs: { sweepUpgradeRace: true } })],
  ['barrier, inline backpressure', wide({ variant: 'barrier', persist: { blobTargetSize: 64, inlineSingleMaxBytes: 32, inlineTotalMaxBytes: 20 } })],
  ['best-effort, the fault world', wide({ variant: 'best-effort', faults: { aborts: 2, indeterminate: 2, cleanup: true }, bugs: { indeterminateAsMismatch: true } })],
];

/**
 * Seeds 1..`seeds` of a random walk on every configuration: every successor (event and next state, key
 * order included) the same at every step. Returns the steps taken.
 */
export async function walkBoth(seeds: number): Promise<number> {
  const { ref, fast } = await bothSystems();
  let steps = 0;
  for (const [name, cfg] of configs) {
    for (let seed = 1; seed <= seeds; seed++) {
      const pick = rng(seed * 7919);
      let a = ref.initialState(cfg);
      let b = fast.initialState(cfg);
      expect(fast.serialize(b), name).toBe(ref.serialize(a));
      for (;;) {
        const sa = ref.successors(cfg, a);
        const sb = fast.successors(cfg, b);
        expect(sb.map((s) => s.event), `${name} seed ${seed} step ${steps}`).toEqual(sa.map((s) => s.event));
        expect(sb.map((s) => fast.serialize(s.next))).toEqual(sa.map((s) => ref.serialize(s.next)));
        if (sa.length === 0) break;
        const i = pick(sa.length);
        a = (sa[i] as (typeof sa)[number]).next;
        b = (sb[i] as (typeof sb)[number]).next;
        steps += 1;
      }
    }
  }
  return steps;
}
