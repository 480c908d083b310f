// The gallery ignorer decides which mutants leave the mutation score: too wide, and production code
// escapes the check's judgement unseen; too narrow, and planted-bug code counts as the check's blind
// spot. The fixture cases pin each rule and its near misses; the impl/ walk pins what it takes today.
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseSync, traverse } from '@babel/core';
import { Instrumenter } from '@stryker-mutator/instrumenter';
import { galleryIgnorer, galleryReason } from './gallery-ignorer.mjs';

interface Region { readonly start: number; readonly end: number; readonly text: string; readonly reason: string }

/** Where Stryker's own instrumenter, with the ignorer plugged in, leaves mutants Ignored: `line:column`
 * (1-based lines, as babel's and the report's) of each mutant, split by whether it was ignored. Stryker
 * asks the ignorer on a tree it is rewriting (earlier siblings already hold their mutant switches), so
 * the plain-babel walk alone cannot show what a run ignores (it misses every guarded block). */
async function instrumented(files: readonly { name: string; content: string }[]): Promise<Map<string, { ignored: string[]; mutated: string[] }>> {
  const quiet = { debug() {}, info() {}, trace() {}, warn() {}, error() {}, fatal() {}, isDebugEnabled: () => false, isTraceEnabled: () => false, isInfoEnabled: () => false, isWarnEnabled: () => false, isErrorEnabled: () => false, isFatalEnabled: () => false };
  const instrumenter = new Instrumenter(quiet as never);
  const result = await instrumenter.instrument(files.map((f) => ({ ...f, mutate: true })), {
    plugins: null, excludedMutations: [], ignorers: [galleryIgnorer], noHeader: true,
  } as never);
  const out = new Map(files.map((f) => [f.name, { ignored: [] as string[], mutated: [] as string[] }]));
  for (const m of result.mutants) {
    const at = `${m.location.start.line + 1}:${m.location.start.column}`;
    const slot = out.get(m.fileName)!;
    (m.status === 'Ignored' ? slot.ignored : slot.mutated).push(at);
  }
  return out;
}

/** Mutant positions (`line:column`) that fall inside `regions` of `code`. */
function inside(code: string, regions: readonly Region[], positions: readonly string[]): string[] {
  const lineStarts = [0];
  for (let i = 0; i < code.length; i++) if (code[i] === '\n') lineStarts.push(i + 1);
  return positions.filter((p) => {
    const [line, column] = p.split(':').map(Number) as [number, number];
    const offset = lineStarts[line - 1]! + column;
    return regions.some((r) => offset >= r.start && offset < r.end);
  });
}

/** The ignored regions of `code`, walked as Stryker's instrumenter does (one active region at a time). */
function ignored(code: string, filename = 'x.ts'): Region[] {
  const ast = parseSync(code, { filename, babelrc: false, configFile: false, plugins: [['@babel/plugin-syntax-typescript']] });
  const out: Region[] = [];
  let active: unknown = null;
  traverse(ast, {
    enter(path) {
      if (active !== null) return;
      const why = galleryReason(path);
      if (why === undefined) return;
      active = path.node;
      const { start, end } = path.node as { start: number; end: number };
      out.push({ start, end, text: code.slice(start, end).split('\n')[0]!.trim(), reason: why });
    },
    exit(path) {
      if (path.node === active) active = null;
    },
  });
  return out;
}

const texts = (code: string): string[] => ignored(code).map((r) => r.text);

