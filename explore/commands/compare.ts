/** `sbkit compare`: the variants side by side on one workload, or a sweep over a parameter. */
import { switchFlag } from '../args.ts';
import { type Command, EXIT, usageError, withArgs } from '../command.ts';
import { runComparison, runSweeps } from '../compare.ts';
import { comparisonJson, renderComparison, renderSweep, sweepsJson } from '../render.ts';
import { renderColumnDocs } from '../columns.ts';
import { withProgress } from '../progress.ts';
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
    'Examples:\n  sbkit compare\n  sbkit compare --sweep threshold=0,4096,65536,1MiB\n  sbkit compare --sweep workers=1,2,4,8,16 --json\n  sbkit compare --scenario hydration\n  sbkit compare --scenario small-writes\n  sbkit compare --stragglers 5%,100\n  sbkit compare --rows 500 --row-bytes 1000 --sweep stragglers=0,5%,20%',
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
    try {
      const out = await withProgress(io, { json: v.json, title: 'compare' }, async (update) => {
        if (v.sweep.length === 0) {
          const c = await runComparison(scenario, setup, variants, update);
          return v.json ? comparisonJson(c) : renderComparison(c);
        }
        const results = await runSweeps(scenario, setup, variants, v.sweep, update);
        return v.json ? sweepsJson(results, scenario, setup, variants) : results.map(renderSweep).join('\n');
      });
      io.out(out);
      return EXIT.ok;
    } catch (e) {
      return reportRunError(io, USAGE, e);
    }
  }),
};

