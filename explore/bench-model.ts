/**
 * The model check's part of `npm run bench`: the reductions side by side, the fault history as the model
 * keeps it beside its summary, the larger configurations (time to a verdict on one core), the swarm on shapes the exhaustive search does not finish, and one search over
 * threads beside one thread. Figures only; nothing is asserted. Every run is a child process
 * (`node bin/sbkit.js model --check … --json`), so its peak RSS is its own. The machine's 2 cores are
 * shared with other engineers: repeat a figure before trusting it.
 *
 * Environment: SBKIT_BENCH_SECONDS (default 60) bounds each target search (--max-seconds), and
 * SBKIT_BENCH_FAULT_SECONDS (default 300) the fault world's, whose target is a verdict, not a time;
 * SBKIT_BENCH_TARGETS=0 skips the targets and the swarm; SBKIT_BENCH_PLAIN_W4=1 also runs the plain
 * search on --workers 4 (~1 minute, ~1 GB); SBKIT_BENCH_JOBS (default: the cores) and
 * SBKIT_BENCH_JOBS_WORKERS (default 8) shape the last section, one search over threads beside one thread.
 */
import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fixed, thousands } from './format.ts';
import { col, renderTable } from './table.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SECONDS = Number(process.env['SBKIT_BENCH_SECONDS'] ?? 60);
/** The fault world's target is a verdict for every variant, not a time: its own, wider bound. */
const FAULT_SECONDS = Number(process.env['SBKIT_BENCH_FAULT_SECONDS'] ?? 300);

interface VariantJson {
  readonly variant: string;
  readonly states: number;
  readonly unreduced: number | null;
  readonly finals: number;
  readonly complete: boolean;
  readonly ms: number;
  readonly properties: readonly { readonly name: string; readonly verdict: string; readonly events?: number; readonly shortest?: boolean }[];
  readonly figures: { readonly storeBytes: number; readonly peakRssBytes: number; readonly stopped: string | null; readonly transitions: number; readonly refineStates: number; readonly reduction: string };
}

interface SwarmJson {
  readonly variant: string;
  readonly searches: number;
  readonly states: number;
  readonly deepest: number;
  readonly ms: number;
  readonly properties: readonly { readonly name: string; readonly verdict: string; readonly events?: number; readonly replay?: string }[];
}

/** Runs `sbkit model --check … --json`: its JSON's variants, and the child's wall seconds. */
function sbkit<T>(flags: readonly string[]): { variants: T[]; seconds: number } {
  const started = performance.now();
  const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'sbkit.js'), 'model', '--check', ...flags, '--json'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 28 });
  const seconds = (performance.now() - started) / 1000;
  if (r.stdout.trim() === '') throw new Error(`sbkit model --check ${flags.join(' ')}: no output (${r.stderr.trim()})`);
  return { variants: (JSON.parse(r.stdout) as { variants: T[] }).variants, seconds };
}
const check = (flags: readonly string[]): VariantJson[] => sbkit<VariantJson>(flags).variants;

const mib = (b: number): string => fixed(b / 1024 / 1024, 0);
const rate = (v: VariantJson): string => (v.ms === 0 ? '—' : thousands(Math.round((v.states * 1000) / v.ms)));
const perState = (v: VariantJson): string => (v.figures.storeBytes === 0 ? '—' : fixed(v.figures.storeBytes / v.states, 1));
const stands = (v: VariantJson): string => (v.unreduced === null ? '—' : thousands(v.unreduced));
const verdict = (v: VariantJson): string => (v.complete ? 'yes' : `NO (${v.figures.stopped})`);
const violated = (v: VariantJson): string => {
  const bad = v.properties.filter((p) => p.verdict === 'violated');
  return bad.length === 0 ? '—' : bad.map((p) => `${p.name} ${p.events}${p.shortest === false ? '*' : ''}`).join(', ');
};

