/**
 * Output paths (`--emit-test`, `--emit-diagram`, `--out`), checked before any work starts, so that a
 * search of minutes never ends in a write that could not have worked: a missing directory, a file
 * where a directory is needed, a directory where a file is needed, no write permission. A write can
 * still fail afterwards (the directory removed meanwhile, a full disk): the commands print their
 * result first, then the write error (exit 3).
 */
import { accessSync, constants, statSync, type Stats } from 'node:fs';
import { dirname, resolve } from 'node:path';

type Probe = { readonly kind: 'file' | 'directory' } | { readonly kind: 'missing' } | { readonly kind: 'below-a-file' };

function probe(path: string): Probe {
  let st: Stats;
  try {
    st = statSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOTDIR') return { kind: 'below-a-file' };
    if (code === 'ENOENT') return { kind: 'missing' };
    throw e;
  }
  return { kind: st.isDirectory() ? 'directory' : 'file' };
}

const writable = (path: string): boolean => {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
};

/**
 * Why `path` (relative to `cwd`) cannot be written as a file, or undefined when it can. With
 * `makeDirs`, missing directories count as fine (the command creates them): then the nearest existing
 * ancestor must be a writable directory.
 */
export function outputProblem(path: string, cwd: string, opts: { readonly makeDirs?: boolean } = {}): string | undefined {
  const full = resolve(cwd, path);
  const self = probe(full);
  if (self.kind === 'directory') return `${full} is a directory (a file name is needed)`;
  if (self.kind === 'file') return writable(full) ? undefined : `${full} exists and is not writable`;
  let dir = dirname(full);
  let missing: string | undefined;
  for (;;) {
    const p = probe(dir);
    if (p.kind === 'file') return `${dir} is a file, not a directory`;
    if (p.kind === 'directory') break;
    // Missing (or below a file further up): climb until something exists.
    if (p.kind === 'missing' && missing === undefined) missing = dir;
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  if (missing !== undefined && opts.makeDirs !== true) return `directory ${missing} does not exist`;
  return writable(dir) ? undefined : `directory ${dir} is not writable`;
}

/** The first output flag whose path cannot be written, as a usage message naming the flag and the path; undefined if all can. */
export function outputFlagProblem(cwd: string, outputs: readonly (readonly [flag: string, path: string | undefined, opts?: { readonly makeDirs?: boolean }])[]): string | undefined {
  for (const [flag, path, opts] of outputs) {
    if (path === undefined) continue;
    const why = outputProblem(path, cwd, opts);
    if (why !== undefined) return `${flag}: cannot write ${path}: ${why}`;
  }
  return undefined;
}

/** A failed write in words: the path and the system's reason. */
export function describeWriteError(path: string, e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  return `cannot write ${path}: ${err.code === undefined ? '' : `${err.code}: `}${err.message ?? String(e)}`;
}
