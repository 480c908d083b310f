// What both mutation runs share (see mutation/CONTEXT.md). StrykerJS 9.6.x: the line that runs on Node 20.
//
// Mutated: impl/shared, impl/sink, impl/persist, without the real backends —
// pg-consensus.ts, pg-errors.ts, file-blob.ts, backends.ts, latency.ts. `sbkit check` runs on the
// in-memory stores by design (real I/O waits on sockets and timers, not on scheduling points), so it
// never loads them: each of their mutants would survive by construction and cost a full check. They
// are left out of the vitest score too, so the two scores are over the same code (their own tests,
// PostgreSQL included, run in `npm test`).
import { existsSync } from 'node:fs';

const REAL_BACKENDS = [
  '!impl/persist/pg-consensus.ts',
  '!impl/persist/pg-errors.ts',
  '!impl/persist/file-blob.ts',
  '!impl/persist/backends.ts',
  '!impl/persist/latency.ts',
];

/**
 * Scopes: `SBKIT_MUTATION_SCOPE=shared|sink|persist|all` (default all) picks the directories, and each
 * scope has its own incremental file and reports (.sbkit/mutation/<killer>-<scope>.*). Stryker writes
 * its incremental file only at the end of a run and only with that run's files, so a scope is the unit
 * that survives an interrupted session, and CI runs the scopes as parallel jobs.
 */
export const SCOPES = {
  shared: ['impl/shared/**/*.ts'],
  sink: ['impl/sink/**/*.ts'],
  persist: ['impl/persist/**/*.ts', ...REAL_BACKENDS],
  all: ['impl/shared/**/*.ts', 'impl/sink/**/*.ts', 'impl/persist/**/*.ts', ...REAL_BACKENDS],
};

/**
 * A targeted run: `SBKIT_MUTATE=impl/persist/shard-writer.ts:101-101,impl/persist/writer-registry.ts`
 * mutates only those files, or only the lines of Stryker's `file:from-to` ranges, inside the mutated
 * directories. Its scope is `targeted` (reports `.sbkit/mutation/<killer>-targeted.*`), and it is never
 * incremental: every mutant it names is run against the killer as it is now.
 */
export const targets = parseTargets(process.env.SBKIT_MUTATE);

function parseTargets(value) {
  if (value === undefined || value.trim() === '') return undefined;
  return value.split(',').map((raw) => {
    const t = raw.trim();
    const m = /^(impl\/(?:shared|sink|persist)\/[\w./-]+\.ts)(?::(\d+)-(\d+))?$/.exec(t);
    if (m === null || m[1].endsWith('.test.ts') || (m[2] !== undefined && Number(m[2]) > Number(m[3]))) {
      throw new Error(`SBKIT_MUTATE: ${JSON.stringify(t)} is not a file of impl/shared, impl/sink or impl/persist, optionally with a line range FROM-TO (FROM ≤ TO)`);
    }
    if (!existsSync(m[1])) throw new Error(`SBKIT_MUTATE: ${m[1]} does not exist (paths are relative to the repository root)`);
    return t;
  });
}

export const scope = targets !== undefined ? 'targeted' : (process.env.SBKIT_MUTATION_SCOPE ?? 'all');
if (targets === undefined && !Object.hasOwn(SCOPES, scope)) {
  throw new Error(`SBKIT_MUTATION_SCOPE must be one of ${Object.keys(SCOPES).join(', ')}, got ${JSON.stringify(scope)}`);
}

/** Where a killer's files for this scope go: `.sbkit/mutation/check-shared.incremental.json` … */
export const out = (killer, what) => `.sbkit/mutation/${killer}-${scope}.${what}`;

/** @type {Partial<import('@stryker-mutator/api/core').StrykerOptions>} */
export const base = {
  mutate: targets ?? [...SCOPES[scope], '!**/*.test.ts'],
  // A mutant that does not type-check is a CompileError, never run (TypeScript 5.9's classic API).
  checkers: ['typescript'],
  // Code that runs only with a gallery bug switched on is Ignored, with its reason (gallery-ignorer.mjs).
  plugins: ['@stryker-mutator/*', './mutation/gallery-ignorer.mjs'],
  ignorers: ['gallery'],
  tsconfigFile: 'tsconfig.json',
  typescriptChecker: { prioritizePerformanceOverAccuracy: true },
  // The machine is shared: one sandbox at a time (`--concurrency N` on the command line overrides).
  concurrency: 1,
  incremental: targets === undefined,
  // Nothing here is a gate: the score is reported, never a failed exit.
  thresholds: { high: 90, low: 75, break: null },
  // Not copied into the sandbox: local output, reports, the other engineers' scratch.
  // Anchored (gitignore syntax): a bare `report` would also drop explore/report/, the report's sources.
  ignorePatterns: ['/scratch', '/coverage', '/report', '/reports', '/.sbkit', '.stryker-tmp*', '/conformance/.emitted'],
  // One sandbox directory per scope: two scopes may run at once (one per core) without one run's
  // cleanup deleting the other's sandbox.
  tempDirName: `.stryker-tmp-${scope}`,
  cleanTempDir: 'always',
  reporters: ['clear-text', 'progress-append-only', 'html', 'json'],
  clearTextReporter: { allowColor: false, logTests: false, reportMutants: true, reportScoreTable: true },
};
