/**
 * A planted fault, as a mutant would make it: a copy of the kit (source only, node_modules linked) in a
 * temporary directory with one textual change in one file, and `sbkit` run there. For faults a spy
 * cannot plant — private methods, module functions, a condition inside a loop — and to show that the
 * product's check itself, as a user runs it, fails on them.
 *
 * The change must match exactly once (else the test is wrong, not the implementation): `plant` throws
 * naming the file and how often the text occurs.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** What the copy leaves out: dependencies (linked instead), generated output, documentation and data. */
const NOT_COPIED = new Set(['node_modules', 'docs', 'report', 'scratch', 'coverage', 'bench']);
/** Every top-level file and folder of the kit but those and the hidden ones: a new folder of source is copied too. */
const COPIED = readdirSync(ROOT).filter((n) => !n.startsWith('.') && !NOT_COPIED.has(n));

export interface Planted {
  /** Runs `node bin/sbkit.js ARGS` in the copy: its exit code and what it printed. */
  sbkit(args: readonly string[]): { readonly code: number | null; readonly output: string };
  /** Runs a TypeScript module of the copy (`node --import tsx FILE ARGS`). */
  tsx(file: string, args: readonly string[]): { readonly code: number | null; readonly output: string };
  /** Removes the copy. */
  dispose(): void;
}

/** A textual change: `from` (occurring exactly once in `file`) replaced by `to`. */
export interface Change {
  readonly file: string;
  readonly from: string;
  readonly to: string;
}

export function plant(...changes: readonly Change[]): Planted {
  const dir = mkdtempSync(join(tmpdir(), 'sbkit-plant-'));
  for (const c of COPIED) cpSync(join(ROOT, c), join(dir, c), { recursive: true, filter: (src) => !src.endsWith('.test.ts') });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  for (const { file, from, to } of changes) {
    const path = join(dir, file);
    const text = readFileSync(path, 'utf8');
    const count = text.split(from).length - 1;
    if (count !== 1) {
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`plant: ${file} holds ${JSON.stringify(from)} ${count} times, not once`);
    }
    writeFileSync(path, text.replace(from, to));
  }
  const node = (args: readonly string[]): { code: number | null; output: string } => {
    const r = spawnSync(process.execPath, args, { cwd: dir, encoding: 'utf8', maxBuffer: 64 << 20 });
    return { code: r.status, output: `${r.stdout}${r.stderr}` };
  };
  return {
    sbkit: (args) => node(['bin/sbkit.js', ...args]),
    tsx: (file, args) => node(['--import', 'tsx', file, ...args]),
    dispose() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
