/**
 * `npm run bench:spin [-- --workers W --parts P --variants best-effort,barrier --max-seconds S --spin-por on|off --spin-memory MB]`:
 * our exhaustive check of the SPIN anchor's configuration (`sbkit model --check --core`) beside SPIN on
 * the Promela model of the same protocol (bench/spin/sharedbatch.pml), for the same W and P: states, seconds and peak RSS of each. Figures only;
 * nothing is asserted. The machine's 2 cores are shared: repeat a run before trusting a ratio. SPIN's
 * exact store stops at `--spin-memory` (pan's MEMLIM, default 20,000 MB): where it does, the table says
 * how many states it had stored.
 *
 * SPIN comes from Debian's `spin` package (`apt-get install -y spin`); pan.c is generated and compiled in
 * scratch/spin/ (git-ignored). Without spin (or gcc) only our side runs, and the bench says how to
 * install it. The two models differ (see bench/spin/README.md): compare time to complete, not states.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fixed, thousands } from './format.ts';
import { col, renderTable } from './table.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const BUILD = join(ROOT, 'scratch', 'spin');

interface Args {
  workers: number;
  parts: number;
  variants: ('best-effort' | 'barrier')[];
  maxSeconds: number;
  spinPor: boolean;
  spinMemory: number;
}

function parse(argv: readonly string[]): Args {
  const args: Args = { workers: 3, parts: 2, variants: ['best-effort', 'barrier'], maxSeconds: 600, spinPor: true, spinMemory: 20_000 };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1] ?? ''];
    if (flag === '--workers') args.workers = Number(value);
    else if (flag === '--parts') args.parts = Number(value);
    else if (flag === '--variants') args.variants = value.split(',') as Args['variants'];
    else if (flag === '--max-seconds') args.maxSeconds = Number(value);
    else if (flag === '--spin-por') args.spinPor = value !== 'off';
    else if (flag === '--spin-memory') args.spinMemory = Number(value);
    else throw new Error(`bench:spin: unknown flag ${flag} (flags: --workers --parts --variants --max-seconds --spin-por --spin-memory)`);
  }
  if (!Number.isInteger(args.workers) || args.workers < 1 || args.workers > 8) throw new Error('bench:spin: --workers must be 1..8');
  if (!Number.isInteger(args.parts) || args.parts < 1 || args.parts > 9) throw new Error('bench:spin: --parts must be 1..9');
  if (args.variants.some((v) => v !== 'best-effort' && v !== 'barrier')) throw new Error('bench:spin: --variants is best-effort and/or barrier');
  if (!Number.isInteger(args.spinMemory) || args.spinMemory < 100) throw new Error('bench:spin: --spin-memory is pan\'s memory limit in MB (at least 100)');
  return args;
}

interface Measured {
  readonly complete: boolean;
  readonly tool: string;
  readonly states: number | null;
  /** What our states stand for without the symmetry (SPIN: its states). */
  readonly standFor: number | null;
  readonly seconds: number;
  readonly rssMiB: number | null;
  readonly note: string;
}

const has = (cmd: string): boolean => spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' }).status === 0;

/** Runs `cmd` under /usr/bin/time (when present): wall seconds and peak RSS. */
function timed(cmd: string, args: readonly string[], cwd: string): { stdout: string; stderr: string; status: number | null; seconds: number; rssMiB: number | null } {
  mkdirSync(BUILD, { recursive: true }); // our side runs first: on a fresh clone scratch/spin/ is not there yet
  const timeFile = join(BUILD, 'time.txt');
  const useTime = existsSync('/usr/bin/time');
  const started = performance.now();
  const r = useTime
    ? spawnSync('/usr/bin/time', ['-f', '%e %M', '-o', timeFile, cmd, ...args], { cwd, encoding: 'utf8', maxBuffer: 1 << 28 })
    : spawnSync(cmd, args, { cwd, encoding: 'utf8', maxBuffer: 1 << 28 });
  const seconds = (performance.now() - started) / 1000;
  let rssMiB: number | null = null;
  if (useTime && existsSync(timeFile)) {
    // a failing command makes /usr/bin/time print "Command exited with non-zero status N" first
    const last = readFileSync(timeFile, 'utf8').trim().split('\n').at(-1) ?? '';
    const [, kb] = last.trim().split(/\s+/);
    rssMiB = Number(kb) / 1024;
    rmSync(timeFile);
  }
  return { stdout: r.stdout ?? '', stderr: r.stderr ?? '', status: r.status, seconds, rssMiB };
}

function ours(args: Args, variant: string): Measured {
  const r = timed(
    process.execPath,
    [join(ROOT, 'bin', 'sbkit.js'), 'model', '--check', '--core', '--workers', String(args.workers), '--parts', String(args.parts), '--variant', variant, '--max-seconds', String(args.maxSeconds), '--json'],
    ROOT,
  );
  if (!r.stdout.trim().startsWith('{')) {
    throw new Error(`bench:spin: sbkit model --check --core printed no JSON (exit ${r.status}): ${r.stderr.trim().split('\n').slice(-5).join(' | ')}`);
  }
  const json = JSON.parse(r.stdout) as { variants: { states: number; unreduced: number | null; complete: boolean; figures: { reduction: string; stopped: string | null; configs: number } }[] };
  const v = json.variants[0];
  return {
    complete: v?.complete === true,
    tool: 'sbkit (packed, symmetry + partial order)',
    states: v?.states ?? null,
    standFor: v?.unreduced ?? null,
    seconds: r.seconds,
    rssMiB: r.rssMiB,
    note: v === undefined ? 'no result' : v.complete ? `complete; ${v.figures.configs} load vectors` : `INCOMPLETE (${v.figures.stopped})`,
  };
}

