/**
 * Evidence for a survivor of impl/sink (mutation/evidence.ts), over the killer's whole budget:
 * - mint.ts `runMint` closes the queues and ends once the sink's lower reached K and no description is
 *   live; its mutant drops "no description is live". A live description with lower ≥ K is one whose
 *   append was refused because another replica sealed the shard: the append worker has taken every hand
 *   (it begins only then) and is deleting the batches before it ends the description. The mutant closes
 *   the queues during that delete instead of after it; nothing sends on them any more (the mint alone
 *   feeds the write and append queues, every write worker has sent its hand), and the tasks that wake
 *   to the close end without passing a scheduling point — so the schedule, and every output, is the same.
 *   Here the mutant is planted in a copy of the kit with a probe that counts the loop heads where its
 *   branch is taken and the kit's is not; the killer's three commands print word for word what they
 *   print in the kit.
 */
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { plant } from '../conformance/test-support/plant.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/** The killer's commands (mutation/check.stryker.mjs), seed 1, one job, unshrunk. */
const KILLER = [
  ['check', '--jobs', '1', '--seed', '1', '--no-shrink'],
  ['check', '--jobs', '1', '--seed', '1', '--no-shrink', '--faults'],
  ['bugs', '--check', '--seed', '1', '--no-shrink'],
] as const;
const PROBE = /^mint probe: (\d+)\n/m;

describe('mint.ts: the queues closed once lower reached K, a description live or not', () => {
  it("prints word for word the kit's output in the killer's three commands, its branch taken where the kit's is not", () => {
    const p = plant({
      file: 'impl/sink/mint.ts',
      from: '    if (r.live === null && r.lower >= r.settings.intervals) {',
      to: [
        '    if (r.live !== null && r.lower >= r.settings.intervals) {',
        '      const g = globalThis as { mintProbe?: number };',
        "      if (g.mintProbe === undefined) process.on('exit', () => process.stderr.write(`mint probe: ${g.mintProbe}\\n`));",
        '      g.mintProbe = (g.mintProbe ?? 0) + 1;',
        '    }',
        '    if (true && r.lower >= r.settings.intervals) {',
      ].join('\n'),
    });
    try {
      let taken = 0;
      for (const args of KILLER) {
        const kit = spawnSync(process.execPath, ['bin/sbkit.js', ...args], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 << 20 });
        const mutant = p.sbkit(args);
        const probe = PROBE.exec(mutant.output);
        taken += Number(probe?.[1] ?? 0);
        expect(kit.status, args.join(' ')).toBe(0);
        expect([args.join(' '), mutant.code, mutant.output.replace(PROBE, '')]).toEqual([args.join(' '), kit.status, `${kit.stdout}${kit.stderr}`]);
      }
      expect(taken).toBeGreaterThan(100);
    } finally {
      p.dispose();
    }
  }, 1_800_000);
});
