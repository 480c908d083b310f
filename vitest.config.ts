import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { defineConfig, type TestProjectConfiguration } from 'vitest/config';

// Two tiers. `npm test` runs this config: every `*.test.ts` but the `*.deep.test.ts`, with the coverage
// gate. `npm run test:deep` (vitest.deep.config.ts) runs the `*.deep.test.ts`: the long exhaustive and
// parallel searches, the large budgets, each file saying why it is deep. `.ci/run` runs both.
export const DEEP_TESTS = '**/*.deep.test.ts';
// .stryker-tmp: the sandboxes of a mutation run in progress (mutation/) hold a copy of every test.
export const NOT_TESTS = ['node_modules/**', 'scratch/**', 'report/**', '.stryker-tmp*/**'];

// The PostgreSQL tests run when a server is there (env SBKIT_PG_URL, or the URL `npm run pg:start`
// wrote); without one they skip, printing why, and PgConsensus — which only they reach — leaves the
// coverage gate rather than failing it. `.ci/run` starts the server, so CI covers it.
const pgAvailable = (process.env['SBKIT_PG_URL'] ?? '') !== '' || existsSync(new URL('.sbkit/pg/url', import.meta.url));

/** The settings both tiers share. */
export const TIER = {
  // One test file per core. vitest's default, cores − 1 (a core kept for its own process), is one file at
  // a time on a 2-core machine, while that process mostly waits; two forks keep both cores busy.
  maxWorkers: availableParallelism(),
  // No test depends on wall-clock speed: every search and check is bounded by its budget in runs or
  // states, and a run that cannot finish reports a deadlock instead of waiting. A slow or busy machine
  // makes the suite slower, never red, so there is no per-test time limit. This one guard is only
  // against a true hang (a bug that awaits forever), far above any test's time on a loaded machine.
  testTimeout: 30 * 60_000,
  hookTimeout: 30 * 60_000,
};

/**
 * The test files of a tier (`deep`: the `*.deep.test.ts`, else the others) that mock a module (`vi.mock`,
 * `vi.doMock`): they run each in a process of its own. The others share their fork's modules from file
 * to file (`isolate: false`): the kit is loaded and compiled by the JIT once per fork rather than once
 * per file (the fast tier's time nearly halves on two cores, the deep tier's falls by a tenth or more). A module mock needs a fresh module graph, so those
 * files stay isolated; found by reading the files, so a new mocking test is isolated without a word
 * here. (A test that changes process-wide state — a spy, an environment variable — restores it, as every
 * test here does.)
 */
export function mockingTests(deep: boolean): string[] {
  const root = new URL('.', import.meta.url);
  const skipped = new Set(NOT_TESTS.map((p) => p.split('/')[0]));
  return readdirSync(root, { withFileTypes: true })
    .filter((d) => !d.name.startsWith('.') && !skipped.has(d.name))
    .flatMap((d) => (d.isDirectory() ? readdirSync(new URL(`${d.name}/`, root), { recursive: true, encoding: 'utf8' }).map((f) => `${d.name}/${f}`) : [d.name]))
    .filter((f) => f.endsWith('.test.ts') && f.endsWith('.deep.test.ts') === deep)
    .filter((f) => /\bvi\.(mock|doMock)\(/.test(readFileSync(new URL(f, root), 'utf8')))
    .sort();
}

/** A tier's files as two projects: those that mock a module isolated, the rest sharing modules. */
export function tierProjects(include: string, exclude: readonly string[], isolated: readonly string[]): TestProjectConfiguration[] {
  return [
    { extends: true, test: { name: 'shared', include: [include], exclude: [...NOT_TESTS, ...exclude, ...isolated], isolate: false } },
    { extends: true, test: { name: 'isolated', include: [...isolated], exclude: NOT_TESTS } },
  ];
}

// The coverage gate: vitest's V8 provider fails the run, with a clear message, when a threshold is
// missed. c8 wrapped around `vitest run` is no gate: measured with c8 12.0.0 and vitest 4.1.12, it
// reported no data with the default `forks` pool and too high numbers with `threads`, and exited 0
// both times. (c8 around a plain `tsx` script is correct: scripts/reach.ts uses it.)
const coverage = {
  provider: 'v8' as const,
  include: ['impl/**/*.ts', 'model/**/*.ts', 'spec/**/*.ts', 'conformance/**/*.ts'],
  // The benchmark entry scripts of `npm run bench` print figures and are never run by a test.
  exclude: ['**/*.test.ts', '**/test-support/**', 'conformance/bench-speed.ts', 'conformance/gallery-stats.ts', ...(pgAvailable ? [] : ['impl/persist/pg-consensus.ts'])],
  reporter: ['text-summary'],
  thresholds: { lines: 95, branches: 90 },
};

// SBKIT_VITEST_ISOLATE=1 (mutation/vitest.stryker.mjs sets it): every file isolated, one project —
// Stryker's vitest runner adds its per-test coverage hooks to the config it is given.
const oneProject = process.env['SBKIT_VITEST_ISOLATE'] === '1';

export default defineConfig({
  test: {
    ...TIER,
    coverage,
    ...(oneProject ? { include: ['**/*.test.ts'], exclude: [...NOT_TESTS, DEEP_TESTS] } : { projects: tierProjects('**/*.test.ts', [DEEP_TESTS], mockingTests(false)) }),
  },
});