/** Hash table slots 2^w, about the states stored (about 1–2× the states stored; pan's default is 2^24). */
const hashBits = (args: Args): number => (args.workers >= 5 ? (args.parts >= 2 ? 26 : 24) : args.workers === 4 && args.parts >= 2 ? 22 : 21);

function spin(args: Args, variant: string): Measured {
  mkdirSync(BUILD, { recursive: true });
  copyFileSync(join(ROOT, 'bench', 'spin', 'sharedbatch.pml'), join(BUILD, 'sharedbatch.pml'));
  const defs = [`-DW=${args.workers}`, `-DP=${args.parts}`, `-DBARRIER=${variant === 'barrier' ? 1 : 0}`];
  const gen = spawnSync('spin', ['-a', ...defs, 'sharedbatch.pml'], { cwd: BUILD, encoding: 'utf8' });
  if (gen.status !== 0) throw new Error(`spin -a failed: ${gen.stderr}`);
  const flags = ['-w', '-O2', '-DSAFETY', `-DMEMLIM=${args.spinMemory}`, ...(args.spinPor ? [] : ['-DNOREDUCE'])];
  const cc = spawnSync('gcc', [...flags, '-o', 'pan', 'pan.c'], { cwd: BUILD, encoding: 'utf8' });
  if (cc.status !== 0) throw new Error(`gcc failed: ${cc.stderr}`);
  const r = timed('./pan', ['-m1000000', `-w${hashBits(args)}`], BUILD);
  const num = (re: RegExp): number | null => {
    const m = re.exec(r.stdout);
    return m === null ? null : Number(m[1]);
  };
  const errors = num(/errors: (\d+)/);
  const outOfMemory = /MEMLIM|out of memory/.test(r.stdout);
  const states = num(/([\d.e+]+) states, stored/);
  return {
    complete: errors === 0 && !outOfMemory,
    tool: `spin 6.5 (${args.spinPor ? 'POR' : 'no POR'}, exact store)`,
    states,
    standFor: states,
    seconds: r.seconds,
    rssMiB: r.rssMiB,
    note: outOfMemory
      ? `INCOMPLETE: out of its ${thousands(args.spinMemory)} MB (-DMEMLIM) after ${states === null ? '?' : thousands(states)} states stored`
      : `pan search ${num(/elapsed time ([\d.e+]+) seconds/) ?? '?'} s; errors: ${errors ?? '?'}`,
  };
}

function bench(args: Args): void {
  console.log(
    `SPIN comparison: best-effort/barrier, W=${args.workers} workers pushing 0..${args.parts} parts, 1 process, 1 interval (node ${process.version}; 2 shared cores: noisy)\n` +
      'the same protocol in two models: state counts are not comparable one to one (bench/spin/README.md); compare seconds\n',
  );
  const spinThere = has('spin') && has('gcc');
  if (!spinThere) {
    console.log('SPIN is not installed, so only our side runs. Install it with:  apt-get install -y spin   (Debian package spin, 6.5.2; needs gcc)\n');
  }
  const rows: string[][] = [];
  const ratios: string[] = [];
  for (const variant of args.variants) {
    const a = ours(args, variant);
    const b = spinThere ? spin(args, variant) : null;
    for (const m of b === null ? [a] : [a, b]) {
      rows.push([
        variant,
        m.tool,
        m.states === null ? '?' : thousands(m.states),
        m.standFor === null ? '?' : thousands(m.standFor),
        fixed(m.seconds, 2),
        m.rssMiB === null ? '?' : fixed(m.rssMiB, 0),
        m.states === null || m.seconds === 0 ? '?' : thousands(Math.round(m.states / m.seconds)),
        m.note,
      ]);
    }
    if (b !== null) {
      ratios.push(
        !a.complete
          ? `${variant}: sbkit did not complete within --max-seconds ${args.maxSeconds} (SPIN: ${fixed(b.seconds, 2)} s, ${b.complete ? 'complete' : 'incomplete'})`
          : !b.complete
            ? `${variant}: sbkit complete in ${fixed(a.seconds, 2)} s; SPIN did not complete (${b.note}, ${fixed(b.seconds, 2)} s)`
            : `${variant}: sbkit takes ${fixed(a.seconds / b.seconds, 2)}× SPIN's wall time (${fixed(a.seconds, 2)} s vs ${fixed(b.seconds, 2)} s` +
              (a.seconds < b.seconds ? `: ${fixed(b.seconds / a.seconds, 1)}× faster)` : ')'),
      );
    }
  }
  console.log(renderTable([col('variant', 'left'), col('tool', 'left'), col('states'), col('stand for'), col('wall s'), col('peak RSS MiB'), col('states/s'), col('note', 'left')], rows));
  console.log("\nstand for: sbkit's stored states stand for this many without its symmetry (each load vector's orbits, times the vectors it stands for); SPIN's are its own.");
  if (ratios.length > 0) console.log(`\n${ratios.join('\n')}`);
}

bench(parse(process.argv.slice(2)));
