/**
 * `npx tsx scripts/import-cycles.ts [--types]`: every import cycle among the project's own TypeScript
 * files (the folders of tsconfig.json); exit 1 if there is one. By default only imports that load code
 * count (`import type` / `export type` are erased at run time); `--types` counts those too. A static
 * reading of `import … from './x.ts'` and `export … from`, enough for this code base's relative imports.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const FOLDERS = ['vocab', 'random', 'impl', 'model', 'spec', 'conformance', 'explore', 'scripts'];

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : filesUnder(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

const withTypes = process.argv.includes('--types');
const files = FOLDERS.flatMap((f) => filesUnder(join(ROOT, f)));
const edges = new Map<string, string[]>();
for (const file of files) {
  const text = readFileSync(file, 'utf8');
  const targets = [...text.matchAll(/^\s*(?:import|export)\b([^'"]*?)from\s+['"](\.{1,2}\/[^'"]+)['"]/gm)]
    .filter((m) => withTypes || !/^\s*type\b/.test(m[1] ?? ''))
    .map((m) => [m[2] ?? ''] as const)
    .map(([target]) => resolve(dirname(file), target))
    .filter((t) => edges.has(t) || files.includes(t));
  edges.set(file, targets);
}

// Tarjan's strongly connected components: a component of more than one file is a cycle.
let index = 0;
const idx = new Map<string, number>();
const low = new Map<string, number>();
const stack: string[] = [];
const onStack = new Set<string>();
const cycles: string[][] = [];
function visit(v: string): void {
  idx.set(v, index);
  low.set(v, index++);
  stack.push(v);
  onStack.add(v);
  for (const w of edges.get(v) ?? []) {
    if (!idx.has(w)) {
      visit(w);
      low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
    } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) ?? 0, idx.get(w) ?? 0));
  }
  if (low.get(v) === idx.get(v)) {
    const scc: string[] = [];
    let w: string | undefined;
    do {
      w = stack.pop();
      if (w !== undefined) {
        onStack.delete(w);
        scc.push(w);
      }
    } while (w !== undefined && w !== v);
    if (scc.length > 1) cycles.push(scc.map((f) => relative(ROOT, f)).sort());
  }
}
for (const f of files) if (!idx.has(f)) visit(f);

if (cycles.length === 0) console.log(`import cycles${withTypes ? ' (type imports included)' : ''}: none among ${files.length} files`);
else for (const c of cycles) console.log(`import cycle: ${c.join(' ↔ ')}`);
process.exitCode = cycles.length === 0 ? 0 : 1;
