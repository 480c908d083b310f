/**
 * `sbkit bugs`: the gallery of realistic bugs the implementation can switch on. `--check` proves the
 * conformance check catches each one (a canary: the check must fail); `--effect` shows what each does
 * to the data under the realistic timing of `compare`, where a race may well go unnoticed.
 */
import { BUG_NAMES, type BugName } from '../../vocab/index.ts';
import { VARIANTS } from '../variants/index.ts';
import { BUG_DESCRIPTIONS } from '../../impl/bugs.ts';
import { intFlag, optional, switchFlag } from '../args.ts';
import { DEFAULT_CHECK_RUNS } from '../budgets.ts';
import { bugNeedsFaults, bugVariants } from '../bug-facts.ts';
import { type Command, type Reason, exitCodeOf, exitWith, violation, withArgs } from '../command.ts';
import { type RunMemo, newRunMemo, runComparison } from '../compare.ts';
import type { Io } from '../io.ts';
import { type Progress, createProgress } from '../progress.ts';
import { DEFAULT_SEED, DEFAULT_THRESHOLD } from '../setup-flags.ts';
import { col, renderTable } from '../table.ts';
import { DeadlockError } from '../timing.ts';
import { type CheckFailure, runConformance } from './check.ts';

const USAGE = 'sbkit bugs';

export const BUGS_FLAGS = {
  check: switchFlag('run the conformance check with each bug switched on; exit 1 unless every bug is caught'),
  effect: switchFlag('run compare (small workload) with each bug and show lost / duplicated / leaked per variant'),
  runs: optional(intFlag({ help: 'check runs per variant and bug (with --check)', defaultValue: DEFAULT_CHECK_RUNS, min: 1, max: 1_000_000 }), String(DEFAULT_CHECK_RUNS)),
  seed: intFlag({ help: 'seed for --check and --effect', defaultValue: DEFAULT_SEED, min: 0, max: 0x7fff_ffff }),
  'no-shrink': switchFlag('with --check: stop at each bug\'s first failing run, unshrunk (only the verdict matters)'),
  json: switchFlag('print one JSON object instead of text (docs/reference/bugs.schema.json): per bug its variants, fault world, description, and with --check its verdict and counterexample, with --effect its effect'),
} as const;

export const BUGS_HELP = {
  usage: USAGE,
  summary:
    'Lists the bug gallery: realistic mistakes the implementation can switch on (impl/bugs.ts), each with the\n' +
    'variants where it can show (sbkit check --bug NAME checks only those), whether only the fault world shows\n' +
    'it (sbkit check --bug NAME then turns --faults on), and what it does. Exit 0; with --check, 1 if the\n' +
    'check missed a bug.',
  notes: ['Examples:\n  sbkit bugs\n  sbkit bugs --check\n  sbkit bugs --check --runs 100 --no-shrink --json\n  sbkit bugs --effect'],
};

/** The small workload `--effect` uses: 8 workers, 12 intervals of 200 updates. */
const EFFECT_SETUP = { replicas: 1, processes: 1, workers: 8, intervals: 12, rows: 200, rowBytes: 100, threshold: DEFAULT_THRESHOLD } as const;

/** `text` in lines of at most `width` characters, each after `indent`. */
function wrap(text: string, width: number, indent: string): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line !== '' && indent.length + line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') lines.push(line);
  return lines.map((l) => `${indent}${l}`).join('\n');
}

const world = (bug: BugName): string => (bugNeedsFaults(bug) ? 'fault world (--faults)' : 'without faults');

/** Per bug: its name, the variants where it shows, whether it needs the fault world; then what it does. */
function renderGallery(): string {
  const width = Math.max(...BUG_NAMES.map((b) => b.length));
  const vWidth = Math.max(...BUG_NAMES.map((b) => bugVariants(b).join(', ').length));
  const head = `${'bug'.padEnd(width)}  ${'shows on'.padEnd(vWidth)}  needs`;
  const entries = BUG_NAMES.map((b) => `${b.padEnd(width)}  ${bugVariants(b).join(', ').padEnd(vWidth)}  ${world(b)}\n${wrap(BUG_DESCRIPTIONS[b], 100, '    ')}`);
  return `${head}\n${entries.join('\n')}\n`;
}

interface BugCheck {
  readonly caught: boolean;
  /** The variant and run (1-based) where the check failed. */
  readonly variant: string | null;
  readonly runs: number | null;
  readonly summary: string;
  readonly failure: CheckFailure | null;
}

