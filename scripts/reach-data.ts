/**
 * What `sbkit check` did not reach, read from c8's istanbul JSON (`coverage-final.json`), and how it
 * compares with `docs/quality/unreached.md`. Pure functions: scripts/reach.ts does the running and the
 * printing, scripts/reach.test.ts checks these on hand-made coverage.
 *
 * c8 (v8-to-istanbul) writes one statement per source line and one "branch" per V8 block range (an `if`
 * arm, a `??` right-hand side, a `catch`, a function body), each with one location and one count. So:
 * - an unreached line is a statement with count 0; consecutive ones make a range;
 * - an unreached branch is a block with count 0. Most overlap an unreached line range (the `if` whose body
 *   never ran) and are that range; the rest are listed on their own: sub-line blocks (`a ?? b` where `b`
 *   never runs, `c ? x : y` with one arm never taken), and blocks whose lines c8 counts as run although
 *   the block's own count is 0 (v8-to-istanbul gives a line the count of the function around it when
 *   source maps move a block's edges: bytes.ts's non-ASCII `else` was one, measured).
 */

/** The part of c8's istanbul file coverage this reads. */
export interface FileCoverage {
  readonly path: string;
  readonly statementMap: Readonly<Record<string, { readonly start: { readonly line: number } }>>;
  readonly s: Readonly<Record<string, number>>;
  readonly branchMap: Readonly<
    Record<string, { readonly loc: { readonly start: { readonly line: number; readonly column: number }; readonly end: { readonly line: number; readonly column: number } } }>
  >;
  readonly b: Readonly<Record<string, readonly number[]>>;
}

/** One unreached item of a file: a range of lines, or a branch (a block) that overlaps no such range. */
export interface Unreached {
  /** Repository-relative path, e.g. `impl/sink/append.ts`. */
  readonly file: string;
  readonly from: number;
  readonly to: number;
  readonly kind: 'lines' | 'branch';
  /** `line:column-line:column` of a branch. */
  readonly at?: string;
}

/** Unreached line ranges and sub-line branches per file, files and items in source order. */
export function unreached(coverage: Readonly<Record<string, FileCoverage>>, root: string): Unreached[] {
  const out: Unreached[] = [];
  const prefix = root.endsWith('/') ? root : `${root}/`;
  for (const fc of Object.values(coverage).sort((a, b) => (a.path < b.path ? -1 : 1))) {
    const file = fc.path.startsWith(prefix) ? fc.path.slice(prefix.length) : fc.path;
    const missed = new Set<number>();
    for (const [id, loc] of Object.entries(fc.statementMap)) if (fc.s[id] === 0) missed.add(loc.start.line);
    const lines = [...missed].sort((a, b) => a - b);
    const items: Unreached[] = [];
    for (let i = 0; i < lines.length; ) {
      let j = i;
      while (j + 1 < lines.length && lines[j + 1] === (lines[j] ?? 0) + 1) j++;
      items.push({ file, from: lines[i] ?? 0, to: lines[j] ?? 0, kind: 'lines' });
      i = j + 1;
    }
    const lineItems = [...items];
    for (const [id, br] of Object.entries(fc.branchMap)) {
      if (!(fc.b[id] ?? []).includes(0)) continue;
      const { start, end } = br.loc;
      // A block that overlaps an unreached line range is that range's branch: listed once, as the lines.
      if (lineItems.some((l) => l.from <= end.line && start.line <= l.to)) continue;
      items.push({ file, from: start.line, to: end.line, kind: 'branch', at: `${start.line}:${start.column}-${end.line}:${end.column}` });
    }
    items.sort((a, b) => a.from - b.from || (a.kind === b.kind ? 0 : a.kind === 'lines' ? -1 : 1));
    out.push(...items);
  }
  return out;
}

/** A `path:from-to` (or `path:line`) reference in unreached.md, inside backticks. */
export interface DocRef {
  readonly file: string;
  readonly from: number;
  readonly to: number;
  /** The line of unreached.md it is on (1-based). */
  readonly docLine: number;
}

/** Every `` `impl/…ts:N` `` and `` `impl/…ts:N-M` `` of the document (whole-file mentions are not refs). */
export function docRefs(markdown: string): DocRef[] {
  const refs: DocRef[] = [];
  markdown.split('\n').forEach((text, i) => {
    for (const m of text.matchAll(/`(impl\/[^`:\s]+\.ts):(\d+)(?:-(\d+))?`/g)) {
      const from = Number(m[2]);
      refs.push({ file: m[1] ?? '', from, to: m[3] === undefined ? from : Number(m[3]), docLine: i + 1 });
    }
  });
  return refs;
}

const overlaps = (a: { file: string; from: number; to: number }, b: { file: string; from: number; to: number }): boolean =>
  a.file === b.file && a.from <= b.to && b.from <= a.to;

/** Where the document and the measurement disagree: unreached items nobody listed, refs nothing unreached backs. */
export interface Drift {
  readonly unlisted: readonly Unreached[];
  readonly stale: readonly DocRef[];
}

export function drift(items: readonly Unreached[], refs: readonly DocRef[]): Drift {
  return {
    unlisted: items.filter((u) => !refs.some((r) => overlaps(u, r))),
    stale: refs.filter((r) => !items.some((u) => overlaps(u, r))),
  };
}

/** `impl/x.ts:3-5` or `impl/x.ts:3`. */
export const refText = (r: { file: string; from: number; to: number }): string => `${r.file}:${r.from}${r.to === r.from ? '' : `-${r.to}`}`;
