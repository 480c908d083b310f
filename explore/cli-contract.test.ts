/**
 * What a user and a CI job meet at the terminal: exit codes and their reasons, output paths checked before
 * any work, a counterexample never lost to a failed write, --replay's conflicts, --version, help texts
 * with real defaults, and each command's --json held to its schema in docs/reference/. The exit codes
 * and the early refusals go through the real binary (bin/sbkit.js); the rest calls `main` in-process.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { BUG_NAMES } from '../vocab/index.ts';
import { COMMANDS, main } from './cli.ts';
import { type Io, captureIo } from './io.ts';
import { type Schema, validate } from './json-schema.ts';

const ROOT = join(import.meta.dirname, '..');
const dir = mkdtempSync(join(tmpdir(), 'sbkit-contract-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The real binary: node bin/sbkit.js … (stdout, stderr, exit code). */
async function sbkit(argv: readonly string[]): Promise<{ code: number; out: string; err: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)('node', [join(ROOT, 'bin', 'sbkit.js'), ...argv], { cwd: dir, timeout: 60_000 });
    return { code: 0, out: stdout, err: stderr };
  } catch (e) {
    const x = e as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof x.code === 'number' ? x.code : -1, out: x.stdout ?? '', err: x.stderr ?? '' };
  }
}

async function run(argv: readonly string[], io = captureIo({ cwd: dir })) {
  const code = await main(argv, io);
  return { code, out: io.stdout(), err: io.stderr() };
}

const schema = (name: string): Schema => JSON.parse(readFileSync(join(ROOT, 'docs', 'reference', `${name}.schema.json`), 'utf8')) as Schema;

describe('the real binary: version, exit codes and their reasons', () => {
  it('--version and -V print the package version', async () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(await sbkit(['--version'])).toMatchObject({ code: 0, out: `sbkit ${version}\n`, err: '' });
    expect(await run(['-V'])).toMatchObject({ code: 0, out: `sbkit ${version}\n`, err: '' });
  });

  it('an incomplete search exits 4, a violation 1, each with its reason on stderr', async () => {
    const cut = await sbkit(['model', '--check', '--variant', 'off', '--max-states', '5']);
    expect(cut.code).toBe(4);
    expect(cut.out).toContain('sbkit model --check: INCOMPLETE (1 variant, 5 states)');
    expect(cut.err).toMatch(/^sbkit model: exit 4:\n {2}- incomplete: off: search incomplete, hit --max-states 5: .*\(raise --max-states/);
    const bug = await run(['model', '--check', '--variant', 'best-effort', '--model-bug', 'sweep-upgrade-race', '--max-states', '100']);
    expect(bug.code).toBe(1); // a violation outranks the incomplete search
    expect(bug.err).toMatch(/^ {2}- violation: best-effort: always no-batch-to-nobody VIOLATED/m);
    expect(bug.err).toMatch(/^ {2}- incomplete: best-effort: search incomplete/m);
  });

  it('checks every output path before any work: exit 2 naming the flag, the path and why', async () => {
    const binary = await sbkit(['check', '--bug', 'sweep-upgrade-race', '--seed', '1', '--emit-test', '/nonexistent/dir/x.test.ts']);
    expect(binary.code).toBe(2);
    expect(binary.err).toMatch(/^sbkit check: --emit-test: cannot write \/nonexistent\/dir\/x\.test\.ts: directory \/nonexistent\/dir does not exist$/m);
    expect(binary.out).toBe('');
    const cases: [string[], RegExp][] = [
      [['check', '--emit-diagram', dir], /^sbkit check: --emit-diagram: cannot write .*: .* is a directory \(a file name is needed\)$/m],
      [['report', '--out', '/dev/null/x/index.html'], /^sbkit report: --out: cannot write \/dev\/null\/x\/index\.html: \/dev\/null is a file, not a directory$/m],
      [['model', '--check', '--emit-diagram', '/nonexistent/race.md'], /^sbkit model: --emit-diagram: cannot write \/nonexistent\/race\.md: directory \/nonexistent does not exist$/m],
    ];
    for (const [argv, message] of cases) {
      const r = await run(argv);
      expect({ argv, code: r.code }).toEqual({ argv, code: 2 });
      expect(r.err).toMatch(message);
      expect(r.out).toBe('');
    }
  });
});

