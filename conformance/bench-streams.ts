/**
 * Benchmark of the streams of checks derived from the configuration alone (part of `npm run bench`;
 * figures, never assertions): the command `sbkit check --variant best-effort --runs 2000 --jobs 1` itself,
 * run as a child process with those checks as streams of their own (streams.ts) beside the same command
 * with `--fold-streams` (folded into every run), alternating. Net of start-up: each figure is the
 * command's CPU time (user + system, the child's own: steadier than wall time when other work shares the
 * machine) minus that of the same command with `--runs 1` (loading the kit, compiling it, one run), and
 * judged runs per CPU second follow from it. Each round runs the pair of start-ups too, beside the pair
 * of checks, so a busier machine weighs on both alike.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { barrierByDefault, sharesAtAll, VARIANTS } from '../impl/variants/index.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** best-effort: the first registered variant that shares without a barrier. */
const VARIANT = VARIANTS.find((v) => sharesAtAll(v) && !barrierByDefault(v)) ?? VARIANTS[0] ?? '';

const RUNS = Number(process.env['SBKIT_RUNS'] ?? 2000);
const ROUNDS = Number(process.env['SBKIT_ROUNDS'] ?? 2);
/** The seed of every check here: the same runs in each round and each configuration. */
const SEED = 1;

/** CPU seconds of this process's waited-for children (Linux /proc: utime, stime of children, in ticks). */
function childrenCpu(): number {
  const fields = readFileSync('/proc/self/stat', 'utf8').replace(/^.*\) /, '').split(' ');
  // (after the command's name: state is field 3, cutime field 16, cstime field 17)
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

interface Timed {
  readonly cpu: number;
  readonly wall: number;
  readonly summary: string;
}

function sbkit(runs: number, fold: boolean): Timed {
  const args = ['bin/sbkit.js', 'check', '--variant', VARIANT, '--runs', String(runs), '--jobs', '1', '--seed', String(SEED), ...(fold ? ['--fold-streams'] : [])];
  const cpu0 = childrenCpu();
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const wall = (performance.now() - t0) / 1000;
  const cpu = childrenCpu() - cpu0;
  if (r.status !== 0) throw new Error(`bench-streams: sbkit ${args.slice(1).join(' ')} exited ${r.status}:\n${r.stdout}${r.stderr}`);
  const summary = `${r.stdout}${r.stderr}`.split('\n').find((l) => l.startsWith('sbkit check:')) ?? '';
  return { cpu, wall, summary };
}

console.log(`\nsbkit check --variant ${VARIANT} --runs ${RUNS} --jobs 1 (--seed ${SEED}), each a process of its own, net of start-up (the same command with --runs 1): checks derived from the configuration as streams of their own beside --fold-streams (alternating, ${ROUNDS} rounds)`);
const best = { streams: Number.POSITIVE_INFINITY, folded: Number.POSITIVE_INFINITY };
for (let round = 1; round <= ROUNDS; round++) {
  for (const fold of [false, true]) {
    const start = sbkit(1, fold);
    const t = sbkit(RUNS, fold);
    const name = fold ? 'folded' : 'streams';
    const net = t.cpu - start.cpu;
    best[name] = Math.min(best[name], net);
    const what = /checked(.*), seed/.exec(t.summary)?.[1] ?? '';
    console.log(
      `  ${name.padEnd(8)} cpu ${t.cpu.toFixed(2)} s − start-up ${start.cpu.toFixed(2)} s = ${net.toFixed(2)} s net  (wall ${(t.wall - start.wall).toFixed(2)} s net)  ${(RUNS / net).toFixed(0)} judged runs per cpu second ${what}`,
    );
  }
}
console.log(
  `  best net cpu: streams ${best.streams.toFixed(2)} s (${(RUNS / best.streams).toFixed(0)} runs/s), folded ${best.folded.toFixed(2)} s (${(RUNS / best.folded).toFixed(0)} runs/s); folded ÷ streams ${(best.folded / best.streams).toFixed(2)}`,
);
