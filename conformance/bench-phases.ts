/**
 * Benchmark of where a judged run's time goes (part of `npm run bench`; figures, never assertions): the
 * runs `sbkit check --variant best-effort --jobs 1` makes (the mixed strategy, its steering and
 * fast-check's loop), timed by phase — drawing the run (fast-check and the steering's draw), setting up
 * the implementation, running it under the scheduler, judging it (liveness, properties, audit, metrics
 * and the refinement replay on the model), its cost, its stored history corrupted, the other checks on
 * its own objects, and the steering's and the check's tally of what it reached. The checks derived from
 * the configuration alone run as streams of their own (bench-streams.ts) and are left out here. Then the
 * refinement replay alone, once more over the same traces, for its share of judging.
 */
import fc from 'fast-check';
import { barrierByDefault, sharesAtAll, VARIANTS } from '../impl/variants/index.ts';
import { predictAppends } from '../model/predict.ts';
import type { TraceEvent } from '../vocab/index.ts';
import { fixed } from '../explore/format.ts';
import { col, renderTable } from '../explore/table.ts';
import { RUN_PHASES, runOnce, type RunPhases } from './harness.ts';
import { reachOf } from './multi-sink.ts';
import { modelConfigOf } from './run-setup.ts';
import { Steering } from './steer.ts';
import { DEFAULT_BOUNDS, sinksOf, type Workload } from './workload.ts';

/** best-effort: the first registered variant that shares without a barrier. */
const VARIANT = VARIANTS.find((v) => sharesAtAll(v) && !barrierByDefault(v)) ?? VARIANTS[0] ?? '';
const RUNS = Number(process.env['SBKIT_RUNS'] ?? 2000);
const SEED = 1;

const phases = Object.fromEntries(RUN_PHASES.map((p) => [p, 0])) as RunPhases;
let draw = 0;
let tally = 0;
let ended: number | undefined;
let events = 0;
const oneSink: { workload: Workload; trace: readonly TraceEvent[] }[] = [];
const reached: Record<string, number> = {};
const steering = new Steering(VARIANT, DEFAULT_BOUNDS, 'mixed', undefined, SEED);
const started = performance.now();
const cpuStarted = process.cpuUsage();
await fc.assert(
  fc.asyncProperty(steering.arb, async (run) => {
    const start = performance.now();
    if (ended !== undefined) draw += start - ended;
    const report = await runOnce(run.workload, run.schedule, undefined, { configChecks: false, phases });
    const judged = performance.now();
    steering.observe(run, report);
    for (const name of reachOf(report)) reached[name] = (reached[name] ?? 0) + 1;
    ended = performance.now();
    tally += ended - judged;
    events += report.trace.length;
    if (sinksOf(run.workload) === 1) oneSink.push({ workload: run.workload, trace: report.trace });
    if (report.failures.length > 0) throw new Error(report.failures.map((f) => `${f.check}: ${f.why}`).join('\n'));
  }),
  { seed: SEED, numRuns: RUNS },
);
const wall = performance.now() - started;
const cpu = process.cpuUsage(cpuStarted);

const rows: [string, number][] = [['draw (fast-check, steering)', draw], ...RUN_PHASES.map((p): [string, number] => [p, phases[p]]), ['steering and reach tally', tally]];
const timed = rows.reduce((n, [, ms]) => n + ms, 0);
rows.push(['rest of the loop', wall - timed]);
console.log(`\nwhere a judged run's time goes: ${RUNS} runs of ${VARIANT}, mixed strategy, seed ${SEED}, one thread (node ${process.version}); ${fixed(events / RUNS, 1)} events per run`);
console.log(
  renderTable(
    [col('phase', 'left'), col('ms per run'), col('share')],
    rows.map(([name, ms]) => [name, fixed(ms / RUNS, 3), `${fixed((100 * ms) / wall, 1)}%`]),
  ),
);
console.log(`  whole: ${fixed(wall / RUNS, 3)} ms per run wall (${fixed((1000 * RUNS) / wall, 0)} runs/s), ${fixed((cpu.user + cpu.system) / 1000 / RUNS, 3)} ms per run cpu (${fixed((1e6 * RUNS) / (cpu.user + cpu.system), 0)} runs/s)`);

// The refinement replay alone, over the same one-sink traces again (warm: the model's code and memo
// are hot here, as they are not between runs).
const replayStarted = performance.now();
let replayed = 0;
for (const { workload, trace } of oneSink) {
  if (predictAppends(modelConfigOf(workload), trace).ok) replayed += 1;
}
const replayMs = performance.now() - replayStarted;
console.log(`  refinement replay alone, again: ${fixed(replayMs / oneSink.length, 3)} ms per one-sink run (${replayed} of ${oneSink.length} accepted), part of judge`);