function sideBySide(): void {
  const rows: string[][] = [];
  const add = (label: string, flags: readonly string[]) => {
    for (const v of check(flags)) {
      rows.push([label, v.variant, thousands(v.states), stands(v), fixed(v.ms / 1000, 2), rate(v), perState(v), mib(v.figures.peakRssBytes)]);
    }
  };
  for (const w of ['3', '4']) {
    if (w === '3' || process.env['SBKIT_BENCH_PLAIN_W4'] === '1') add(`plain, --workers ${w}`, ['--search', 'plain', '--workers', w, '--variant', 'best-effort', '--max-states', '2000000']);
    add(`packed, no reductions, --workers ${w}`, ['--workers', w, '--variant', 'best-effort', '--symmetry', 'off', '--por', 'off']);
    add(`packed, symmetry + POR, --workers ${w}`, ['--workers', w, '--variant', 'best-effort']);
  }
  for (const [label, flags] of [
    ['packed, POR only', ['--symmetry', 'off']],
    ['packed, symmetry only', ['--por', 'off']],
    ['packed, symmetry + POR', []],
  ] as const) {
    add(`${label}, --workers 6`, ['--workers', '6', '--variant', 'best-effort', ...flags, '--max-seconds', String(SECONDS)]);
  }
  console.log('model check, best-effort, 1 process, 1 interval: the plain search (the reference) beside the packed one, with and without each reduction\n');
  console.log(
    renderTable(
      [col('search', 'left'), col('variant', 'left'), col('states'), col('stand for'), col('seconds'), col('states/s'), col('B/state stored'), col('peak RSS MiB')],
      rows,
    ),
  );
  console.log(
    '\nstand for: the states the stored ones represent without the symmetry (their orbits added up; with POR, the orbits of the reduced graph).' +
      '\nB/state stored: the packed state store (tuples, index, parents, edges) over states; RSS includes node, the memo tables and interned components.',
  );
}

function targets(): void {
  const rows: string[][] = [];
  const run = (label: string, flags: readonly string[], bound = SECONDS) => {
    const { variants, seconds } = sbkit<VariantJson>([...flags, '--max-seconds', String(bound)]);
    for (const v of variants) {
      rows.push([label, v.variant, thousands(v.states), stands(v), verdict(v), fixed(variants.length === 1 ? seconds : v.ms / 1000, 1), rate(v), mib(v.figures.peakRssBytes), violated(v)]);
    }
  };
  run('--workers 8', ['--workers', '8', '--variant', 'best-effort']);
  run('--workers 8', ['--workers', '8', '--variant', 'barrier']);
  run('--workers 4 --processes 2', ['--workers', '4', '--processes', '2', '--variant', 'best-effort']);
  run('--workers 4 --processes 2', ['--workers', '4', '--processes', '2', '--variant', 'barrier']);
  run('--workers 4 --processes 2, review bug, --first-violation', ['--workers', '4', '--processes', '2', '--variant', 'best-effort', '--model-bug', 'sweep-upgrade-race', '--first-violation']);
  run('--workers 4 --processes 2, review bug', ['--workers', '4', '--processes', '2', '--variant', 'best-effort', '--model-bug', 'sweep-upgrade-race']);
  run('--workers 3 --intervals 2 --faults', ['--workers', '3', '--intervals', '2', '--faults', '--variant', 'off'], FAULT_SECONDS);
  run('--workers 3 --intervals 2 --faults', ['--workers', '3', '--intervals', '2', '--faults', '--variant', 'barrier'], FAULT_SECONDS);
  run('--workers 3 --intervals 2 --faults', ['--workers', '3', '--intervals', '2', '--faults', '--variant', 'best-effort'], FAULT_SECONDS);
  run('--workers 3 --intervals 2 --faults', ['--workers', '3', '--intervals', '2', '--faults', '--variant', 'barrier-timeout'], FAULT_SECONDS);
  run('--core --workers 7 --parts 2 (SPIN anchor)', ['--core', '--workers', '7', '--parts', '2', '--variant', 'best-effort']);
  console.log(`\nlarger configurations (packed search, symmetry + partial order, one thread; --max-seconds ${SECONDS}, the fault world ${FAULT_SECONDS}; --max-memory 4GiB unless said)\n`);
  console.log(
    renderTable(
      [col('target', 'left'), col('variant', 'left'), col('states'), col('stand for'), col('complete', 'left'), col('seconds'), col('states/s'), col('peak RSS MiB'), col('violations (events; * = shortest under POR only)', 'left')],
      rows,
    ),
  );
  console.log('\nseconds: the whole command (start-up and, for a violation, the re-search that makes it shortest); --first-violation stops at the first violated property.');
}

