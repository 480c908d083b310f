/**
 * Reach: which lines and branches of impl/ `sbkit check` alone reaches — no unit tests.
 *
 *   npm run coverage:check                  both checks under c8; summary + every file below 100%
 *   npm run coverage:check -- --gate        … and exit 1 below lines 95% / branches 90% (c8 --check-coverage)
 *   npm run coverage:check -- --list        … and print every unreached line range and sub-line branch
 *   npm run coverage:check -- --doc         … and exit 1 when docs/quality/unreached.md and the measurement disagree
 *   npm run coverage:check -- --no-run …    reuse the last run's data (.sbkit/reach/) instead of running
 *
 * What runs: the product's check at its default budget, twice — `sbkit check` and `sbkit check --faults`
 * (the fault world is part of the product) — and then its gallery, `sbkit check --bug NAME` for every bug
 * (each must exit 1: found), the only runs that reach the code behind a bug switch; each with
 * `--jobs 1 --seed 1`. Every run also tries its config with one field corrupted
 * (conformance/bad-input.ts), which reaches resolveRunConfig's typed errors. One job: `--jobs N` splits
 * the budget over seeds derived per job (conformance/parallel.ts), so the runs, and the reach, would
 * depend on the machine's cores; worker threads themselves are covered (NODE_V8_COVERAGE reaches them:
 * `--jobs 2` gave the same lines, measured). A fixed seed: the default seed comes from the clock, and a
 * gate must not move with it. c8 merges the runs (`--clean=false` after the first).
 *
 * What counts (the denominator): every impl/ source file, loaded or not (`--all`, so a file the check
 * never imports counts as unreached instead of vanishing), except
 * - tests and their helpers (`impl/test/`, `impl/test-support/`, `*.test.ts`): they are not the product;
 * - the real backends — `persist/pg-consensus.ts`, `persist/pg-errors.ts`, `persist/file-blob.ts`,
 *   `persist/backends.ts` (opens them by spec) and `persist/latency.ts` (only PgConsensus records
 *   latencies). The check runs on the in-memory stores by design: every interleaving-deciding await must
 *   be a scheduling point, and real I/O waits on sockets and timers (impl/CONTEXT.md), so no generator
 *   can ever reach these files. They are covered by their own tests (vitest's gate, PostgreSQL in CI);
 *   counting them here would only lower the figure by a constant no change to the check can move.
 *   docs/quality/unreached.md lists them too.
 *
 * Exit codes: 0 measured (and within the gate / matching the document when asked), 1 below the gate or
 * a drift from the document, 2 a bad flag, 3 a check itself failed (then nothing is measured).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUG_NAMES } from '../vocab/index.ts';
import { DOC_PATH, ROOT } from './reach-paths.ts';
import { docRefs, drift, type FileCoverage, refText, unreached } from './reach-data.ts';

const root = ROOT;
const dataDir = join(root, '.sbkit', 'reach');
const c8 = join(root, 'node_modules', 'c8', 'bin', 'c8.js');
const docPath = DOC_PATH;

export const GATE = { lines: 95, branches: 90 } as const;

/** Not the product, or never reachable by the in-memory check (see the header). */
export const EXCLUDED = [
  'impl/test/**',
  'impl/test-support/**',
  '**/*.test.ts',
  'impl/persist/pg-consensus.ts',
  'impl/persist/pg-errors.ts',
  'impl/persist/file-blob.ts',
  'impl/persist/backends.ts',
  'impl/persist/latency.ts',
  // production mode and the crash test only: they put a real run's trace in the shard's order and run
  // one replica in a child process, both with real stores (explore/production.ts, explore/crash/)
  'impl/linearize.ts',
  'impl/replica-process.ts',
] as const;

/** The two invocations: the product's check at its default budget, with and without the fault world. */
export const CHECKS: readonly (readonly string[])[] = [
  ['check', '--jobs', '1', '--seed', '1'],
  ['check', '--jobs', '1', '--seed', '1', '--faults'],
];

/**
 * The gallery: `sbkit check --bug NAME` for every bug impl/bugs.ts can switch on — how the check shows
 * its power, and the only runs that reach the code behind a bug switch. Each must fail (exit 1: found,
 * shrunk, replayed); one that passes is a check that lost its power, and nothing is measured.
 */
export const GALLERY: readonly string[] = BUG_NAMES;

const FLAGS = ['--gate', '--list', '--doc', '--no-run'] as const;
const args = process.argv.slice(2);
for (const a of args) {
  if (!(FLAGS as readonly string[]).includes(a)) {
    console.error(`coverage:check: unknown flag ${a} (flags: ${FLAGS.join(', ')})`);
    process.exit(2);
  }
}
const has = (f: (typeof FLAGS)[number]): boolean => args.includes(f);