async function checkEach(runs: number | undefined, seed: number, shrink: boolean, progress: Progress): Promise<{ text: string; checks: Map<BugName, BugCheck>; reasons: Reason[] }> {
  const rows: string[][] = [];
  const checks = new Map<BugName, BugCheck>();
  const reasons: Reason[] = [];
  for (const [i, bug] of BUG_NAMES.entries()) {
    const r = await runConformance({ variant: 'all', runs, seed, bug, shrink }, {
      update: (f, label) => progress.update((i + f) / BUG_NAMES.length, `${bug} ${label}`),
      done: () => undefined,
    });
    const failedOn = r.variants.find((v) => v.failed);
    const caught = failedOn !== undefined;
    checks.set(bug, { caught, variant: failedOn?.variant ?? null, runs: failedOn?.runs ?? null, summary: r.summary, failure: r.failure ?? null });
    if (!caught) {
      reasons.push(violation(`--check: ${bug} went uncaught: ${r.summary.replace(/^sbkit check: /, '')} (the check held with the bug on: another --seed, or more --runs than ${runs ?? DEFAULT_CHECK_RUNS})`));
    }
    rows.push([bug, caught ? 'caught' : 'MISSED', failedOn === undefined ? '—' : `${failedOn.variant} after ${failedOn.runs} run(s)`]);
  }
  progress.done();
  const columns = [col('bug', 'left'), col('check', 'left'), col('first failing run', 'left')];
  return { text: `${renderTable(columns, rows)}\n`, checks, reasons };
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

async function effectEach(seed: number, progress: Progress): Promise<{ text: string; effects: Map<BugName, Record<string, string>> }> {
  const rows: string[][] = [];
  const effects = new Map<BugName, Record<string, string>>();
  const memo = newRunMemo(); // every bug runs on the same workload: generate it once
  for (const [i, bug] of BUG_NAMES.entries()) {
    const cells = await effectOf(bug, seed, memo, (f) => progress.update((i + f) / BUG_NAMES.length, bug));
    effects.set(bug, Object.fromEntries(VARIANTS.map((v, j) => [v, cells[j] ?? '—'])));
    rows.push([bug, ...cells]);
  }
  progress.done();
  const columns = [col('bug', 'left'), ...VARIANTS.map((v) => col(v, 'left'))];
  const s = EFFECT_SETUP;
  return { text: `effect under compare's timing model (${s.workers} workers, ${s.intervals} intervals × ${s.rows} updates, seed ${seed}):\n\n${renderTable(columns, rows)}\n`, effects };
}

export const bugsCommand: Command = {
  name: 'bugs',
  help: BUGS_HELP,
  flags: BUGS_FLAGS,
  summary: 'list the bug gallery; --check proves the check catches each, --effect shows what each does',
  run: (argv, io: Io) =>
    withArgs(BUGS_HELP, BUGS_FLAGS, argv, io, async (v) => {
      if (!v.json) io.out(renderGallery());
      const effect = v.effect ? await effectEach(v.seed, createProgress(io, { json: v.json, title: 'bugs --effect' })) : undefined;
      if (effect !== undefined && !v.json) io.out(`\n${effect.text}`);
      const checked = v.check ? await checkEach(v.runs, v.seed, !v['no-shrink'], createProgress(io, { json: v.json, title: 'bugs --check' })) : undefined;
      if (checked !== undefined && !v.json) io.out(`\n${checked.text}${checked.reasons.length === 0 ? 'every bug was caught by the check\n' : 'some bug went uncaught\n'}`);
      const reasons = checked?.reasons ?? [];
      if (v.json) {
        const bugs = BUG_NAMES.map((b) => ({
          name: b,
          variants: bugVariants(b),
          faultWorld: bugNeedsFaults(b),
          description: BUG_DESCRIPTIONS[b],
          ...(checked === undefined ? {} : { check: checked.checks.get(b) }),
          ...(effect === undefined ? {} : { effect: effect.effects.get(b) }),
        }));
        io.out(`${JSON.stringify({ exitCode: exitCodeOf(reasons), reasons: reasons.map((r) => r.text), seed: v.seed, ...(v.check ? { runs: v.runs ?? DEFAULT_CHECK_RUNS } : {}), bugs }, null, 2)}\n`);
      }
      return exitWith(io, USAGE, reasons);
    }),
};
