/**
 * The rare combinations (rare.ts) are required paths: a check whose generators lost the shaping fails
 * as vacuous at the default budget. Deep: the product's `sbkit check` on a changed copy of the kit, at
 * the default budget of a sharing variant.
 */
import { describe, expect, it } from 'vitest';
import { plant } from './test-support/plant.ts';

describe('rare combinations, required', () => {
  it('fails a check whose generators lost the rare combinations (rare.ts): no barrier skip of a superseded description in a budget', () => {
    const p = plant({ file: 'conformance/rare.ts', from: 'if (rare === null) return { workload: w, schedule: s };', to: 'return { workload: w, schedule: s };' });
    try {
      const r = p.sbkit(['check', '--variant', 'best-effort', '--seed', '2']);
      expect(r.code, r.output).toBe(1);
      expect(r.output).toMatch(/FAILED \(vacuous\)[\s\S]*best-effort: [^\n]*supersede-skip-reported[^\n]*\(0 of 500 runs\)/);
    } finally {
      p.dispose();
    }
  });
});
