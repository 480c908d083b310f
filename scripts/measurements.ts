/**
 * `npm run bench`: runs every benchmark of the kit as a child process and writes docs/measurements.md,
 * one section per benchmark with the exact command and its whole output. The docs quote figures only by
 * linking to a section of that file, so every figure they cite comes from a command printed beside it.
 *
 * `npm run bench -- --only model,gallery` re-measures those sections (names below) and keeps the file's
 * others as they were. Environment variables that start with SBKIT_ pass through to every benchmark and
 * are listed under each section it wrote, with the load average at its start, so a smaller budget or a
 * busy machine is visible there. Figures only: nothing here is asserted.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'docs', 'measurements.md');

/** One benchmark: its section name (the anchor the docs link to), its title, and its command. */
interface Bench {
  readonly name: string;
  readonly title: string;
  readonly what: string;
  readonly args: readonly string[];
}

const BENCHES: readonly Bench[] = [
  {
    name: 'compare',
    title: 'compare: speed and memory',
    what: '`sbkit compare` on its defaults, each variant several times: wall time and peak heap.',
    args: ['explore/bench.ts'],
  },
  {
    name: 'conformance',
    title: 'conformance: runs per second by configuration',
    what: 'The check on one thread with the model replayed by its compiled step, by XState\'s `transition()`, and with the fault world on; then the model replay alone, per event.',
    args: ['conformance/bench-speed.ts'],
  },
  {
    name: 'streams',
    title: 'conformance: configuration checks as streams beside folded into every run',
    what: 'The command `sbkit check --variant best-effort --runs 2000 --jobs 1` as a process of its own, with bad input and misuse as streams of their own, beside the same command with them folded back into every run (`--fold-streams`), alternating; CPU seconds net of start-up (minus the same command with `--runs 1`) and judged runs per CPU second.',
    args: ['conformance/bench-streams.ts'],
  },
  {
    name: 'phases',
    title: "conformance: where a judged run's time goes",
    what: "The runs of `sbkit check --variant best-effort --jobs 1` (mixed strategy, seed 1, 2,000 runs) timed by phase: the draw (fast-check and the steering), the implementation's setup and its run under the scheduler, judging (liveness, properties, audit, metrics, the refinement replay), cost, stored-history corruption, the other checks, the steering's and the check's tally; milliseconds per run and share of the whole.",
    args: ['conformance/bench-phases.ts'],
  },
  {
    name: 'model',
    title: 'model check: states, states/s, bytes per state',
    what: 'The plain search beside the packed one with and without each reduction, the larger configurations on one thread, the swarm, and one search over threads beside one thread.',
    args: ['explore/bench-model.ts'],
  },
  {
    name: 'gallery',
    title: 'gallery: how fast each bug is found',
    what: 'Every gallery bug over 20 seeds: runs and milliseconds to the first failure, and the length of the shrunk counterexample.',
    args: ['conformance/gallery-stats.ts'],
  },
  {
    name: 'spin',
    title: 'SPIN beside the model check',
    what: 'The Promela model of bench/spin/ under SPIN beside `sbkit model --check --core` at the same W and P.',
    args: ['explore/bench-spin.ts', '--workers', '5', '--parts', '2'],
  },
  {
    name: 'spin-w7',
    title: 'SPIN beside the model check at seven workers',
    what: 'The same at W = 7, P = 2 for best-effort: where SPIN\'s exact store reaches its memory limit (`--spin-memory`) and the model check completes.',
    args: ['explore/bench-spin.ts', '--workers', '7', '--parts', '2', '--variants', 'best-effort'],
  },
];

function parseOnly(argv: readonly string[]): ReadonlySet<string> | undefined {
  if (argv.length === 0) return undefined;
  if (argv[0] !== '--only' || argv[1] === undefined || argv.length > 2) {
    throw new Error(`bench: usage: npm run bench [-- --only NAME[,NAME…]] (names: ${BENCHES.map((b) => b.name).join(', ')})`);
  }
  const names = argv[1].split(',');
  const unknown = names.filter((n) => !BENCHES.some((b) => b.name === n));
  if (unknown.length > 0) throw new Error(`bench: --only: unknown section ${unknown.join(', ')} (names: ${BENCHES.map((b) => b.name).join(', ')})`);
  return new Set(names);
}