describe('a write that fails after the work', () => {
  it('prints the counterexample, its token and the failed checks first, then the write error: exit 3', async () => {
    // The directory exists when the flags are checked and is removed while the check runs (the
    // progress bar's first draw, on a terminal whose clock jumps a second per reading).
    const gone = join(dir, 'gone');
    mkdirSync(gone);
    const io = captureIo({ cwd: dir, tty: true, now: (() => { let t = 0; return () => (t += 1000); })() });
    const racing: Io = { ...io, err: (t) => { if (existsSync(gone)) rmSync(gone, { recursive: true }); io.err(t); } };
    const code = await main(['check', '--bug', 'sweep-upgrade-race', '--seed', '1', '--jobs', '1', '--emit-test', join(gone, 'x.test.ts')], racing);
    expect(code).toBe(3);
    const out = io.stdout();
    expect(out).toMatch(/^FAILED best-effort with bug sweep-upgrade-race/m);
    expect(out).toMatch(/^ {2}- \[refinement\] receiver-as-predicted: /m);
    expect(out).toMatch(/^replay: sbkit check --replay sb1\.\S+$/m);
    expect(out).toMatch(/^sbkit check: FAILED — /m);
    const err = io.stderr();
    expect(err).toMatch(/^ {2}- violation: best-effort: .*; replay: sbkit check --replay sb1\./m);
    expect(err).toMatch(/sbkit check: --emit-test: cannot write .*gone\/x\.test\.ts: ENOENT: /);
    expect(err.indexOf('- violation:')).toBeLessThan(err.indexOf('--emit-test: cannot write'));
  });
});

describe('sbkit check --replay', () => {
  it('refuses every flag the token fixes, naming them, and says what it kept', async () => {
    const found = await run(['check', '--bug', 'threshold-inclusive', '--seed', '4', '--jobs', '1', '--json']);
    const token = (JSON.parse(found.out) as { failures: { token: string }[] }).failures[0]?.token as string;
    const clash = await run(['check', '--replay', token, '--variant', 'barrier', '--bug', 'sweep-upgrade-race', '--runs', '50', '--seed', '3']);
    expect(clash.code).toBe(2);
    expect(clash.err).toContain('sbkit check: --replay: the token fixes the run; --variant, --runs, --seed, --bug cannot change it (only --emit-test, --emit-diagram and --json go with --replay)');
    for (const flag of [['--strategy', 'pct'], ['--faults'], ['--shard', '1/2'], ['--no-shrink'], ['--jobs', '2']]) {
      expect((await run(['check', '--replay', token, ...flag])).code, flag.join(' ')).toBe(2);
    }
    const replayed = await run(['check', '--replay', token]);
    expect(replayed.code).toBe(1);
    expect(replayed.out).toMatch(/^note: the replay token fixes variant (best-effort|barrier), bug threshold-inclusive, faults off, the workload and the schedule/m);
  });
});

