/**
 * Deep: `sbkit report`. A small report without the gallery — its JSON against the schema, its exit code
 * and reasons when a done-criterion misses and the model coverage is incomplete — and one with everything
 * in it: the conformance check and the fault world with the model coverage counted from their runs (a
 * few exhaustive searches of the model), and the gallery: every bug found by the check, shrunk and drawn,
 * and the model's review-bug counterexample. (The main job's report is cli.test.ts's.)
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BUG_NAMES } from '../vocab/index.ts';
import { main } from './cli.ts';
import { captureIo } from './io.ts';

const dir = mkdtempSync(join(tmpdir(), 'sbkit-cli-deep-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A small workload so every run here takes milliseconds. */
const SMALL = ['--workers', '4', '--intervals', '6', '--rows', '80'];

async function run(argv: readonly string[]) {
  const io = captureIo();
  const code = await main(argv, io);
  return { code, out: io.stdout(), err: io.stderr() };
}

describe('sbkit report', () => {
  it('writes a self-contained report, prints its path, and says in JSON and on stderr why it exits non-zero', async () => {
    const out = join(dir, 'sub', 'r.html');
    // the three variants the criteria below are about (a variant's own report section: the main job's test)
    const r = await run(['report', ...SMALL, '--variants', 'off,best-effort,barrier', '--sweep', 'workers=1,2', '--sweep-intervals', '3', '--runs', '3', '--hydration-rows', '400', '--threshold', '8KiB', '--out', out, '--json', '--skip-gallery']);
    const j = JSON.parse(r.out) as { exitCode: number; path: string; reasons: string[]; criteria: { name: string; ok: boolean; detail: string }[]; gallery: unknown };
    // the gallery (every bug found and drawn) is the main job's test's and the next test's: here its skipped section
    expect(j.gallery).toEqual({ ran: false, reason: '--skip-gallery was given' });
    const { validate } = await import('./json-schema.ts');
    const schema = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'docs', 'reference', 'report.schema.json'), 'utf8')) as Record<string, unknown>;
    expect(validate(schema, j)).toEqual([]);
    expect(j.path).toBe(out);
    expect(existsSync(out)).toBe(true);
    const html = readFileSync(out, 'utf8');
    expect(html).toContain('<svg');
    expect(html).toContain('Sweep: workers');
    expect(html).toContain('Hydration');
    expect(html).toContain('Not run: --skip-gallery was given');
    expect(html).not.toMatch(/<script|<link|src=/i);
    // 80 updates of ~100 B over 4 workers stay below the 4 KiB inline limit, so off writes no blob at all
    // while the barrier's combined part does: that criterion misses, and a missed criterion is exit 1.
    expect(j.criteria.filter((c) => !c.ok)).toEqual([{ name: 'barrier blob PUTs at most 20% of off', ok: false, detail: expect.stringMatching(/^\d+ of 0 = —$/) }]);
    expect(r.code).toBe(1);
    expect(j.exitCode).toBe(1);
    expect(j.reasons).toContainEqual(expect.stringMatching(/^done-criterion missed: barrier blob PUTs at most 20% of off \(/));
    // three runs per variant cannot take every reachable transition: incomplete, and the reason says the budget
    expect(j.reasons).toContainEqual(expect.stringMatching(/^model coverage: \d+ reachable transitions? never taken in 3 runs per variant .*\(a small budget: --runs 500, the default, takes every one\)$/));
    expect(r.err).toMatch(/^sbkit report: exit 1:\n {2}- violation: done-criterion missed: /);
    expect(r.err).toMatch(/^ {2}- incomplete: model coverage: /m);
    // the report's headline says the same, each line in the colour of what it says
    expect(html).toMatch(/<div class="findings missed"><p class="verdict"><strong class="miss">Failed: done-criterion missed: barrier blob PUTs/);
    expect(html).toMatch(/<strong class="warn">Incomplete: model coverage: /);
  });
});

describe('sbkit report, with the check and the gallery', () => {
  it('writes a self-contained report with the check, the fault world, the coverage and every gallery bug drawn', async () => {
    const out = join(dir, 'r.html');
    const io = captureIo();
    const code = await main(['report', '--workers', '4', '--intervals', '6', '--rows', '80', '--sweep', 'workers=1,2', '--sweep-intervals', '3', '--runs', '3', '--hydration-rows', '400', '--threshold', '8KiB', '--out', out], io);
    const stdout = io.stdout();
    expect(stdout).toContain(`report written to ${out}`);
    expect(existsSync(out)).toBe(true);
    const html = readFileSync(out, 'utf8');
    expect(html).toContain('<svg');
    expect(html).toMatch(/sbkit check: (ok|FAILED)/);
    expect(html).toContain('<h2 id="faults">Faults, crashes and recovery</h2>');
    expect(html).toContain('<h2 id="coverage">Model coverage</h2>');
    for (const bug of BUG_NAMES) expect(html, bug).toContain(`<details class="gallery" id="bug-${bug}" open>`);
    expect(html).not.toContain('the bug went unnoticed');
    expect(html).toContain('<details class="gallery" id="bug-model" open>');
    expect(html).not.toMatch(/<script|<link|src=/i);
    // 80 updates of ~100 B over 4 workers stay below the 4 KiB inline limit, so off writes no blob at all
    // while the barrier's combined part does: that criterion misses, and a missed criterion is exit 1.
    expect(stdout).toMatch(/^ {2}MISS barrier blob PUTs at most 20% of off \(\d+ of 0 = —\)$/m);
    expect(code).toBe(1);
  });
});
