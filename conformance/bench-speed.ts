/**
 * Part of `npm run bench` (figures only, never asserted): conformance throughput by configuration, side
 * by side in one run.
 *
 * - Runs per second of `runCheck` (one variant, one seed, one thread), each configuration in a child
 *   process of its own, interleaved per variant, best of REPEATS: the model replayed by its compiled step
 *   (the default), by XState's own `transition()` (SBKIT_MODEL_RUNNER=xstate), and the compiled step with
 *   the fault world on (`--faults` at its default rate).
 * - The model replay alone: the same recorded traces replayed by `predictAppends` with every machine
 *   stepped by XState's `transition()` and by the compiled form.
 * Environment: SBKIT_BENCH_RUNS (default 2000) runs per measurement, SBKIT_BENCH_REPEATS (default 2).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { VARIANTS } from '../impl/variants/index.ts';
import { bestEffortMeta } from '../vocab/variants/best-effort.ts';

const RUNS = Number(process.env['SBKIT_BENCH_RUNS'] ?? 2000);
const REPEATS = Number(process.env['SBKIT_BENCH_REPEATS'] ?? 2);

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const scratch = join(root, 'scratch', 'bench');

const TIMING_SCRIPT = `
import { runCheck } from '../../conformance/check.ts';
const [variant, runs, faults] = [process.argv[2], Number(process.argv[3]), process.argv[4] === 'faults'];
const extra = faults ? { faults: 0.1 } : {};
await runCheck({ variant, runs: 200, seed: 99, ...extra }); // JIT warm-up
const t = performance.now();
const r = await runCheck({ variant, runs, seed: 1, ...extra });
const s = (performance.now() - t) / 1000;
console.log(JSON.stringify({ runsPerSecond: runs / s, exitCode: r.exitCode }));
`;

/** A configuration of the check: which model step replays the traces, and whether faults are on. */
interface Configuration {
  name: string;
  runner: 'compiled' | 'xstate';
  faults: boolean;
}

const CONFIGURATIONS: readonly Configuration[] = [
  { name: 'compiled step', runner: 'compiled', faults: false },
  { name: 'XState step', runner: 'xstate', faults: false },
  { name: 'compiled, --faults', runner: 'compiled', faults: true },
];

function envFor(runner: 'compiled' | 'xstate'): NodeJS.ProcessEnv {
  const env = { ...process.env };
  if (runner === 'xstate') env['SBKIT_MODEL_RUNNER'] = 'xstate';
  else delete env['SBKIT_MODEL_RUNNER'];
  return env;
}

function runsPerSecond(variant: string, c: Configuration): number | undefined {
  mkdirSync(scratch, { recursive: true });
  const script = join(scratch, 'runs-per-second.ts');
  writeFileSync(script, TIMING_SCRIPT);
  const args = ['--import', 'tsx', script, variant, String(RUNS), c.faults ? 'faults' : 'plain'];
  const r = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8', env: envFor(c.runner) });
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
  const r = spawnSync(process.execPath, ['--import', 'tsx', script], { cwd: root, encoding: 'utf8', env: envFor(runner) });
  try {
    return JSON.parse(r.stdout.trim().split('\n').at(-1) ?? '') as { usPerEvent: number; events: number };
  } catch {
    return undefined;
  }
}

const fmt = (n: number | undefined): string => (n === undefined ? 'n/a' : n.toFixed(0));
console.log(`conformance throughput, one thread (runs/s, best of ${REPEATS} × ${RUNS} runs, seed 1, after a 200-run warm-up)`);
console.log(`  ${'variant'.padEnd(12)} ${CONFIGURATIONS.map((c) => c.name.padStart(19)).join(' ')}   compiled ÷ XState`);
for (const variant of VARIANTS) {
  const best = CONFIGURATIONS.map((): number | undefined => undefined);
  // Interleaved, so that a loaded stretch of the machine hits every configuration alike.
  for (let i = 0; i < REPEATS; i++) {
    CONFIGURATIONS.forEach((c, j) => {
      best[j] = Math.max(best[j] ?? 0, runsPerSecond(variant, c) ?? 0) || undefined;
    });
  }
  const [compiled, xstate] = best;
  const ratio = compiled !== undefined && xstate !== undefined ? `${(compiled / xstate).toFixed(2)}×` : 'n/a';
  console.log(`  ${variant.padEnd(12)} ${best.map((b) => fmt(b).padStart(19)).join(' ')}   ${ratio.padStart(17)}`);
}
const x = replayMicros('xstate');
const c = replayMicros('compiled');
console.log(`\nmodel replay (predictAppends on 300 recorded best-effort traces, ${x?.events ?? '?'} events, best of 3):`);
console.log(`  XState transition(): ${x?.usPerEvent.toFixed(2) ?? 'n/a'} µs/event   compiled: ${c?.usPerEvent.toFixed(2) ?? 'n/a'} µs/event` + (x && c ? `   (${(x.usPerEvent / c.usPerEvent).toFixed(0)}× faster)` : ''));