describe('--json against docs/reference/*.schema.json', () => {
  it('the validator reports what breaks a schema', () => {
    const s: Schema = { type: 'object', required: ['a'], additionalProperties: false, properties: { a: { enum: [1, 2] }, b: { type: ['string', 'null'] } } };
    expect(validate(s, { a: 1, b: null })).toEqual([]);
    expect(validate(s, { a: 3, b: 2, c: 0 })).toEqual(['$.a: expected one of [1,2], got 3', '$.b: expected string or null, got integer', '$: unexpected c']);
    expect(validate(s, {})).toEqual(['$: missing a']);
    expect(validate({ pattern: 'x' }, 'x')).toEqual(['$: the schema uses pattern, which this validator does not check']);
  });

  it('sbkit check: a failure carries its token, failed checks, shrunk events, seed and replay command', async () => {
    const failed = await run(['check', '--bug', 'sweep-upgrade-race', '--seed', '1', '--jobs', '1', '--json']);
    expect(failed.code).toBe(1);
    const j = JSON.parse(failed.out) as { exitCode: number; seed: number; notes: string[]; failures: { token: string; replay: string; failed: { check: string }[]; events: string[]; seed: number }[] };
    expect(validate(schema('check'), j)).toEqual([]);
    expect(j).toMatchObject({ exitCode: 1, seed: 1, notes: ['--bug sweep-upgrade-race: checks best-effort only (where the bug can show; --variant to choose)'] });
    const f = j.failures[0];
    expect(f?.replay).toBe(`sbkit check --replay ${f?.token}`);
    expect(f?.failed.map((x) => x.check)).toContain('receiver-as-predicted');
    expect(f?.events.length).toBeGreaterThan(3);
    expect(f?.seed).toBe(1);
    const passed = await run(['check', '--variant', 'off', '--runs', '3', '--seed', '2', '--jobs', '1', '--json']);
    expect(passed.code).toBe(0);
    expect(validate(schema('check'), JSON.parse(passed.out))).toEqual([]);
    expect(JSON.parse(passed.out)).toMatchObject({ exitCode: 0, reasons: [], failures: [] });
  });

  it('sbkit check --bug X says what it changed: the variants narrowed, faults on for a fault-world bug', async () => {
    const r = await run(['check', '--bug', 'indeterminate-cas-deletes-batches', '--seed', '1', '--jobs', '1', '--runs', '1', '--no-shrink']);
    // it shows on every variant: nothing narrowed, but the fault world is switched on
    expect(r.out.match(/^note: .*$/gm)).toEqual(['note: --bug indeterminate-cas-deletes-batches: faults on at 0.1 (only the fault world shows it; --faults RATE to choose)']);
    const narrowed = await run(['check', '--bug', 'barrier-lost-wakeup', '--seed', '1', '--jobs', '1', '--runs', '1', '--no-shrink']);
    expect(narrowed.out.match(/^note: .*$/gm)).toEqual(['note: --bug barrier-lost-wakeup: checks barrier, barrier-timeout only (where the bug can show; --variant to choose)']);
    const chosen = await run(['check', '--bug', 'indeterminate-cas-deletes-batches', '--variant', 'off', '--faults', '0.2', '--seed', '1', '--jobs', '1', '--runs', '1', '--no-shrink']);
    expect(chosen.out).not.toContain('note: --bug');
  });

  it('sbkit model --check: every violated property with its shortest counterexample and the command that finds it', async () => {
    const r = await run(['model', '--check', '--variant', 'best-effort', '--model-bug', 'sweep-upgrade-race', '--json']);
    expect(r.code).toBe(1);
    const j = JSON.parse(r.out) as { failures: { property: string; events: string[]; command: string }[] };
    expect(validate(schema('model-check'), j)).toEqual([]);
    const f = j.failures.find((x) => x.property === 'no-loss-no-duplication');
    expect(f?.command).toBe('sbkit model --check --variant best-effort --model-bug sweep-upgrade-race');
    expect(f?.events.at(-1)).toMatch(/^r0 append \[0, 1\) .* → ok$/);
    const cut = await run(['model', '--check', '--variant', 'off', '--max-states', '5', '--json']);
    expect(cut.code).toBe(4);
    expect(validate(schema('model-check'), JSON.parse(cut.out))).toEqual([]);
  });

  it('sbkit bugs: each bug with its variants, fault world and description; with --check each verdict, a missed one named', async () => {
    const list = await run(['bugs', '--json']);
    expect(list.code).toBe(0);
    const j = JSON.parse(list.out) as { bugs: { name: string; variants: string[]; faultWorld: boolean }[] };
    expect(validate(schema('bugs'), j)).toEqual([]);
    expect(j.bugs.map((b) => b.name)).toEqual(BUG_NAMES);
    expect(j.bugs.find((b) => b.name === 'barrier-lost-wakeup')).toMatchObject({ variants: ['barrier', 'barrier-timeout'], faultWorld: false });
    expect(j.bugs.find((b) => b.name === 'indeterminate-cas-deletes-batches')).toMatchObject({ faultWorld: true });
    const text = await run(['bugs']);
    expect(text.out).toMatch(/^barrier-lost-wakeup +barrier, barrier-timeout +without faults\n {4}A barrier waiter/m);
    expect(text.out).toMatch(/^restart-rewrites-appended-interval +off, best-effort, barrier, barrier-timeout +fault world \(--faults\)$/m);
    // 30 runs per variant at seed 1 catch every bug but one: its miss is the exit's reason.
    const checked = await run(['bugs', '--check', '--runs', '30', '--no-shrink', '--json']);
    const c = JSON.parse(checked.out) as { exitCode: number; reasons: string[]; bugs: { name: string; check: { caught: boolean; failure: { replay: string } | null } }[] };
    expect(validate(schema('bugs'), c)).toEqual([]);
    const missed = c.bugs.filter((b) => !b.check.caught).map((b) => b.name);
    expect(checked.code).toBe(missed.length === 0 ? 0 : 1);
    expect(c.reasons).toEqual(missed.map((b) => expect.stringMatching(new RegExp(`^--check: ${b} went uncaught: .*\\(the check held with the bug on: another --seed, or more --runs than 30\\)$`))));
    for (const b of c.bugs.filter((x) => x.check.caught)) expect(b.check.failure?.replay).toMatch(/^sbkit check --replay sb1\./);
  });
});

