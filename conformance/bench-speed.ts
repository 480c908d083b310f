/**
 * Part of `npm run bench` (figures only, never asserted): conformance throughput before and after the
 * speed work of issue 10, side by side in one run.
 *
 * - "before" is the kit as it landed before that work (commit BASELINE), extracted with `git archive`
 *   into scratch/ with this tree's node_modules linked in; "after" is this tree. Both run the same timing
 *   script (runCheck on one variant, one seed, one thread), interleaved per variant, best of REPEATS.
 * - The model replay alone: the same recorded traces replayed by `predictAppends` with every machine
 *   stepped by XState's own `transition()` (SBKIT_MODEL_RUNNER=xstate) and by the compiled form.
 * Without git or the baseline commit (a shallow clone), the "before" column says so and the rest runs.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { VARIANTS } from '../impl/variants/index.ts';
import { bestEffortMeta } from '../vocab/variants/best-effort.ts';

/** main before issue 10's speed work (the kit as it landed at stop 6). */
const BASELINE = 'ff6455a';
/** main before the second round of that work (one thread ≥ 1,000 runs/s per variant): its own "before". */
const ROUND2 = 'db510c5';
const RUNS = Number(process.env['SBKIT_BENCH_RUNS'] ?? 2000);
const REPEATS = Number(process.env['SBKIT_BENCH_REPEATS'] ?? 2);

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const scratch = join(root, 'scratch', 'bench');

const TIMING_SCRIPT = `
import { runCheck } from '../../conformance/check.ts';
const [variant, runs] = [process.argv[2], Number(process.argv[3])];
await runCheck({ variant, runs: 200, seed: 99 }); // JIT warm-up
const t = performance.now();
const r = await runCheck({ variant, runs, seed: 1 });
const s = (performance.now() - t) / 1000;
console.log(JSON.stringify({ runsPerSecond: runs / s, exitCode: r.exitCode }));
`;

function baselineTree(commit: string): string | string {
  const dir = join(root, 'scratch', `baseline-${commit}`);
  if (existsSync(join(dir, 'package.json'))) return dir;
  try {
    mkdirSync(dir, { recursive: true });
    const tar = execFileSync('git', ['-C', root, 'archive', '--format=tar', commit], { maxBuffer: 1 << 28 });
    execFileSync('tar', ['-x', '-C', dir], { input: tar });
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
    return dir;
  } catch (e) {
    return `unavailable (${e instanceof Error ? e.message.split('\n')[0] : String(e)})`;
  }
}

function timeIn(tree: string, variant: string): number | undefined {
  const dir = join(tree, 'scratch', 'bench');
  mkdirSync(dir, { recursive: true });
  const script = join(dir, 'runs-per-second.ts');
  writeFileSync(script, TIMING_SCRIPT);
  const r = spawnSync(process.execPath, ['--import', 'tsx', script, variant, String(RUNS)], { cwd: tree, encoding: 'utf8' });
  const line = r.stdout.trim().split('\n').at(-1) ?? '';
  try {
    return (JSON.parse(line) as { runsPerSecond: number }).runsPerSecond;
  } catch {
    return undefined;
  }
}

const REPLAY_SCRIPT = `
import fc from 'fast-check';
import { workloadArb, materialize } from '../../conformance/workload.ts';
import { scheduleArb, schedulerFor } from '../../conformance/schedule.ts';
import { startRun, modelConfigOf } from '../../conformance/harness.ts';
import { predictAppends } from '../../model/predict.ts';
const runs = [];
for (const [w, s] of fc.sample(fc.tuple(workloadArb('${bestEffortMeta.name}'), scheduleArb(2, 16)), { seed: 1, numRuns: 300 })) {
  const updates = materialize(w);
  const sch = schedulerFor(s);
  const { run, trace } = startRun(w, sch);
  await sch.drive(run);
  runs.push([modelConfigOf(w, updates), trace]);
}
const events = runs.reduce((n, [, t]) => n + t.length, 0);
let best = Infinity;
for (let rep = 0; rep < 3; rep++) {
  const t = performance.now();
  for (const [cfg, trace] of runs) predictAppends(cfg, trace);
  best = Math.min(best, performance.now() - t);
}
console.log(JSON.stringify({ usPerEvent: (best * 1000) / events, events }));
`;

function replayMicros(runner: 'xstate' | 'compiled'): { usPerEvent: number; events: number } | undefined {
  mkdirSync(scratch, { recursive: true });
  const script = join(scratch, 'replay.ts');
  writeFileSync(script, REPLAY_SCRIPT);
  const env = { ...process.env, ...(runner === 'xstate' ? { SBKIT_MODEL_RUNNER: 'xstate' } : {}) };
  if (runner === 'compiled') delete env['SBKIT_MODEL_RUNNER'];
  const r = spawnSync(process.execPath, ['--import', 'tsx', script], { cwd: root, encoding: 'utf8', env });
  try {
    return JSON.parse(r.stdout.trim().split('\n').at(-1) ?? '') as { usPerEvent: number; events: number };
  } catch {
    return undefined;
  }
}

const fmt = (n: number | undefined): string => (n === undefined ? 'n/a' : n.toFixed(0));
const before = baselineTree(BASELINE);
const haveBaseline = existsSync(join(before, 'package.json'));
const round2 = baselineTree(ROUND2);
const haveRound2 = existsSync(join(round2, 'package.json'));
console.log(`conformance throughput, one thread (runs/s, best of ${REPEATS} × ${RUNS} runs, seed 1, after a 200-run warm-up)`);
console.log(`  before: ${haveBaseline ? `commit ${BASELINE} (${before})` : before}`);
console.log(`  round 2: ${haveRound2 ? `commit ${ROUND2}, before the ≥ 1,000 runs/s round (${round2})` : round2}`);
console.log(`  after:  this tree (${root})`);
console.log(`  variant       before  round 2    after   speed-up (vs before, vs round 2)`);
for (const variant of VARIANTS) {
  let b: number | undefined;
  let r: number | undefined;
  let a: number | undefined;
  // Interleaved, so that a loaded stretch of the machine hits every column alike.
  for (let i = 0; i < REPEATS; i++) {
    if (haveBaseline) b = Math.max(b ?? 0, timeIn(before, variant) ?? 0) || undefined;
    if (haveRound2) r = Math.max(r ?? 0, timeIn(round2, variant) ?? 0) || undefined;
    a = Math.max(a ?? 0, timeIn(root, variant) ?? 0) || undefined;
  }
  const ratio = (x: number | undefined) => (a !== undefined && x !== undefined ? `${(a / x).toFixed(1)}×` : 'n/a');
  console.log(`  ${variant.padEnd(12)} ${fmt(b).padStart(7)} ${fmt(r).padStart(8)} ${fmt(a).padStart(8)}   ${ratio(b).padStart(6)}, ${ratio(r)}`);
}
const x = replayMicros('xstate');
const c = replayMicros('compiled');
console.log(`\nmodel replay (predictAppends on 300 recorded best-effort traces, ${x?.events ?? '?'} events, best of 3):`);
console.log(`  XState transition(): ${x?.usPerEvent.toFixed(2) ?? 'n/a'} µs/event   compiled: ${c?.usPerEvent.toFixed(2) ?? 'n/a'} µs/event` + (x && c ? `   (${(x.usPerEvent / c.usPerEvent).toFixed(0)}× faster)` : ''));
