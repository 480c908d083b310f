/**
 * Benchmark of the streams of checks derived from the configuration alone (part of `npm run bench`;
 * figures, never assertions): `sbkit check --variant best-effort --runs 2000 --jobs 1` with those checks
 * as streams of their own (streams.ts) beside the same check with them folded into every run (`fold`),
 * alternating, in this process's CPU time (steadier than wall time when other work shares the machine)
 * and wall time; the start-up of the command is in neither figure.
 */
import { runCheck } from './check.ts';
import { barrierByDefault, sharesAtAll, VARIANTS } from '../impl/variants/index.ts';

/** best-effort: the first registered variant that shares without a barrier. */
const VARIANT = VARIANTS.find((v) => sharesAtAll(v) && !barrierByDefault(v)) ?? VARIANTS[0] ?? '';

const RUNS = Number(process.env['SBKIT_RUNS'] ?? 2000);
const ROUNDS = Number(process.env['SBKIT_ROUNDS'] ?? 2);

async function timed(fold: boolean): Promise<{ cpu: number; wall: number; summary: string }> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const r = await runCheck({ variant: VARIANT, runs: RUNS, seed: 1, jobs: 1, ...(fold ? { fold: true } : {}) });
  const cpu = process.cpuUsage(cpu0);
  return { cpu: (cpu.user + cpu.system) / 1e6, wall: (performance.now() - t0) / 1000, summary: r.summary };
}

// JIT warm-up: the first check pays for compiling the kit.
await runCheck({ variant: VARIANT, runs: 200, seed: 99 });
console.log(`\nsbkit check --variant best-effort --runs ${RUNS} --jobs 1, net of start-up: checks derived from the configuration as streams of their own beside folded into every run (alternating, ${ROUNDS} rounds)`);
const best = { streams: Number.POSITIVE_INFINITY, folded: Number.POSITIVE_INFINITY };
for (let round = 1; round <= ROUNDS; round++) {
  for (const fold of [false, true]) {
    const t = await timed(fold);
    const name = fold ? 'folded' : 'streams';
    best[name] = Math.min(best[name], t.cpu);
    const what = /checked(.*), seed/.exec(t.summary)?.[1] ?? '';
    console.log(`  ${name.padEnd(8)} cpu ${t.cpu.toFixed(2)} s  wall ${t.wall.toFixed(2)} s  ${(RUNS / t.cpu).toFixed(0)} runs per cpu second ${what}`);
  }
}
console.log(`  best cpu: streams ${best.streams.toFixed(2)} s, folded ${best.folded.toFixed(2)} s (folded ÷ streams ${(best.folded / best.streams).toFixed(2)})`);