describe('help texts', () => {
  it('show real defaults, never an internal name', async () => {
    for (const c of COMMANDS) {
      const r = await run([c.name, '--help']);
      expect(r.out, c.name).not.toMatch(/DEFAULT_[A-Z_]+/);
      expect(r.out, c.name).toContain('Exit codes: 0 every check held; 1 a violation');
    }
    expect((await run(['check', '--help'])).out).toMatch(/--runs N +random workloads × schedules per variant \(default: 500\)/);
    expect((await run(['report', '--help'])).out).toMatch(/--runs N .*\(default: 500\)/);
    expect((await run(['bugs', '--help'])).out).toMatch(/--runs N .*\(default: 500\)/);
    expect((await run(['model', '--help'])).out).toMatch(/--runs N .*\(default: 500\)/);
  });

  it('check --help explains the "orders, limits and paths reached" line', async () => {
    const r = await run(['check', '--help']);
    expect(r.out).toContain('orders, limits and paths reached (runs): how many runs took each interleaving or path the check');
  });

  it('crash-test --help offers only what it accepts (no in-memory store)', async () => {
    const r = await run(['crash-test', '--help']);
    expect(r.out).toMatch(/--consensus postgres:\/\/… /);
    expect(r.out).toMatch(/--blob file:DIR /);
    expect(r.out).not.toMatch(/\bmem\b/);
  });

  it('the budgets the flags name are the ones conformance/ runs', async () => {
    const { DEFAULT_CHECK_RUNS, DEFAULT_FAULT_RATE } = await import('./budgets.ts');
    expect(DEFAULT_CHECK_RUNS).toBe((await import('../conformance/check.ts')).DEFAULT_RUNS);
    expect(DEFAULT_FAULT_RATE).toBe((await import('../conformance/faults.ts')).DEFAULT_FAULT_RATE);
  });
});

describe('docs/guide/cli.md', () => {
  it('holds every command\'s flags table as the commands declare them', async () => {
    const { flagsTable } = await import('./cli-doc.ts');
    const doc = readFileSync(join(ROOT, 'docs', 'guide', 'cli.md'), 'utf8');
    for (const c of COMMANDS) expect(doc, `${c.name}: regenerate with npx tsx explore/cli-doc.ts --write`).toContain(flagsTable(c));
  });
});
