/**
 * The variant registries: one definition per variant and layer, the same variants everywhere, and a
 * variant's name spelled only in its own files — measured here on the tracked source files, so that a
 * new variant is its own files plus one line in each of the three registrations.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BUG_NAMES } from '../../vocab/index.ts';
import { IMPL_VARIANTS } from '../../impl/variants/index.ts';
import { MODEL_VARIANTS } from '../../model/variants/index.ts';
import { EXPLORE_VARIANTS } from './index.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** At most this many non-test source files may spell a variant's name (its meta, and a few places that
 * pick a variant by name: a benchmark's command line). */
const MAX_FILES_WITH_NAME = 4;
/** The registration files: all a new variant touches outside its own files (and tests and docs). */
const REGISTRATIONS = ['impl/variants/index.ts', 'model/variants/index.ts', 'explore/variants/index.ts'];

/** Lines where a name is a word of another meaning, not the variant. */
const OTHER_MEANINGS: readonly { readonly literal: string; readonly line: RegExp; readonly why: string }[] = [
  { literal: 'off', line: /'on'|coverageAnalysis|'--(symmetry|por)'|(symmetry|por|value) !== 'off'/, why: 'a switch turned off (--symmetry, --por, --spin-por, a flag shown on/off, Stryker)' },
  { literal: 'barrier', line: /names: 'barrier'|SCENARIOS = \[/, why: "RunConfig's field `barrier` (the flag) and the misuse scenario of the barrier state" },
];

/** Tracked source files that are not tests (what `git ls-files` lists: this checkout's tree). */
function sourceFiles(): string[] {
  const all = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0');
  return all.filter((f) => /\.(ts|mjs|js)$/.test(f) && !/\.test\.ts$/.test(f) && !f.includes('test-support/') && !f.startsWith('node_modules/'));
}

const readSource = (f: string): string => readFileSync(join(ROOT, f), 'utf8');

/** The files whose code spells `name` as a string literal, outside lines where the word means something else. */
function filesSpelling(name: string, files: readonly string[], read = readSource): string[] {
  // A string literal: '…' or "…" (a name in backticks is a doc comment's code span).
  const literal = new RegExp(`(['"])${name.replace(/-/g, '\\-')}\\1`);
  const others = OTHER_MEANINGS.filter((o) => o.literal === name);
  return files.filter((f) =>
    read(f)
      .split('\n')
      .some((line) => literal.test(line) && !others.some((o) => o.line.test(line))),
  );
}

/** The repository paths a file imports from (relative specifiers resolved against its directory). */
function importsOf(file: string, read = readSource): string[] {
  return [...read(file).matchAll(/from '(\.[^']+)'/g)].map((m) => posix.normalize(posix.join(posix.dirname(file), m[1] as string)));
}

describe('the variant registries', () => {
  it('list the same variants in the same order in impl/, model/ and explore/, each with the one meta of vocab/variants/', () => {
    const names = IMPL_VARIANTS.map((v) => v.meta.name);
    expect(MODEL_VARIANTS.map((v) => v.meta.name)).toEqual(names);
    expect(EXPLORE_VARIANTS.map((v) => v.meta.name)).toEqual(names);
    expect(new Set(names).size).toBe(names.length);
    for (const [i, v] of IMPL_VARIANTS.entries()) {
      expect(MODEL_VARIANTS[i]?.meta).toBe(v.meta);
      expect(EXPLORE_VARIANTS[i]?.meta).toBe(v.meta);
    }
  });

  it('agree between impl/ and model/ on what each variant does (independent definitions of one behaviour)', () => {
    for (const [i, v] of IMPL_VARIANTS.entries()) {
      const impl = v.policy({});
      const model = MODEL_VARIANTS[i]?.policy({});
      expect({ name: v.meta.name, sharing: model?.sharing, flag: model?.barrierByDefault, barrier: model?.barrier(3) }).toEqual({
        name: v.meta.name,
        sharing: impl.sharing,
        flag: impl.barrierByDefault,
        barrier: impl.barrier(3),
      });
    }
  });

  it('give every gallery bug a variant it shows under, and every option a unique flag and a valid default', () => {
    for (const bug of BUG_NAMES) expect(IMPL_VARIANTS.filter((v) => v.meta.galleryBugs.includes(bug)).length, bug).toBeGreaterThan(0);
    const flags = IMPL_VARIANTS.flatMap((v) => v.meta.options.map((o) => o.flag));
    expect(new Set(flags).size).toBe(flags.length);
    for (const { meta } of IMPL_VARIANTS) {
      expect(meta.meaning.length).toBeGreaterThan(0);
      for (const o of meta.options) expect(o.default >= 0 && (Number.isFinite(o.default) || o.inf), `${meta.name}.${o.name}`).toBe(true);
    }
  });

  it(`spell each variant's name in at most ${MAX_FILES_WITH_NAME} non-test source files, and nowhere in the registrations`, () => {
    const files = sourceFiles();
    expect(files.length).toBeGreaterThan(100);
    const counts: Record<string, readonly string[]> = {};
    for (const { meta } of IMPL_VARIANTS) counts[meta.name] = filesSpelling(meta.name, files);
    // The measurement, printed for the record (the report quotes it).
    console.log(Object.entries(counts).map(([name, fs]) => `${name}: ${fs.length} (${fs.join(', ')})`).join('\n'));
    for (const [name, fs] of Object.entries(counts)) {
      expect(fs.length, `${name}: ${fs.join(', ')}`).toBeLessThanOrEqual(MAX_FILES_WITH_NAME);
      expect(fs, name).toContain(`vocab/variants/${name}.ts`);
      for (const r of REGISTRATIONS) expect(fs, name).not.toContain(r);
    }
  });

  it("import a variant's layer definitions only from their layer's registration", () => {
    const files = sourceFiles();
    const imports = new Map(files.map((f) => [f, importsOf(f)]));
    for (const { meta } of IMPL_VARIANTS) {
      for (const layer of ['impl', 'model', 'explore']) {
        const own = `${layer}/variants/${meta.name}.ts`;
        expect(files, own).toContain(own);
        expect(files.filter((f) => imports.get(f)?.includes(own)), own).toEqual([`${layer}/variants/index.ts`]);
      }
    }
  });

  it('finds a name spelled outside its files, and an import of a definition past its registration (planted)', () => {
    const planted: Record<string, string> = {
      'vocab/variants/best-effort.ts': "export const bestEffortMeta = { name: 'best-effort' };",
      'explore/render.ts': "  if (c.variant === 'best-effort') return 'x';",
      'explore/report.ts': '  // best-effort shares, `best-effort`: a doc comment',
      'explore/commands/model.ts': "const onOff = choiceFlag<'on' | 'off'>();",
      'explore/job.ts': "import { bestEffort } from './variants/best-effort.ts';",
    };
    const read = (f: string): string => planted[f] ?? '';
    const files = Object.keys(planted);
    expect(filesSpelling('best-effort', files, read)).toEqual(['vocab/variants/best-effort.ts', 'explore/render.ts']);
    expect(filesSpelling('off', files, read)).toEqual([]);
    expect(importsOf('explore/job.ts', read)).toEqual(['explore/variants/best-effort.ts']);
  });
});