interface Result {
  readonly bench: Bench;
  readonly output: string;
  readonly exitCode: number | null;
  readonly seconds: number;
  readonly load: readonly number[];
}

function run(bench: Bench): Result {
  process.stderr.write(`bench: ${commandOf(bench)}\n`);
  const load = loadavg();
  const start = performance.now();
  const r = spawnSync(join(ROOT, 'node_modules', '.bin', 'tsx'), [...bench.args], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 1 << 26,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const seconds = (performance.now() - start) / 1000;
  const output = [r.stdout, r.stderr].filter((s) => s.trim() !== '').join('\n').trimEnd();
  process.stdout.write(`${output}\n`);
  return { bench, output, exitCode: r.status, seconds, load };
}

const commandOf = (b: Bench): string => `npx tsx ${b.args.join(' ')}`;

/** The SBKIT_ variables this run passes to the benchmarks, and the load when a section started. */
function conditions(load: readonly number[]): string {
  const sbkit = Object.entries(process.env)
    .filter(([k]) => k.startsWith('SBKIT_'))
    .map(([k, v]) => `\`${k}=${v ?? ''}\``);
  const env = sbkit.length === 0 ? 'no SBKIT_ variables (the benchmark\'s defaults)' : sbkit.join(', ');
  return `load average ${load.map((l) => l.toFixed(1)).join(' / ')} at its start; ${env}`;
}

/** The sections of an earlier docs/measurements.md by name (kept when `--only` re-measures others). */
function earlierSections(): Map<string, string> {
  const sections = new Map<string, string>();
  if (!existsSync(OUT)) return sections;
  const parts = readFileSync(OUT, 'utf8').split(/^(?=## )/m).slice(1);
  for (const part of parts) {
    const name = /^## (\S+)/.exec(part)?.[1];
    if (name !== undefined) sections.set(name, part.trimEnd());
  }
  return sections;
}

function section({ bench, output, exitCode, seconds, load }: Result): string {
  return [
    `## ${bench.name}`,
    '',
    `**${bench.title}.** ${bench.what}`,
    '',
    '```sh',
    commandOf(bench),
    '```',
    '',
    '```',
    output,
    '```',
    '',
    `Exit code ${exitCode ?? 'none (killed)'}; ${seconds.toFixed(0)} s wall; ${conditions(load)}.`,
  ].join('\n');
}

function render(results: readonly Result[], earlier: ReadonlyMap<string, string>): string {
  const lines = [
    '# Measurements',
    '',
    '<!-- Written by `npm run bench` (scripts/measurements.ts); do not edit by hand. -->',
    '',
    'Every figure the docs quote is in a section below, beside the command that printed it. Wall-clock',
    'figures depend on the machine and on what else runs on it; compare figures within one section, taken',
    'side by side in one run, not across machines. `npm run bench -- --only NAME[,NAME…]` re-measures',
    'some sections and keeps the others.',
    '',
    `Machine: ${availableParallelism()} cores (${cpus()[0]?.model ?? 'unknown'}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB; Node ${process.version}.`,
    '',
  ];
  for (const bench of BENCHES) {
    const fresh = results.find((r) => r.bench === bench);
    const text = fresh !== undefined ? section(fresh) : earlier.get(bench.name);
    if (text !== undefined) lines.push(text, '');
  }
  return lines.join('\n');
}

let only: ReadonlySet<string> | undefined;
try {
  only = parseOnly(process.argv.slice(2));
} catch (e) {
  process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(2);
}
const earlier = only === undefined ? new Map<string, string>() : earlierSections();
const results: Result[] = [];
for (const bench of BENCHES) {
  if (only !== undefined && !only.has(bench.name)) continue;
  results.push(run(bench));
  writeFileSync(OUT, render(results, earlier)); // after each section, so an interrupted run keeps what it measured
}
process.stderr.write(`bench: wrote ${OUT}\n`);
process.exitCode = results.some((r) => r.exitCode !== 0) ? 1 : 0;
