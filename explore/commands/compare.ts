/** `sbkit compare`: the variants side by side on one workload, or a sweep over a parameter. */
import { switchFlag } from '../args.ts';
import { type Command, EXIT, usageError, withArgs } from '../command.ts';
import { runComparison, runSweep } from '../compare.ts';
import { comparisonJson, renderComparison, renderSweep, sweepsJson } from '../render.ts';
import type { SweepResult } from '../types.ts';
import { renderColumnDocs } from '../columns.ts';
import { createProgress } from '../progress.ts';
import { SETUP_FLAGS, SWEEP_FLAG, resolveSetup } from '../setup-flags.ts';
import { reportRunError } from './errors.ts';

const USAGE = 'sbkit compare';

export const COMPARE_FLAGS = {
  ...SETUP_FLAGS,
  sweep: SWEEP_FLAG,
  json: switchFlag('print one JSON object instead of a table (no progress bar)'),
} as const;

const HELP = {
  usage: USAGE,
  summary:
    'Runs the implementation for each variant over a seeded workload on the in-memory backend and prints\n' +
    'what it cost. Workers become ready at seeded, different moments (virtual time), so best-effort\n' +
    'overlap is realistic. The same seed gives byte-identical output.',
  notes: [
    'Examples:\n  sbkit compare\n  sbkit compare --sweep threshold=0,4096,65536,1MiB\n  sbkit compare --sweep workers=1,2,4,8,16 --json\n  sbkit compare --scenario hydration',
    `Columns:\n${renderColumnDocs()}`,
  ],
};

export const compareCommand: Command = {
  name: 'compare',
  summary: 'compare off / best-effort / barrier on a workload (table or --json), or sweep a parameter',
  run: (argv, io) => withArgs(HELP, COMPARE_FLAGS, argv, io, async (v) => {
    const resolved = resolveSetup(v, v.sweep);
    if (!resolved.ok) return usageError(io, USAGE, resolved.reason);
    const { scenario, setup, variants } = resolved.value;
    const progress = createProgress(io, { json: v.json, title: 'compare' });
    try {
      if (v.sweep.length === 0) {
        const c = await runComparison(scenario, setup, variants, (f, label) => progress.update(f, label));
        progress.done();
        io.out(v.json ? comparisonJson(c) : renderComparison(c));
        return EXIT.ok;
      }
      const results: SweepResult[] = [];
      for (const [i, s] of v.sweep.entries()) {
        const n = v.sweep.length;
        results.push(await runSweep(scenario, setup, variants, s, (f, label) => progress.update((i + f) / n, label)));
      }
      progress.done();
      io.out(v.json ? sweepsJson(results, scenario, setup, variants) : results.map(renderSweep).join('\n'));
      return EXIT.ok;
    } catch (e) {
      progress.done();
      return reportRunError(io, USAGE, e);
    }
  }),
};