describe('gallery ignorer: the rules', () => {
  it('ignores the arm a switch guards, never the switch test itself', () => {
    expect(texts(`if (ctx.bugs.has('a')) { x(); } else { y(); }`)).toEqual(['{ x(); }']);
    expect(texts(`const f = bugs.has('b') ? p <= q : p < q;`)).toEqual(['p <= q']);
    expect(texts(`if (r.deps.bugs.has('c') && w === 0) { drop(); }`)).toEqual(['w === 0', '{ drop(); }']);
    expect(texts(`if (a && bugs.has('c')) z();`)).toEqual(['z();']);
    expect(ignored(`if (bugs.has('c')) z();`)[0]?.reason).toContain('gallery bug c switched on');
  });

  it('ignores what follows `if (!switch) return`, and only that', () => {
    expect(texts(`function f() { a(); if (!r.bugs.has('d')) return 1; b(); return 2; }`)).toEqual(['b();', 'return 2;']);
    expect(texts(`function f() { if (!bugs.has('d')) { log(); return 1; } b(); }`)).toEqual(['b();']);
    expect(texts(`function f() { if (!bugs.has('d')) log(); b(); }`)).toEqual([]); // no return: b() runs either way
    expect(texts(`function f() { if (!bugs.has('d')) return 1; else q(); b(); }`)).toEqual([]);
  });

  it('ignores a declaration whose comment says gallery-only', () => {
    expect(texts(`/** helper, gallery-only */\nfunction h() { return 1; }\nfunction k() { return 2; }`)).toEqual(['function h() { return 1; }']);
  });

  it('leaves production code: a negated switch, a disjunction, another `has`', () => {
    expect(texts(`const v = !bugs.has('e') ? clean() : bug();`)).toEqual([]);
    expect(texts(`if (n > 0 && !bugs.has('e')) { clean(); }`)).toEqual([]);
    expect(texts(`if (live || ctx.bugs.has('f')) { common(); }`)).toEqual([]);
    expect(texts(`if (set.has('g')) { a(); } if (x.bugz.has('g')) { b(); } if (bugs['has']('g')) { c(); }`)).toEqual([]);
    expect(texts(`const t = s.bugs.has('h'); if (t) { a(); }`)).toEqual([]);
  });
});

const IMPL = new URL('../impl/', import.meta.url).pathname;
function implFiles(dir = IMPL): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'test' || e.name === 'test-support' ? [] : implFiles(p);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [p] : [];
  });
}

describe('gallery ignorer: impl/', () => {
  const regions = implFiles().flatMap((file) => ignored(readFileSync(file, 'utf8'), file).map((r) => `${relative(IMPL, file)}: ${r.text}`));

  it("Stryker's instrumenter ignores exactly the mutants inside those regions, guarded blocks included", async () => {
    const files = implFiles().map((name) => ({ name, content: readFileSync(name, 'utf8') }));
    const seen = await instrumented(files);
    let ignoredCount = 0;
    for (const { name, content } of files) {
      const { ignored: got, mutated } = seen.get(name)!;
      const regionsHere = ignored(content, name);
      const rel = relative(IMPL, name);
      expect({ file: rel, ignored: got.sort() }).toEqual({ file: rel, ignored: inside(content, regionsHere, [...got, ...mutated]).sort() });
      ignoredCount += got.length;
    }
    // The guarded blocks (barrier-state's lost wakeup, sweep's upgrade race, write.ts's per-worker flag
    // read) hold most of them (73 today); without seeing through the switches the run ignored 39.
    expect(ignoredCount).toBeGreaterThan(60);
  });

  it('takes exactly the code behind gallery switches (a new region is a reviewed change)', () => {
    expect(regions).toEqual([
      'persist/gc.ts: return true;',
      'shared/barrier-state.ts: {',
      'shared/shared-batches.ts: 2 * skips',
      'shared/sweep.ts: {',
      'shared/sweep.ts: const entrySinkOf = (e: BuilderEntry, sweeper: RegistrySink): { entrySink?: number } => (e.sink === sweeper.sink ? {} : { entrySink: e.sink });',
      'shared/sweep.ts: function nextLiveAfter(entries: Map<string, BuilderEntry>, after: BuilderEntry | undefined): BuilderEntry | undefined {',
      'sink/append.ts: await deleteBestEffort(batches);',
      'sink/append.ts: async function deleteBestEffort(batches: readonly Batch[]): Promise<void> {',
      'sink/route.ts: bytes <= maxBytes',
      'sink/write.ts: []',
      "sink/write.ts: ''",
      'sink/write.ts: const { replica, policy } = r.settings;',
      'sink/write.ts: return policy.sharing && readBarrier(r.settings.barrier, { replica, lower: desc.lower, seq: desc.sharedId, desired: r.desired });',
      'sink/write.ts: worker === desc.appendWorker',
      'sink/write.ts: {',
      'sink/write.ts: null',
    ]);
  });

  it('never takes a switch test: turning a bug off or on stays a mutant the killer must kill', () => {
    for (const file of implFiles()) {
      const code = readFileSync(file, 'utf8');
      for (const r of ignored(code, file)) {
        expect(code.slice(r.start, r.end), relative(IMPL, file)).not.toMatch(/bugs\.has\(/);
      }
    }
  });
});
