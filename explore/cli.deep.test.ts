/**
 * Deep: `sbkit report` with everything in it. Beyond what cli.test.ts's report shows, the conformance
 * check and the fault world with the model coverage counted from their runs (a few exhaustive searches of
 * the model), and the gallery: every bug found by the check, shrunk and drawn, and the model's review-bug
 * counterexample.
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
