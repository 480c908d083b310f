import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCheck } from './check.ts';
import { writeCounterexampleTest } from './emit.ts';

describe('counterexample as a standalone vitest file', () => {
  it('writes a test that replays the token and fails while the bug is on', async () => {
    const found = await runCheck({ variant: 'all', bug: 'threshold-inclusive', seed: 3 });
    const report = found.variants.find((v) => v.failed)?.report;
    expect(report).toBeDefined();
    if (report === undefined || found.token === undefined) return;
    const dir = join(import.meta.dirname, '.emitted');
    mkdirSync(dir, { recursive: true });
    const path = join(dir, 'threshold-inclusive.test.ts');
    try {
      writeCounterexampleTest(report, found.token, path);
      const source = readFileSync(path, 'utf8');
      expect(source).toContain(`decodeToken(${JSON.stringify(found.token)})`);
      expect(source).toContain("from '../harness.ts'");
      expect(source).toContain('[refinement]');
      let code = 0;
      try {
        execFileSync(join(process.cwd(), 'node_modules/.bin/vitest'), ['run', path], { stdio: 'pipe', cwd: process.cwd() });
      } catch (e) {
        code = (e as { status: number }).status;
      }
      expect(code).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
