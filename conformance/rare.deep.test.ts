/**
 * The rare combinations (rare.ts) are what makes their paths common: on a changed copy of the kit whose
 * generators lost the shaping, the product's `sbkit check` at the default budget of a sharing variant
 * reaches each combination's path a few times at most (by chance), against tens of runs with it. Deep:
 * `sbkit check` on a changed copy, beside the kit as it is, under `--strategy random` (the steering of
 * `mixed` and `steer` shapes some runs on its own).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RARE_COMBINATIONS, RARE_PATH } from './rare.ts';
import { plant } from './test-support/plant.ts';

const ROOT = join(import.meta.dirname, '..');
function sbkitProcess(args: readonly string[]): { readonly code: number | null; readonly output: string } {
  const r = spawnSync(process.execPath, ['bin/sbkit.js', ...args], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 << 20 });
  return { code: r.status, output: `${r.stdout}${r.stderr}` };
}
const reached = (output: string, path: string): number => Number(new RegExp(`\\b${path} (\\d+)\\b`).exec(output)?.[1] ?? 0);

describe('rare combinations, shaped on purpose', () => {
  it('a check whose generators lost the shaping reaches each rare path in under a third of the runs the kit does', () => {
    const p = plant({ file: 'conformance/rare.ts', from: 'if (rare === null) return { workload: w, schedule: s };', to: 'return { workload: w, schedule: s };' });
    try {
      for (const seed of ['1', '2', '3']) {
        const args = ['check', '--variant', 'best-effort', '--seed', seed, '--strategy', 'random'];
        const lost = p.sbkit(args);
        const kit = sbkitProcess(args);
        expect(kit.code, kit.output).toBe(0);
        for (const rare of RARE_COMBINATIONS) {
          const path = RARE_PATH[rare];
          expect(reached(kit.output, path), kit.output).toBeGreaterThan(0);
          expect(3 * reached(lost.output, path), `${path}, seed ${seed}: without the shaping\n${lost.output}\nwith it\n${kit.output}`).toBeLessThan(reached(kit.output, path));
        }
      }
    } finally {
      p.dispose();
    }
  });
});
