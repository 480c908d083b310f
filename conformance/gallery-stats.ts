/**
 * Benchmark of the conformance suite (part of `npm run bench`; figures, never assertions):
 * - for each gallery bug over 20 seeds: runs and milliseconds until the first failure (median, worst),
 *   wall time and this process's CPU time (steadier when other work shares the machine),
 *   and the length of the shrunk counterexample in protocol events (median, worst): the whole executed
 *   trace, and the prefix up to the first event where the model diverged (the whole trace when only a
 *   property, the audit or liveness failed); and the runs minimization and the re-search spent on it
 *   (median, worst).
 */
import { BUG_NAMES } from '../vocab/index.ts';
import { VARIANTS } from '../impl/variants/index.ts';
import { runCheck } from './check.ts';
import { divergenceOf } from './minimize.ts';
import type { Strategy } from './schedule.ts';

const SEEDS = Number(process.env['SBKIT_SEEDS'] ?? 20);
const STRATEGIES = (process.env['SBKIT_STRATEGIES'] ?? 'mixed').split(',') as Strategy[];
/** `SBKIT_BUGS=a,b`: only these gallery bugs (default all). */
const BUGS = process.env['SBKIT_BUGS'] === undefined ? BUG_NAMES : BUG_NAMES.filter((b) => (process.env['SBKIT_BUGS'] ?? '').split(',').includes(b));

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[m] ?? 0) : ((s[m - 1] ?? 0) + (s[m] ?? 0)) / 2;
}

async function gallery(strategy: Strategy): Promise<void> {
  console.log(`\ngallery, strategy ${strategy}: ${SEEDS} seeds per bug; runs and ms until the first failure, shrunk counterexample length`);
  console.log('  bug                                  found  runs med/worst   ms med/worst  cpu ms med/worst   events med/worst   to divergence   shrink runs med/worst');
  for (const bug of BUGS) {
    const runs: number[] = [];
    const ms: number[] = [];
    const cpu: number[] = [];
    const events: number[] = [];
    const toDivergence: number[] = [];
    const shrinkRuns: number[] = [];
    let found = 0;
    for (let seed = 1; seed <= SEEDS; seed++) {
      const r = await runCheck({ variant: 'all', bug, seed, strategy });
      const f = r.variants.find((v) => v.failed);
      if (f?.report === undefined) continue;
      found += 1;
      runs.push(f.runsToFailure ?? 0);
      ms.push(f.msToFailure ?? 0);
      cpu.push(f.cpuMsToFailure ?? 0);
      events.push(f.report.trace.length);
      toDivergence.push(divergenceOf(f.report));
      shrinkRuns.push(f.shrinkRuns ?? 0);
    }
    const pair = (xs: number[], digits = 0) => `${median(xs).toFixed(digits)} / ${Math.max(...xs).toFixed(digits)}`;
    console.log(
      `  ${bug.padEnd(36)} ${`${found}/${SEEDS}`.padStart(5)}  ${pair(runs).padStart(14)}  ${pair(ms).padStart(13)}  ${pair(cpu).padStart(16)}  ${pair(events).padStart(16)}  ${pair(toDivergence).padStart(14)}  ${pair(shrinkRuns).padStart(21)}`,
    );
  }
}

// JIT warm-up, so that the first bug's first seed does not pay for compiling the kit (it did: its
// worst case was several times the others').
for (const variant of VARIANTS) await runCheck({ variant, runs: 100, seed: 99 });
for (const strategy of STRATEGIES) await gallery(strategy);