const common = [
  '--temp-directory', join(dataDir, 'tmp'),
  '--report-dir', join(dataDir, 'report'),
  '--all', '--src', 'impl',
  '--include', 'impl/**/*.ts',
  ...EXCLUDED.flatMap((e) => ['--exclude', e]),
];

function c8Run(argv: readonly string[], quiet = false): number {
  const r = spawnSync(process.execPath, [c8, ...argv], { cwd: root, stdio: quiet ? ['ignore', 'ignore', 'inherit'] : 'inherit' });
  return r.status ?? 1;
}

if (!has('--no-run')) {
  const started = Date.now();
  for (const [i, check] of CHECKS.entries()) {
    console.log(`coverage:check: sbkit ${check.join(' ')} (under c8)`);
    const status = c8Run([...common, '--reporter', 'none', `--clean=${i === 0}`, process.execPath, 'bin/sbkit.js', ...check]);
    if (status !== 0) {
      console.error(`coverage:check: \`sbkit ${check.join(' ')}\` exited ${status}: the check failed, so its reach is not measured`);
      process.exit(3);
    }
  }
  for (const bug of GALLERY) {
    const check = ['check', '--jobs', '1', '--seed', '1', '--bug', bug];
    const status = c8Run([...common, '--reporter', 'none', '--clean=false', process.execPath, 'bin/sbkit.js', ...check], true);
    if (status !== 1) {
      console.error(`coverage:check: \`sbkit ${check.join(' ')}\` exited ${status}, not 1: the check no longer finds ${bug}, so its reach is not measured`);
      process.exit(3);
    }
  }
  console.log(`coverage:check: both checks and the gallery (${GALLERY.length} bugs, each found) ran in ${((Date.now() - started) / 1000).toFixed(0)} s`);
} else if (!existsSync(join(dataDir, 'tmp'))) {
  console.error('coverage:check: --no-run, but no data in .sbkit/reach/: run without it first');
  process.exit(2);
}

// The per-file table lists only files below 100% (--skip-full); the JSON feeds --list and --doc.
console.log('impl/ reached by `sbkit check` alone (excluded: tests, test-support, the real backends; see scripts/reach.ts):');
if (c8Run(['report', ...common, '--reporter', 'text', '--reporter', 'text-summary', '--reporter', 'json', '--skip-full']) !== 0) process.exit(1);

let exit = 0;
if (has('--list') || has('--doc')) {
  const coverage = JSON.parse(readFileSync(join(dataDir, 'report', 'coverage-final.json'), 'utf8')) as Record<string, FileCoverage>;
  const items = unreached(coverage, root);
  if (has('--list')) {
    console.log(`\nunreached (${items.length}: line ranges, and branches on lines that ran):`);
    const sources = new Map<string, string[]>();
    const source = (file: string): string[] => {
      let s = sources.get(file);
      if (s === undefined) sources.set(file, (s = readFileSync(join(root, file), 'utf8').split('\n')));
      return s;
    };
    let last = '';
    for (const u of items) {
      if (u.file !== last) console.log(`${u.file}`);
      last = u.file;
      const text = (source(u.file)[u.from - 1] ?? '').trim().slice(0, 90);
      const where = u.kind === 'lines' ? `lines ${u.from}${u.to === u.from ? '' : `-${u.to}`}` : `branch ${u.at ?? ''}`;
      console.log(`  ${refText(u).padEnd(36)} ${where.padEnd(22)} ${text}`);
    }
  }
  if (has('--doc')) {
    const d = drift(items, docRefs(readFileSync(docPath, 'utf8')));
    for (const u of d.unlisted) console.log(`unreached.md: not listed: ${refText(u)}${u.at === undefined ? '' : ` (branch ${u.at})`}`);
    for (const r of d.stale) console.log(`unreached.md line ${r.docLine}: \`${refText(r)}\` is reached now (or moved): update or drop it`);
    if (d.unlisted.length + d.stale.length > 0) {
      console.error(`coverage:check: docs/quality/unreached.md disagrees with the measurement (${d.unlisted.length} unlisted, ${d.stale.length} stale); \`npm run coverage:check -- --no-run --list\` prints what is unreached`);
      exit = 1;
    } else console.log(`unreached.md: every unreached item is listed and every listed one is unreached (${items.length})`);
  }
}

if (has('--gate')) {
  console.log(`coverage:check: gate lines ≥ ${GATE.lines}%, branches ≥ ${GATE.branches}%`);
  if (c8Run(['check-coverage', ...common, '--lines', String(GATE.lines), '--branches', String(GATE.branches)]) !== 0) exit = 1;
}
process.exit(exit);