/**
 * The append worker moving with the other workers (the default group) beside the group that fixes every
 * present and future append worker (`appendWorkers: 'fixed'`, kept for this comparison): in this process,
 * one after the other, the same search otherwise.
 */
async function appendWorker(): Promise<void> {
  const [{ properties }, { checkConfig }, { Engine }, { SymmetryReducer }, { searchPacked }] = await Promise.all([
    import('../spec/properties.ts'),
    import('./model-check.ts'),
    import('../model/packed/engine.ts'),
    import('../model/packed/symmetry.ts'),
    import('../model/packed/search.ts'),
  ]);
  const rows: string[][] = [];
  for (const workers of [5, 6, 7]) {
    for (const appendWorkers of ['move', 'fixed'] as const) {
      const cfg = checkConfig('best-effort', { workers, processes: 1, replicas: 1, intervals: 1 });
      const engine = new Engine(cfg, properties);
      const started = performance.now();
      const r = searchPacked(cfg, { maxStates: 100_000_000, reducer: new SymmetryReducer(engine, { appendWorkers }), por: true }, engine);
      rows.push([String(workers), appendWorkers, thousands(r.states), r.unreduced === null ? '—' : thousands(r.unreduced), r.complete ? 'yes' : 'NO', fixed((performance.now() - started) / 1000, 1)]);
    }
  }
  console.log('\nthe append worker moving with the others (default) beside fixed (best-effort, symmetry + POR, in this process)\n');
  console.log(renderTable([col('--workers'), col('append worker', 'left'), col('states'), col('stand for'), col('complete', 'left'), col('seconds')], rows));
}

/**
 * The fault world's history as the model keeps it (every aborted incarnation's builder instances, exact
 * abandon and leak counts) beside its summary (model/packed/history-summary.ts, the default): barrier,
 * `--workers 3 --intervals 2 --faults`, symmetry + POR, in this process, one after the other, each
 * within --max-seconds.
 */
async function faultHistory(): Promise<void> {
  const [{ properties }, { checkConfig }, { Engine }, { SymmetryReducer }, { searchPacked }] = await Promise.all([
    import('../spec/properties.ts'),
    import('./model-check.ts'),
    import('../model/packed/engine.ts'),
    import('../model/packed/symmetry.ts'),
    import('../model/packed/search.ts'),
  ]);
  const rows: string[][] = [];
  for (const historySummary of [false, true]) {
    const cfg = checkConfig('barrier', { workers: 3, processes: 1, replicas: 1, intervals: 2, faults: true });
    const engine = new Engine(cfg, properties, { historySummary });
    const started = performance.now();
    const until = started + SECONDS * 1000;
    const r = searchPacked(cfg, { maxStates: 100_000_000, reducer: new SymmetryReducer(engine), por: true, timeUp: () => performance.now() >= until }, engine);
    const held = r.violations.length === 0 ? 'none violated' : r.violations.map((v) => v.property).join(', ');
    rows.push([historySummary ? 'summary (default)' : 'as the model keeps it', thousands(r.states), r.complete ? 'yes' : 'NO', fixed((performance.now() - started) / 1000, 1), held]);
  }
  console.log(`
the fault history as the model keeps it beside its summary (barrier, --workers 3 --intervals 2 --faults, symmetry + POR, in this process, --max-seconds ${SECONDS} each)\n`);
  console.log(renderTable([col('fault history', 'left'), col('states'), col('complete', 'left'), col('seconds'), col('properties', 'left')], rows));
}

