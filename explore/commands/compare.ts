/** `sbkit compare`: the variants side by side on one workload, or a sweep over a parameter. */
import { SbkitError } from '../../impl/errors.ts';
import { choiceListFlag, optional, switchFlag } from '../args.ts';
import { blobFlag, consensusFlag, isReal, openBackends } from '../backend-flags.ts';
import { type Command, EXIT, usageError, withArgs } from '../command.ts';
import { runComparison, runSweeps } from '../compare.ts';
import { comparisonJson, renderComparison, renderSweep, sweepsJson } from '../render.ts';
import { renderColumnDocs } from '../columns.ts';
import { COLUMN_NAMES, type ColumnChoice, DEFAULT_CHOICE, TABLE_WIDTH, renderColumnNames } from '../compare-columns.ts';
import { withProgress } from '../progress.ts';
import { SETUP_FLAGS, SWEEP_FLAG, resolveSetup } from '../setup-flags.ts';
import { runProductionComparison } from '../production.ts';
import { reportRunError } from './errors.ts';

const USAGE = 'sbkit compare';

export const COMPARE_FLAGS = {
  ...SETUP_FLAGS,
  sweep: SWEEP_FLAG,
  json: switchFlag('print one JSON object instead of a table (no progress bar)'),
  wide: switchFlag(`every column of the table (by default the most asked-for columns that fit ${TABLE_WIDTH} characters)`),
  columns: optional(choiceListFlag({ help: 'the table\'s columns by name, in this order, the variant first (the names: --help)', choices: COLUMN_NAMES, defaultValue: [] }), `those that fit ${TABLE_WIDTH} characters`),
  consensus: consensusFlag('where shard state lives: mem (in memory, virtual time), or a postgres:// URL (production mode: real concurrency; ?table=NAME)'),
  blob: blobFlag('where blobs live: mem, or file:DIR (production mode; each run writes a sub-directory of DIR)'),
} as const;

const HELP = {
  usage: USAGE,
  summary:
    'Runs the implementation for each variant over a seeded workload on the in-memory backend and prints\n' +
    'what it cost. Workers become ready at seeded, different moments (virtual time), so best-effort\n' +
    'overlap is realistic. The same seed gives byte-identical output. With --consensus/--blob it runs on\n' +
    'real storage instead (production mode, below).',
  notes: [
    'Production mode (--consensus and/or --blob not mem): each case runs on the real stores under the\n' +
      'pass-through scheduler (real concurrency, no virtual time) on a fresh shard; its trace is put in the\n' +
      'shard\'s order, replayed on the model and judged by the spec\'s properties, and the audit reads the\n' +
      'stores back. The latency columns become c&a p50/p99: compare-and-append in wall-clock ms, the only\n' +
      'wall time compare reports. Not with --faults, --stragglers or --sweep (virtual-time features).',
    'Examples:\n  sbkit compare\n  sbkit compare --wide\n  sbkit compare --columns parts,puts,p99,model\n  sbkit compare --consensus postgres://sbkit:sbkit@127.0.0.1:54329/sbkit --blob file:scratch/prod\n  sbkit compare --sweep threshold=0,4096,65536,1MiB\n  sbkit compare --sweep workers=1,2,4,8,16 --json\n  sbkit compare --scenario hydration\n  sbkit compare --scenario small-writes\n  sbkit compare --stragglers 5%,100\n  sbkit compare --rows 500 --row-bytes 1000 --sweep stragglers=0,5%,20%',
    `Columns:\n${renderColumnDocs()}`,
    `The table by default: the most asked-for columns that fit ${TABLE_WIDTH} characters — variant, appends,\n` +
      'parts/append, blob PUTs and state-diff bytes (each with % off), latency p50/p99, audit (lost, dup and\n' +
      'leaked in one cell: ok when all are 0), model, and the columns of the scenario or flag (shard parts,\n' +
      'max builder share and mint→append, the fault columns, the no-data columns); when they do not fit, the\n' +
      'least asked-for go first and a line under the table names them. --wide shows every column, --columns\n' +
      `NAME,… the named ones. The numbers are the same in every layout. Names for --columns:\n${renderColumnNames()}`,
  ],
};

export const compareCommand: Command = {
  name: 'compare',
  help: HELP,
  flags: COMPARE_FLAGS,
  summary: 'compare the variants on a workload (table or --json), or sweep a parameter',
  run: (argv, io) => withArgs(HELP, COMPARE_FLAGS, argv, io, async (v) => {
    const resolved = resolveSetup(v, v.sweep);
    if (!resolved.ok) return usageError(io, USAGE, resolved.reason);
    const { scenario, setup, variants } = resolved.value;
    const layout = v.columns !== undefined ? '--columns' : v.wide ? '--wide' : undefined;
    if (v.columns !== undefined && v.wide) return usageError(io, USAGE, '--columns and --wide both choose the columns: give one');
    if (layout !== undefined && v.json) return usageError(io, USAGE, `${layout}: chooses the table's columns; --json prints every figure`);
    const choice: ColumnChoice = v.columns !== undefined ? { kind: 'named', names: v.columns } : v.wide ? { kind: 'wide' } : DEFAULT_CHOICE;
    if (isReal(v.consensus) || isReal(v.blob)) {
      const clash = v.faults !== undefined ? '--faults' : v.stragglers !== undefined ? '--stragglers' : v.sweep.length > 0 ? '--sweep' : undefined;
      if (clash !== undefined) {
        return usageError(io, USAGE, `${clash}: a virtual-time feature, not available with real backends (--consensus/--blob)${clash === '--faults' ? '; `sbkit crash-test` is the fault world on real storage' : ''}`);
      }
      try {
        // Fails early, naming the flag, when a store cannot be opened (unreachable, missing directory …).
        await (await openBackends(v.consensus, v.blob, 'sbkit-compare-check')).close();
      } catch (e) {
        if (e instanceof SbkitError) return usageError(io, USAGE, e.message);
        throw e;
      }
      try {
        const c = await withProgress(io, { json: v.json, title: 'compare' }, (update) =>
          runProductionComparison(scenario, setup, variants, { consensus: v.consensus, blob: v.blob }, update),
        );
        io.out(v.json ? comparisonJson(c) : renderComparison(c, choice));
        return EXIT.ok;
      } catch (e) {
        return reportRunError(io, USAGE, e);
      }
    }
    try {
      const out = await withProgress(io, { json: v.json, title: 'compare' }, async (update) => {
        if (v.sweep.length === 0) {
          const c = await runComparison(scenario, setup, variants, update);
          return v.json ? comparisonJson(c) : renderComparison(c, choice);
        }
        const results = await runSweeps(scenario, setup, variants, v.sweep, update);
        return v.json ? sweepsJson(results, scenario, setup, variants) : results.map((r) => renderSweep(r, choice)).join('\n');
      });
      io.out(out);
      return EXIT.ok;
    } catch (e) {
      return reportRunError(io, USAGE, e);
    }
  }),
};

