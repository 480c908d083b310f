/**
 * `sbkit bugs`: the gallery of realistic bugs the implementation can switch on. `--check` proves the
 * conformance check catches each one (a canary: the check must fail); `--effect` shows what each does
 * to the data under the realistic timing of `compare`, where a race may well go unnoticed.
 */
import { BUG_NAMES, type BugName } from '../../vocab/index.ts';
import { VARIANTS } from '../variants/index.ts';
import { BUG_DESCRIPTIONS } from '../../impl/bugs.ts';
import { intFlag, optional, switchFlag } from '../args.ts';
import { type Command, EXIT, withArgs } from '../command.ts';
import { type RunMemo, newRunMemo, runComparison } from '../compare.ts';
import type { Io } from '../io.ts';
import { type Progress, createProgress } from '../progress.ts';
import { DEFAULT_SEED, DEFAULT_THRESHOLD } from '../setup-flags.ts';
import { col, renderTable } from '../table.ts';
import { DeadlockError } from '../timing.ts';
import { runConformance } from './check.ts';

const USAGE = 'sbkit bugs';

export const BUGS_FLAGS = {
  check: switchFlag('run the conformance check with each bug switched on; exit 1 unless every bug is caught'),
  effect: switchFlag('run compare (small workload) with each bug and show lost / duplicated / leaked per variant'),
  runs: optional(intFlag({ help: 'check runs per variant and bug (with --check)', defaultValue: 300, min: 1, max: 1_000_000 }), 'conformance DEFAULT_RUNS'),
  seed: intFlag({ help: 'seed for --check and --effect', defaultValue: DEFAULT_SEED, min: 0, max: 0x7fff_ffff }),
  'no-shrink': switchFlag('with --check: stop at each bug\'s first failing run, unshrunk (only the verdict matters)'),
} as const;

const HELP = {
  usage: USAGE,
  summary: 'Lists the bug gallery: realistic mistakes the implementation can switch on (impl/bugs.ts).',
  notes: ['Examples:\n  sbkit bugs\n  sbkit bugs --check\n  sbkit bugs --effect'],
};

/** The small workload `--effect` uses: 8 workers, 12 intervals of 200 updates. */
const EFFECT_SETUP = { replicas: 1, processes: 1, workers: 8, intervals: 12, rows: 200, rowBytes: 100, threshold: DEFAULT_THRESHOLD } as const;

function renderGallery(): string {
  const width = Math.max(...BUG_NAMES.map((b) => b.length));
  return `${BUG_NAMES.map((b) => `${b.padEnd(width)}  ${BUG_DESCRIPTIONS[b]}`).join('\n')}\n`;
}

async function checkEach(runs: number | undefined, seed: number, shrink: boolean, progress: Progress): Promise<{ text: string; allCaught: boolean }> {
  const rows: string[][] = [];
  let allCaught = true;
  for (const [i, bug] of BUG_NAMES.entries()) {
    const r = await runConformance({ variant: 'all', runs, seed, bug, shrink }, {
      update: (f, label) => progress.update((i + f) / BUG_NAMES.length, `${bug} ${label}`),
      done: () => undefined,
    });
    const caught = r.exitCode === 1;
    allCaught &&= caught;
    const failedOn = r.variants.find((v) => v.failed);
    rows.push([bug, caught ? 'caught' : 'MISSED', failedOn === undefined ? '—' : `${failedOn.variant} after ${failedOn.runs} run(s)`]);
  }
  progress.done();
  const columns = [col('bug', 'left'), col('check', 'left'), col('first failing run', 'left')];
  return { text: `${renderTable(columns, rows)}\n`, allCaught };
}

async function effectOf(bug: BugName, seed: number, memo: RunMemo, onProgress: (f: number) => void): Promise<string[]> {
  const cells: string[] = [];
  for (const [i, variant] of VARIANTS.entries()) {
    try {
      const c = await runComparison('steady', { ...EFFECT_SETUP, seed, bug }, [variant], (f) => onProgress((i + f) / VARIANTS.length), memo);
      const r = c.rows[0];
      cells.push(r === undefined ? '—' : r.lost + r.duplicated + r.leakedBlobs === 0 ? 'no effect' : `lost ${r.lost}, dup ${r.duplicated}, leaked ${r.leakedBlobs}`);
    } catch (e) {
      cells.push(e instanceof DeadlockError ? 'deadlock' : `threw ${e instanceof Error ? e.name : 'error'}`);
    }
  }
  return cells;
}

async function effectEach(seed: number, progress: Progress): Promise<string> {
  const rows: string[][] = [];
  const memo = newRunMemo(); // every bug runs on the same workload: generate it once
  for (const [i, bug] of BUG_NAMES.entries()) {
    rows.push([bug, ...(await effectOf(bug, seed, memo, (f) => progress.update((i + f) / BUG_NAMES.length, bug)))]);
  }
  progress.done();
  const columns = [col('bug', 'left'), ...VARIANTS.map((v) => col(v, 'left'))];
  const s = EFFECT_SETUP;
  return `effect under compare's timing model (${s.workers} workers, ${s.intervals} intervals × ${s.rows} updates, seed ${seed}):\n\n${renderTable(columns, rows)}\n`;
}

export const bugsCommand: Command = {
  name: 'bugs',
  summary: 'list the bug gallery; --check proves the check catches each, --effect shows what each does',
  run: (argv, io: Io) =>
    withArgs(HELP, BUGS_FLAGS, argv, io, async (v) => {
      io.out(renderGallery());
      let code: number = EXIT.ok;
      if (v.effect) io.out(`\n${await effectEach(v.seed, createProgress(io, { json: false, title: 'bugs --effect' }))}`);
      if (v.check) {
        const r = await checkEach(v.runs, v.seed, !v['no-shrink'], createProgress(io, { json: false, title: 'bugs --check' }));
        io.out(`\n${r.text}${r.allCaught ? 'every bug was caught by the check\n' : 'some bug went uncaught\n'}`);
        if (!r.allCaught) code = EXIT.failed;
      }
      return code;
    }),
};
