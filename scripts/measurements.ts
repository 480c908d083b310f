/**
 * `npm run bench`: runs every benchmark of the kit as a child process and writes docs/measurements.md,
 * one section per benchmark with the exact command and its whole output. The docs quote figures only by
 * linking to a section of that file, so every figure they cite comes from a command printed beside it.
 *
 * `npm run bench -- --only model,gallery` runs those sections alone (names below) and says in the file's
 * header which ran. Environment variables that start with SBKIT_ pass through to every benchmark and are
 * listed in the header, so a smaller budget is visible there. Figures only: nothing here is asserted.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
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
    name: 'model',
    title: 'model check: states, states/s, bytes per state',
    what: 'The plain search beside the packed one, the larger configurations, and one search over threads beside one thread.',
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
}

function run(bench: Bench): Result {
  process.stderr.write(`bench: ${commandOf(bench)}\n`);
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
  return { bench, output, exitCode: r.status, seconds };
}

const commandOf = (b: Bench): string => `npx tsx ${b.args.join(' ')}`;

function environment(only: ReadonlySet<string> | undefined): string[] {
  const sbkit = Object.entries(process.env)
    .filter(([k]) => k.startsWith('SBKIT_'))
    .map(([k, v]) => `${k}=${v ?? ''}`);
  return [
    `Machine: ${availableParallelism()} cores (${cpus()[0]?.model ?? 'unknown'}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB;`,
    `Node ${process.version}; load average ${loadavg().map((l) => l.toFixed(1)).join(' / ')} at the start.`,
    `Environment: ${sbkit.length === 0 ? 'no SBKIT_ variables (every benchmark at its defaults)' : sbkit.map((s) => `\`${s}\``).join(', ')}.`,
    only === undefined ? 'Sections: all.' : `Sections: only ${[...only].join(', ')} (\`npm run bench -- --only ${[...only].join(',')}\`); run \`npm run bench\` for all.`,
  ];
}

function render(results: readonly Result[], only: ReadonlySet<string> | undefined): string {
  const lines = [
    '# Measurements',
    '',
    '<!-- Written by `npm run bench` (scripts/measurements.ts); do not edit by hand. -->',
    '',
    'Every figure the docs quote is in a section below, beside the command that printed it. Wall-clock',
    'figures depend on the machine and on what else runs on it; compare figures within one section, taken',
    'side by side in one run, not across machines.',
    '',
    ...environment(only),
    '',
  ];
  for (const { bench, output, exitCode, seconds } of results) {
    lines.push(
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
      `Exit code ${exitCode ?? 'none (killed)'}; ${seconds.toFixed(0)} s wall.`,
      '',
    );
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
const results: Result[] = [];
for (const bench of BENCHES) {
  if (only !== undefined && !only.has(bench.name)) continue;
  results.push(run(bench));
  writeFileSync(OUT, render(results, only)); // after each section, so an interrupted run keeps what it measured
}
process.stderr.write(`bench: wrote ${OUT}\n`);
process.exitCode = results.some((r) => r.exitCode !== 0) ? 1 : 0;
