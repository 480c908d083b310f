import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BUG_NAMES } from '../vocab/index.ts';
import { COMMANDS, main } from './cli.ts';
import { captureIo } from './io.ts';
import { jobExitCode } from './job.ts';
import { runMain } from './main.ts';
import { DEFAULT_MODEL_CHECK, type ModelCheckResult } from './model-check.ts';
import { VARIANTS } from './variants/index.ts';

/** A small workload so every run here takes milliseconds. */
const SMALL = ['--workers', '4', '--intervals', '6', '--rows', '80'];

async function run(argv: readonly string[], opts: { tty?: boolean; cwd?: string } = {}) {
  const io = captureIo(opts);
  const code = await main(argv, io);
  return { code, out: io.stdout(), err: io.stderr() };
}

const dir = mkdtempSync(join(tmpdir(), 'sbkit-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('sbkit: dispatch and help', () => {
  it('prints usage and exits 2 without a command', async () => {
    const r = await run([]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('Usage: sbkit <command>');
  });

  it('lists every command under --help', async () => {
    const r = await run(['--help']);
    expect(r.code).toBe(0);
    for (const name of ['compare', 'check', 'model', 'bugs', 'report']) expect(r.out).toContain(`  ${name}`);
  });

  it.each(COMMANDS.map((c) => c.name))('%s --help exits 0 with its usage', async (name) => {
    const r = await run([name, '--help']);
    expect(r.code).toBe(0);
    expect(r.out).toContain(`Usage: sbkit ${name} [flags]`);
    expect(r.err).toBe('');
  });

  it('says the --shard convention the same way in every command that takes it (1-based I/N)', async () => {
    const { SHARD_CONVENTION } = await import('./args.ts');
    for (const name of ['check', 'model']) {
      const r = await run([name, '--help']);
      expect(r.out.replace(/\s+/g, ' '), name).toContain(SHARD_CONVENTION);
    }
    expect(SHARD_CONVENTION).toMatch(/^I\/N, 1-based/);
  });

  it.each([
    [['frob'], 'unknown command "frob"'],
    [['--workers', '3'], 'unknown flag --workers'],
    [['compare', '--bogus'], 'sbkit compare: unknown flag --bogus'],
    [['compare', '--workers', 'x'], 'sbkit compare: --workers: expected an integer from 1 to 128, got "x"'],
    [['compare', '--threshold', 'lots'], 'sbkit compare: --threshold: expected a byte size'],
    [['compare', '--variants', 'off,fast'], 'sbkit compare: --variants: expected one of off, best-effort, barrier, barrier-timeout, got "fast"'],
    [['compare', '--sweep', 'colour=1,2'], 'sbkit compare: --sweep: expected PARAM=V1,V2'],
    [['compare', '--sweep', 'workers=1,0'], 'sbkit compare: --sweep: workers=0: expected an integer from 1 to 128'],
    [['compare', '--scenario', 'panic'], 'sbkit compare: --scenario: expected one of steady, hydration'],
    [['compare', '--rows', '5000000', '--intervals', '2'], 'sbkit compare: --intervals × --rows: at most 5,000,000 updates'],
    [['compare', '--no-data', 'maybe'], 'sbkit compare: --no-data: expected one of default, skip, finish, both, got "maybe"'],
    [['check', '--variant', 'both'], 'sbkit check: --variant: expected one of off, best-effort, barrier, barrier-timeout, all'],
    [['check', '--runs', '0'], 'sbkit check: --runs: expected an integer from 1'],
    [['check', '--strategy', 'chaos'], 'sbkit check: --strategy: expected one of random, pct, mixed, steer'],
    [['check', '--jobs', '0'], 'sbkit check: --jobs: expected an integer from 1 to 256'],
    [['check', '--shard', '3/2'], 'sbkit check: --shard: expected I/N with 1 ≤ I ≤ N ≤ 4096'],
    [['check', '--shard', '0/2'], 'sbkit check: --shard: expected I/N with 1 ≤ I ≤ N ≤ 4096 (e.g. 2/4: the second of four shards), got "0/2"'],
    [['model', '--check', '--shard', '0/2'], 'sbkit model: --shard: expected I/N with 1 ≤ I ≤ N ≤ 4096 (e.g. 2/4: the second of four shards), got "0/2"'],
    [['check', '--shard', 'half'], 'sbkit check: --shard: expected I/N'],
    [['check', '--faults', '1.5'], 'sbkit check: --faults: expected a rate in [0, 1], got "1.5"'],
    [['check', '--faults', 'NaN'], 'sbkit check: --faults: expected a rate in [0, 1], got "NaN"'],
    [['check', '--faults', '-0.1'], 'sbkit check: --faults: expected a rate in [0, 1], got "-0.1"'],
    [['bugs', '--check=yes'], 'sbkit bugs: --check takes no value'],
    [['report', '--scenario', 'steady'], 'sbkit report: unknown flag --scenario'],
    [['model', 'extra'], 'sbkit model: unexpected argument "extra"'],
    [['compare', '--stragglers', '1.5'], 'sbkit compare: --stragglers: expected a probability from 0 to 1'],
    [['compare', '--stragglers', '0.1,0'], 'sbkit compare: --stragglers: SLOWDOWN: expected a factor from 1 to 100,000'],
    [['compare', '--sweep', 'stragglers=0,2'], 'sbkit compare: --sweep: stragglers=2: expected a probability'],
    [['model', '--coverage', '--check'], 'sbkit model: --coverage: cannot be combined with --check'],
    [['model', '--coverage', '--workers', '3'], 'sbkit model: --workers: only with --check'],
    [['model', '--runs', '3'], 'sbkit model: --runs: only with --coverage'],
    [['model', '--check', '--seed', '3'], 'sbkit model: --seed: only with --coverage'],
    [['model', '--emit-diagram', 'x.md'], 'sbkit model: --emit-diagram: only with --check'],
    [['model', '--check', '--processes', 'two'], 'sbkit model: --processes: expected an integer from 1 to 8, got "two"'],
  ])('%j exits 2 naming the problem', async (argv, message) => {
    const r = await run(argv);
    expect(r.code).toBe(2);
    expect(r.err).toContain(message);
    expect(r.out).toBe('');
  });
});

describe('sbkit compare', () => {
  it('prints one JSON object of the documented shape', async () => {
    const r = await run(['compare', ...SMALL, '--json']);
    expect(r.code).toBe(0);
    expect(r.err).toBe('');
    const parsed: unknown = JSON.parse(r.out);
    expect(parsed).toMatchObject({
      config: { scenario: 'steady', workers: 4, processes: 1, intervals: 6, rows: 80, threshold: 1048576, seed: 1, variants: ['off', 'best-effort', 'barrier', 'barrier-timeout'] },
    });
    const variants = (parsed as { variants: Record<string, unknown>[] }).variants;
    expect(variants.map((v) => v['variant'])).toEqual(['off', 'best-effort', 'barrier', 'barrier-timeout']);
    const keys = ['appends', 'partsPerAppend', 'batchesPerAppend', 'blobPuts', 'stateDiffBytes', 'consensusCommands', 'updatesWritten', 'updatesAppended', 'lost', 'duplicated', 'leakedBlobs'];
    for (const v of variants) for (const k of keys) expect(typeof v[k], k).toBe('number');
    for (const v of variants) expect([v['lost'], v['duplicated'], v['leakedBlobs']]).toEqual([0, 0, 0]);
    const barrier = variants.find((v) => v['variant'] === 'barrier');
    expect(barrier?.['partsPerAppend']).toBe(1);
  });

  it('is byte-identical for the same seed and differs for another', async () => {
    const a = await run(['compare', ...SMALL, '--seed', '9']);
    const b = await run(['compare', ...SMALL, '--seed', '9']);
    const c = await run(['compare', ...SMALL, '--seed', '10']);
    expect(a.code).toBe(0);
    expect(a.out).toBe(b.out);
    expect(a.out).not.toBe(c.out);
    expect(a.out).toMatch(/^scenario steady: 1 replica × 1 process × 4 workers/);
    expect(a.out).toContain('parts/append');
  });

  it('stays quiet on stderr on a TTY for short runs and with --json', async () => {
    const r = await run(['compare', ...SMALL, '--json'], { tty: true });
    expect(r.err).toBe('');
  });

  it('runs sweeps, as one table or one JSON object', async () => {
    const text = await run(['compare', ...SMALL, '--sweep', 'workers=1,2', '--variants', 'off,barrier']);
    expect(text.code).toBe(0);
    expect(text.out).toContain('sweep workers over 1, 2');
    const json = await run(['compare', ...SMALL, '--sweep', 'threshold=0,1MiB', '--sweep', 'workers=1,2', '--json']);
    const parsed = JSON.parse(json.out) as { sweeps: { parameter: string; points: { value: number; variants: unknown[] }[] }[] };
    expect(parsed.sweeps.map((s) => [s.parameter, s.points.map((p) => p.value)])).toEqual([
      ['threshold', [0, 1048576]],
      ['workers', [1, 2]],
    ]);
    expect(parsed.sweeps[0]?.points[0]?.variants).toHaveLength(4);
  });

  it('--no-data finish: workers with no data finish empty handles; the table counts them and the model agrees', async () => {
    // 8 workers and 8 updates per interval: about a third of the workers have no data in an interval.
    const argv = ['compare', '--workers', '8', '--intervals', '10', '--rows', '8', '--row-bytes', '5000', '--variants', 'best-effort,barrier'];
    const skip = await run([...argv, '--no-data', 'skip', '--json']);
    const finish = await run([...argv, '--no-data', 'finish', '--json']);
    expect(finish.code).toBe(0);
    type Row = { variant: string; partsPerAppend: number; modelAgrees: boolean; emptyFinishes?: { finished: number; received: number; skips: number } };
    const rowsOf = (out: string) => JSON.parse(out) as { config: Record<string, unknown>; variants: Row[] };
    const s = rowsOf(skip.out);
    const f = rowsOf(finish.out);
    expect(s.config['noData']).toBe('skip');
    expect(f.config['noData']).toBe('finish');
    for (const r of s.variants) expect(r.emptyFinishes).toBeUndefined();
    for (const r of f.variants) {
      expect(r.modelAgrees).toBe(true);
      expect(r.emptyFinishes?.finished ?? 0).toBeGreaterThan(0);
    }
    // The barrier makes one batch per process under either policy.
    expect(f.variants.find((r) => r.variant === 'barrier')?.partsPerAppend).toBe(1);
    const text = await run([...argv, '--no-data', 'finish']);
    expect(text.out).toMatch(/seed 1,\s+no-data finish\n/);
    expect(text.out).toContain('empty finishes');
    expect((await run(argv)).out).not.toContain('empty finishes');
  });

  it('--no-data both: each sharing variant under skip and under finish, side by side, with what each costs (empty finishes, skips)', async () => {
    const argv = ['compare', '--workers', '8', '--intervals', '10', '--rows', '8', '--row-bytes', '5000'];
    const both = await run([...argv, '--no-data', 'both', '--json']);
    expect(both.code).toBe(0);
    type Row = { variant: string; noData?: string; partsPerAppend: number; modelAgrees: boolean; emptyFinishes?: { finished: number; received: number; skips: number } };
    const rows = (JSON.parse(both.out) as { config: Record<string, unknown>; variants: Row[] }).variants;
    expect(rows.map((r) => `${r.variant}${r.noData === undefined ? '' : `/${r.noData}`}`)).toEqual(['off', 'best-effort/skip', 'best-effort/finish', 'barrier/skip', 'barrier/finish', 'barrier-timeout/skip', 'barrier-timeout/finish']);
    for (const r of rows) expect(r.modelAgrees).toBe(true);
    const row = (variant: string, noData: string) => rows.find((r) => r.variant === variant && r.noData === noData)?.emptyFinishes;
    // skip: no empty finish; the barrier reports the empty workers by skips. finish: no skip from them.
    expect(row('best-effort', 'skip')).toMatchObject({ finished: 0, skips: 0 });
    expect(row('barrier', 'skip')?.finished).toBe(0);
    expect(row('barrier', 'skip')?.skips).toBeGreaterThan(0);
    expect(row('barrier', 'finish')?.finished).toBeGreaterThan(0);
    expect(row('barrier', 'finish')?.skips).toBe(0);
    // Every barrier row is one batch per process whatever the policy.
    for (const r of rows.filter((x) => x.variant === 'barrier')) expect(r.partsPerAppend).toBe(1);
    const text = await run([...argv, '--no-data', 'both']);
    expect(text.out).toMatch(/seed 1,\s+no-data both\n/);
    expect(text.out).toMatch(/^barrier, no-data finish +\d/m);
    expect(text.out).toContain('skips');
    // The default (finish under the barrier, skip otherwise) shows no policy columns and no policy in the header.
    const plain = await run(argv);
    expect(plain.out).not.toContain('no-data');
    expect(plain.out).not.toContain('empty finishes');
  });

  it('shows the fallback in the hydration scenario', async () => {
    const r = await run(['compare', '--scenario', 'hydration', '--workers', '4', '--intervals', '2', '--rows', '2000', '--threshold', '64KiB', '--json']);
    expect(r.code).toBe(0);
    const rows = (JSON.parse(r.out) as { variants: { variant: string; threshold: number; partsPerAppend: number; maxBuilderShare: number }[] }).variants;
    expect(rows.map((x) => `${x.variant}@${x.threshold}`)).toEqual(['off@65536', 'best-effort@65536', 'barrier@65536', `barrier-timeout@65536`, `best-effort@${Number.MAX_SAFE_INTEGER}`, `barrier@${Number.MAX_SAFE_INTEGER}`, `barrier-timeout@${Number.MAX_SAFE_INTEGER}`]);
    const off = rows[0];
    for (const x of rows.slice(1, 3)) expect(x.partsPerAppend).toBe(off?.partsPerAppend);
    const unlimitedBarrier = rows[4];
    expect(unlimitedBarrier?.partsPerAppend).toBe(1);
    expect(unlimitedBarrier?.maxBuilderShare).toBe(1);
  });
});

describe('sbkit bugs and model', () => {
  it('lists the gallery', async () => {
    const r = await run(['bugs']);
    expect(r.code).toBe(0);
    for (const b of BUG_NAMES) expect(r.out).toContain(b);
  });

  it('prints the model as Mermaid', async () => {
    const list = await run(['model', '--list']);
    expect(list.code).toBe(0);
    const names = list.out.trim().split('\n');
    // the six machines the README documents, in its order
    expect(names).toEqual(['mint', 'worker', 'handle', 'builder', 'sweep', 'append']);
    const one = await run(['model', '--machine', names[0] ?? '']);
    expect(one.out.startsWith(`%% ${names[0]}\n`)).toBe(true);
    const none = await run(['model', '--machine', 'nope']);
    expect(none.code).toBe(2);
    const all = await run(['model', '--mermaid']);
    expect(all.code).toBe(0);
    for (const name of names) expect(all.out).toContain(`%% ${name}\nstateDiagram-v2\n`);
  });
});

describe('sbkit check', () => {
  it('runs the conformance check and exits by its verdict', async () => {
    const r = await run(['check', '--variant', 'barrier', '--runs', '5', '--seed', '3', '--jobs', '1']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('sbkit check: ok');
  });

  it('splits runs over worker threads and slices them over machines; a failure found there replays here', async () => {
    const sliced = await run(['check', '--variant', 'off', '--runs', '12', '--seed', '3', '--jobs', '2', '--shard', '1/2']);
    expect(sliced.code).toBe(0);
    expect(sliced.out).toContain('sbkit check: ok — 12 runs, variants off');
    expect(sliced.out).toContain('seed 3, 2 jobs, shard 1/2, strategy mixed');
    const found = await run(['check', '--bug', 'threshold-inclusive', '--seed', '4', '--jobs', '2', '--strategy', 'pct']);
    expect(found.code).toBe(1);
    const token = /replay: sbkit check --replay (\S+)/.exec(found.out)?.[1];
    expect(token).toBeDefined();
    const replayed = await run(['check', '--replay', token as string]);
    expect(replayed.code).toBe(1);
    expect(replayed.out).toContain('FAILED');
  });

  it('lists the same strategies as conformance/ (it keeps its own copy so --help loads nothing)', async () => {
    const { STRATEGIES } = await import('../conformance/schedule.ts');
    const r = await run(['check', '--help']);
    expect(r.out).toContain(`--strategy ${STRATEGIES.join('|')}`);
  });

  it('writes the counterexample as a vitest file with --emit-test, only when a check failed', async () => {
    const path = join(dir, 'counterexample.test.ts');
    const r = await run(['check', '--bug', 'threshold-inclusive', '--seed', '4', '--jobs', '1', '--emit-test', path]);
    expect(r.code).toBe(1);
    expect(r.out).toContain(`counterexample written as a vitest file: ${path}`);
    expect(readFileSync(path, 'utf8')).toContain('await runOnce(c.workload, c.schedule, c.bug)');
    const clean = join(dir, 'none.test.ts');
    expect((await run(['check', '--variant', 'off', '--runs', '3', '--seed', '4', '--jobs', '1', '--emit-test', clean])).code).toBe(0);
    expect(existsSync(clean)).toBe(false);
  });

  it('writes the counterexample as a Mermaid sequence diagram with --emit-diagram, only when a check failed', async () => {
    const path = join(dir, 'drop.md');
    const r = await run(['check', '--bug', 'drop-without-finish', '--seed', '1', '--emit-diagram', path]);
    expect(r.code).toBe(1);
    expect(r.out).toContain(`counterexample written as a sequence diagram: ${path}`);
    const md = readFileSync(path, 'utf8');
    expect(md).toMatch(/^# \S+ with bug drop-without-finish: shrunk counterexample/);
    expect(md).toContain('```mermaid\nsequenceDiagram\n');
    expect(md).toMatch(/ {4}W0_\d->>B0_0_0_1: \d+: drop without finish/);
    expect(md).toContain('Note over M0,S: ✘ model diverged: [refinement]');
    const clean = join(dir, 'none.mmd');
    expect((await run(['check', '--variant', 'off', '--runs', '3', '--seed', '4', '--emit-diagram', clean])).code).toBe(0);
    expect(existsSync(clean)).toBe(false);
  });

  it('writes the model check\'s shortest counterexample as a diagram', async () => {
    const path = join(dir, 'race.mmd');
    const r = await run(['model', '--check', '--variant', 'best-effort', '--model-bug', 'sweep-upgrade-race', '--emit-diagram', path]);
    expect(r.code).toBe(1);
    expect(r.out).toContain(`shortest counterexample written as a sequence diagram: ${path}`);
    const m = readFileSync(path, 'utf8');
    expect(m.startsWith('sequenceDiagram\n  title model best-effort with model bug sweep-upgrade-race: shortest counterexample to ')).toBe(true);
    expect(m).toContain("R0_0->>B0_0_0_1: 7: w1's builder(): sweep holds a reference");
    expect(m).toMatch(/Note over M0,S: ✘ always \S+ VIOLATED/);
    const none = await run(['model', '--check', '--variant', 'off', '--emit-diagram', join(dir, 'none2.mmd')]);
    expect(none.code).toBe(0);
    expect(none.out).toContain('no counterexample: no diagram written');
  });

  it('rejects a bad replay token with exit 2', async () => {
    const r = await run(['check', '--replay', 'not-a-token']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('--replay');
  });
});

describe('a run that breaks', () => {
  it('exits 3 with the deadlock message when a bug hangs the barrier (a handle dropped without finish)', async () => {
    const r = await run(['compare', ...SMALL, '--variants', 'barrier', '--bug', 'drop-without-finish']);
    expect(r.code).toBe(3);
    expect(r.err).toContain('sbkit compare: the run failed: deadlock');
  });
});

describe('the main job', () => {
  it('compares, checks and writes the report', async () => {
    const io = captureIo({ cwd: dir });
    const code = await runMain(io, {
      setup: { replicas: 1, processes: 1, workers: 4, intervals: 8, rows: 200, rowBytes: 100, threshold: 1 << 20, seed: 2 },
      runs: 3,
      sweepIntervals: 3,
      hydrationRows: 300,
      stragglers: { rows: 80, rowBytes: 100, intervals: 4, probabilities: [0, 0.5] },
      smallWritesRows: [30],
      smallWritesIntervals: 2,
      galleryBugs: ['drop-without-finish'],
      out: 'main/index.html',
    });
    const out = io.stdout();
    expect(out).toContain('== compare');
    expect(out).toContain('done criteria:');
    // the exhaustive model check runs after compare and before the conformance check, as a short table.
    expect(out.indexOf('== model check (npx sbkit model --check) ==')).toBeGreaterThan(out.indexOf('done criteria:'));
    expect(out.indexOf('== model check')).toBeLessThan(out.indexOf('== check (npx sbkit check'));
    expect(out).toMatch(/^best-effort +109 +\d+ +yes +8\/13 hold, 5 vacuous /m);
    expect(out).toContain('sbkit model --check: ok (4 variants, 386 states; every always/eventually property holds, 19 of them vacuously)');
    expect(out).toContain('sbkit check: ok');
    expect(out).toContain('report: main/index.html');
    expect(existsSync(join(dir, 'main', 'index.html'))).toBe(true);
    const html = readFileSync(join(dir, 'main', 'index.html'), 'utf8');
    expect(html).toContain('<h2 id="model-check">Model check (exhaustive)</h2>');
    for (const h of ['<h2 id="latency">Latency and stragglers</h2>', '<h2 id="small-writes">Small writes and compaction</h2>', '<h2 id="gallery">Counterexample gallery</h2>', '<h2 id="coverage">Model coverage</h2>']) {
      expect(html).toContain(h);
    }
    expect(html).toContain('<details class="gallery" id="bug-drop-without-finish" open>');
    expect(html).toContain('<details class="gallery" id="bug-model" open>');
    // three runs per variant cannot take every reachable transition: the coverage says so
    expect(out).toMatch(new RegExp(`^sbkit model --coverage: GAPS — ${2 * 3 * VARIANTS.length} conformance runs \\(seed 2\\)`, 'm')); // 3 runs per variant without faults, 3 with
    expect(out).toMatch(new RegExp(`^sbkit check: ok — ${3 * VARIANTS.length} runs, .*faults at 0\\.1: .* — all survived$`, 'm'));
    expect(html).toContain('<h2 id="faults">Faults, crashes and recovery</h2>');
    // both checks pass, but at 4 workers one part per append is 1/4 of off's PUTs, above the 20% bound:
    // the one missed criterion makes the job exit 1.
    expect(out.match(/^ {2}MISS .*$/gm)).toEqual([expect.stringMatching(/^ {2}MISS barrier blob PUTs at most 20% of off \(\d+ of \d+ = 2\d%\)$/)]);
    expect(code).toBe(1);
    expect(io.stderr()).toMatch(/^npm start: exit 1:\n {2}- violation: done-criterion missed: barrier blob PUTs at most 20% of off /m);
  });
});

describe('the job\'s exit code', () => {
  const model = (exitCode: 0 | 1): ModelCheckResult => ({ exitCode, variants: [], summary: `sbkit model --check: ${exitCode === 0 ? 'ok' : 'FAILED'}`, request: DEFAULT_MODEL_CHECK });
  const ok = { name: 'c', ok: true, detail: '' };
  const ran = (exitCode: number) => ({ kind: 'ran', exitCode, summary: '', output: '' }) as const;
  it('is 0 only when every criterion holds and every check that ran passed', () => {
    expect(jobExitCode([ok], model(0), ran(0))).toBe(0);
    expect(jobExitCode([ok], model(0), { kind: 'skipped', reason: 'x' })).toBe(0);
    expect(jobExitCode([ok, { ...ok, ok: false }], model(0), ran(0))).toBe(1);
    expect(jobExitCode([ok], model(1), ran(0))).toBe(1);
    expect(jobExitCode([ok], model(0), ran(1))).toBe(1);
  });
});
