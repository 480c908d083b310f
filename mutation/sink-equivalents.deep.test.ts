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
 *   branch is taken and the kit's is not; the killer's three commands (mutation/killer-output.ts) print
 *   there word for word what they print in the kit.
 */
import { describe, expect, it } from 'vitest';
import { plant } from '../conformance/test-support/plant.ts';
import { killerOutputs, type KillerOutput } from './killer-output.ts';

const PROBE = /^mint probe: (\d+)\n/m;

describe('mint.ts: the queues closed once lower reached K, a description live or not', () => {
  it("prints word for word the kit's output in the killer's three commands, its branch taken where the kit's is not", async () => {
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
      const planted = p.tsx('mutation/killer-output.ts', []);
      expect(planted.code, planted.output).toBe(0);
      const taken = Number(PROBE.exec(planted.output)?.[1] ?? 0);
      const mutant = JSON.parse(planted.output.replace(PROBE, '')) as KillerOutput[];
      const kit = await killerOutputs();
      for (const k of kit) expect([k.command, k.code]).toEqual([k.command, 0]);
      expect(mutant).toEqual(kit);
      expect(taken).toBeGreaterThan(100);
    } finally {
      p.dispose();
    }
  }, 1_800_000);
});