/** The swarm (--swarm) on shapes the exhaustive search does not finish. */
function swarm(): void {
  const rows: string[][] = [];
  const run = (label: string, flags: readonly string[]) => {
    const { variants, seconds } = sbkit<SwarmJson>(['--swarm', ...flags]);
    for (const v of variants) {
      const found = v.properties.filter((p) => p.verdict === 'violated');
      rows.push([label, v.variant, thousands(v.searches), thousands(v.states), String(v.deepest), fixed(seconds, 1), found.length === 0 ? 'none found' : found.map((p) => `${p.name} ${p.events}`).join(', ')]);
    }
  };
  run('--workers 4 --processes 2 --intervals 2, review bug', ['--workers', '4', '--processes', '2', '--intervals', '2', '--variant', 'best-effort', '--model-bug', 'sweep-upgrade-race', '--searches', '32']);
  run('--workers 4 --processes 2 --intervals 2', ['--workers', '4', '--processes', '2', '--intervals', '2', '--variant', 'best-effort', '--searches', '32']);
  run('--workers 9, review bug', ['--workers', '9', '--variant', 'best-effort', '--model-bug', 'sweep-upgrade-race', '--searches', '32']);
  console.log('\nthe swarm: many short depth-first searches in random successor orders (--searches 32, ≤ 20,000 states each, one thread); it finds violations and never shows that a property holds\n');
  console.log(renderTable([col('shape', 'left'), col('variant', 'left'), col('searches'), col('states'), col('deepest'), col('seconds'), col('violations found (events of the shortest)', 'left')], rows));
}

/**
 * One search spread over threads (--jobs, model/packed/parallel.ts) beside the same search on one: the
 * same states by construction (the tests hold them equal), so the figure is the time. SBKIT_BENCH_JOBS
 * (default: the machine's cores) sets the threads; SBKIT_BENCH_JOBS_WORKERS (default 8) the workers.
 */
function threads(): void {
  const jobs = Number(process.env['SBKIT_BENCH_JOBS'] ?? availableParallelism());
  if (!Number.isInteger(jobs) || jobs < 1) throw new RangeError(`SBKIT_BENCH_JOBS must be a positive integer, got ${process.env['SBKIT_BENCH_JOBS']}`);
  const workers = process.env['SBKIT_BENCH_JOBS_WORKERS'] ?? '8';
  if (jobs < 2) {
    console.log('\none search over threads: skipped (one core; SBKIT_BENCH_JOBS=N to force)');
    return;
  }
  const rows: string[][] = [];
  let base: number | undefined;
  for (const j of [1, jobs]) {
    for (const v of check(['--workers', workers, '--variant', 'best-effort', '--jobs', String(j), '--max-seconds', String(SECONDS * 2)])) {
      base ??= v.ms;
      rows.push([String(j), v.variant, thousands(v.states), verdict(v), fixed(v.ms / 1000, 1), rate(v), mib(v.figures.peakRssBytes), `${fixed(base / v.ms, 2)}×`]);
    }
  }
  console.log(`\none search over threads (--workers ${workers} --variant best-effort --jobs N; ${availableParallelism()} cores here)
`);
  console.log(
    renderTable([col('threads'), col('variant', 'left'), col('states'), col('complete', 'left'), col('seconds'), col('states/s'), col('peak RSS MiB'), col('speed-up')], rows),
  );
}

sideBySide();
await appendWorker();
await faultHistory();
if (process.env['SBKIT_BENCH_TARGETS'] !== '0') {
  targets();
  swarm();
}
threads();
