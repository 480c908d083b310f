/**
 * The model check's part of `npm run bench`: states/s and bytes per stored state, side by side for the
 * plain search (model/search.ts, the reference) and the packed one (model/packed/), and the larger
 * configurations with their figures. Figures only; nothing is asserted. Every run is a child process
 * (`node bin/sbkit.js model --check … --json`), so its peak RSS is its own. The machine's 2 cores are
 * shared with other engineers: repeat a figure before trusting it.
 *
 * Environment: SBKIT_BENCH_SECONDS (default 60) bounds each target search (--max-seconds);
 * SBKIT_BENCH_TARGETS=0 skips the targets; SBKIT_BENCH_PLAIN_W4=1 also runs the plain search on
 * --workers 4 (~1 minute, ~1 GB); SBKIT_BENCH_JOBS (default: the cores) and SBKIT_BENCH_JOBS_WORKERS
 * (default 7) shape the last section, one search over threads beside one thread.
 */
import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fixed, thousands } from './format.ts';
import { col, renderTable } from './table.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SECONDS = Number(process.env['SBKIT_BENCH_SECONDS'] ?? 60);

interface VariantJson {
  readonly variant: string;
  readonly states: number;
  readonly finals: number;
  readonly complete: boolean;
  readonly ms: number;
  readonly properties: readonly { readonly name: string; readonly verdict: string; readonly events?: number; readonly shortest?: boolean }[];
  readonly figures: { readonly storeBytes: number; readonly peakRssBytes: number; readonly stopped: string | null; readonly transitions: number; readonly refineStates: number };
}

function check(flags: readonly string[]): VariantJson[] {
  const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'sbkit.js'), 'model', '--check', ...flags, '--json'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.stdout.trim() === '') throw new Error(`sbkit model --check ${flags.join(' ')}: no output (${r.stderr.trim()})`);
  return (JSON.parse(r.stdout) as { variants: VariantJson[] }).variants;
}

const mib = (b: number): string => fixed(b / 1024 / 1024, 0);
const rate = (v: VariantJson): string => (v.ms === 0 ? '—' : thousands(Math.round((v.states * 1000) / v.ms)));
const perState = (v: VariantJson): string => (v.figures.storeBytes === 0 ? '—' : fixed(v.figures.storeBytes / v.states, 1));

function sideBySide(): void {
  const rows: string[][] = [];
  const add = (label: string, flags: readonly string[]) => {
    for (const v of check(flags)) {
      rows.push([label, v.variant, thousands(v.states), fixed(v.ms / 1000, 2), rate(v), perState(v), mib(v.figures.peakRssBytes), fixed(v.figures.peakRssBytes / v.states, 0)]);
    }
  };
  for (const w of ['3', '4']) {
    if (w === '3' || process.env['SBKIT_BENCH_PLAIN_W4'] === '1') add(`plain, --workers ${w}`, ['--search', 'plain', '--workers', w, '--variant', 'best-effort', '--max-states', '2000000']);
    add(`packed, no reductions, --workers ${w}`, ['--workers', w, '--variant', 'best-effort', '--symmetry', 'off', '--por', 'off']);
    add(`packed, symmetry + POR, --workers ${w}`, ['--workers', w, '--variant', 'best-effort']);
  }
  console.log('model check, best-effort, 1 process, 1 interval: plain search (the reference) beside the packed one');
  console.log('(SBKIT_BENCH_PLAIN_W4=1 adds the plain search at --workers 4)\n');
  console.log(
    renderTable(
      [col('search', 'left'), col('variant', 'left'), col('states'), col('seconds'), col('states/s'), col('B/state stored'), col('peak RSS MiB'), col('RSS B/state')],
      rows,
    ),
  );
  console.log('\nB/state stored: the packed state store (tuples, index, parents, edges) over states; RSS B/state includes node, the memo tables and interned components.');
}

function targets(): void {
  const rows: string[][] = [];
  const run = (label: string, flags: readonly string[]) => {
    for (const v of check([...flags, '--max-seconds', String(SECONDS)])) {
      const violated = v.properties.filter((p) => p.verdict === 'violated');
      rows.push([
        label,
        v.variant,
        thousands(v.states),
        thousands(v.finals),
        v.complete ? 'yes' : `NO (${v.figures.stopped})`,
        fixed(v.ms / 1000, 1),
        rate(v),
        perState(v),
        mib(v.figures.peakRssBytes),
        violated.length === 0 ? '—' : violated.map((p) => `${p.name} ${p.events}${p.shortest === false ? '*' : ''}`).join(', '),
      ]);
    }
  };
  run('--workers 8', ['--workers', '8']);
  run('--workers 8, review bug', ['--workers', '8', '--variant', 'best-effort', '--model-bug', 'sweep-upgrade-race']);
  run('--workers 4 --processes 2', ['--workers', '4', '--processes', '2']);
  run('--workers 4 --processes 2, review bug', ['--workers', '4', '--processes', '2', '--variant', 'best-effort', '--model-bug', 'sweep-upgrade-race']);
  run('--workers 3 --intervals 2', ['--workers', '3', '--intervals', '2']);
  run('--workers 3 --intervals 2, review bug', ['--workers', '3', '--intervals', '2', '--variant', 'best-effort', '--model-bug', 'sweep-upgrade-race']);
  console.log(`\nlarger configurations (packed search, symmetry + partial order; --max-seconds ${SECONDS}, --max-memory 4GiB)\n`);
  console.log(
    renderTable(
      [col('target', 'left'), col('variant', 'left'), col('states'), col('final'), col('complete', 'left'), col('seconds'), col('states/s'), col('B/state'), col('peak RSS MiB'), col('violations (events; * = shortest under POR only)', 'left')],
      rows,
    ),
  );
}

/**
 * One search spread over threads (--jobs, model/packed/parallel.ts) beside the same search on one: the
 * same states by construction (the tests hold them equal), so the figure is the time. SBKIT_BENCH_JOBS
 * (default: the machine's cores) sets the threads; SBKIT_BENCH_JOBS_WORKERS (default 7) the workers.
 */
function threads(): void {
  const jobs = Number(process.env['SBKIT_BENCH_JOBS'] ?? availableParallelism());
  if (!Number.isInteger(jobs) || jobs < 1) throw new RangeError(`SBKIT_BENCH_JOBS must be a positive integer, got ${process.env['SBKIT_BENCH_JOBS']}`);
  const workers = process.env['SBKIT_BENCH_JOBS_WORKERS'] ?? '7';
  if (jobs < 2) {
    console.log('\none search over threads: skipped (one core; SBKIT_BENCH_JOBS=N to force)');
    return;
  }
  const rows: string[][] = [];
  let base: number | undefined;
  for (const j of [1, jobs]) {
    for (const v of check(['--workers', workers, '--variant', 'best-effort', '--jobs', String(j), '--max-seconds', String(SECONDS * 2)])) {
      base ??= v.ms;
      rows.push([String(j), v.variant, thousands(v.states), v.complete ? 'yes' : `NO (${v.figures.stopped})`, fixed(v.ms / 1000, 1), rate(v), mib(v.figures.peakRssBytes), `${fixed(base / v.ms, 2)}×`]);
    }
  }
  console.log(`\none search over threads (--workers ${workers} --variant best-effort --jobs N; ${availableParallelism()} cores here)
`);
  console.log(
    renderTable([col('threads'), col('variant', 'left'), col('states'), col('complete', 'left'), col('seconds'), col('states/s'), col('peak RSS MiB'), col('speed-up')], rows),
  );
}

sideBySide();
if (process.env['SBKIT_BENCH_TARGETS'] !== '0') targets();
threads();
