/**
 * FileBlob: the Blob interface (blob.ts) on a local directory, one file per key — persist's local
 * file blob, with the crash safety S3 gives for free.
 *
 * Invariants:
 * - a crash at any moment leaves each key either whole (the old or the new bytes) or absent: bytes go
 *   to a temp file that is fsynced and only then given the key's name — `rename` for `set` (atomic
 *   replace), `link` for `setIfAbsent` (atomic create-if-absent: it fails with EEXIST when the name
 *   exists, so of two racing writers, in one process or several, exactly one wins) — and the
 *   directory is fsynced after every name change (set, setIfAbsent, delete);
 * - temp files start with `.` and no key's file name does, so a temp file left by a killed writer is
 *   never a key (`list` skips every dot file);
 * - key ↔ file name is a bijection: bytes outside [A-Za-z0-9_.-] are written %XX (UTF-8, upper-case
 *   hex), and so is a leading `.`; `/` therefore never reaches the file system, and `.`/`..` cannot
 *   be names;
 * - `list` returns keys ascending (JavaScript string order, as MemBlob): the regular files whose
 *   names keyFileName produces; temp files, other dot files, directories and foreign names are skipped.
 *
 * Failures: a missing directory, a path that is not a directory and a directory we cannot write
 * (read-only file system, permissions) are `storage-permanent` naming the path, at open and at every
 * call; running out of space or file handles before the name change is `storage-transient` (nothing
 * took effect); a failed directory fsync after the name change is `storage-indeterminate` (the name
 * exists but may not survive a crash).
 */
import { randomBytes } from 'node:crypto';
import { constants, promises as fs } from 'node:fs';
import path from 'node:path';
import { SbkitError, show, type StorageFailureCode } from '../errors.ts';
import { loneSurrogateAt } from '../update.ts';
import type { Blob, BlobStats } from './blob.ts';

/** Longest file name (bytes) on the file systems we expect (ext4, xfs, tmpfs, btrfs). */
const MAX_NAME_BYTES = 255;
const PLAIN = /[A-Za-z0-9_.-]/;

/** The file name of `key` (the inverse of fileNameKey). */
export function keyFileName(key: string): string {
  if (typeof key !== 'string' || key === '') throw new SbkitError('invalid-blob-key', `a blob key must be a non-empty string, got ${show(key)}`);
  if (loneSurrogateAt(key) >= 0) throw new SbkitError('invalid-blob-key', `blob key ${show(key)} is not well-formed UTF-16 (a lone surrogate)`);
  let name = '';
  for (const ch of key) {
    if (PLAIN.test(ch) && !(ch === '.' && name === '')) name += ch;
    else for (const byte of Buffer.from(ch, 'utf8')) name += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  if (name.length > MAX_NAME_BYTES) {
    throw new SbkitError('invalid-blob-key', `blob key ${show(key)} is too long for a file name (${name.length} bytes encoded, at most ${MAX_NAME_BYTES})`);
  }
  return name;
}

/** The key a file name stands for, or undefined when the name is not one keyFileName produces. */
export function fileNameKey(name: string): string | undefined {
  if (name === '' || name.startsWith('.') || !/^(?:[A-Za-z0-9_.-]|%[0-9A-F]{2})+$/.test(name)) return undefined;
  const bytes: number[] = [];
  for (let i = 0; i < name.length; ) {
    if (name[i] === '%') {
      bytes.push(Number.parseInt(name.slice(i + 1, i + 3), 16));
      i += 3;
    } else {
      bytes.push(name.charCodeAt(i));
      i += 1;
    }
  }
  const key = new TextDecoder('utf-8', { fatal: false }).decode(new Uint8Array(bytes));
  // Canonical names only: one key, one name (a needless %41 for `A`, or bad UTF-8, is not ours).
  try {
    return keyFileName(key) === name ? key : undefined;
  } catch {
    return undefined;
  }
}

function errnoOf(e: unknown): string | undefined {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Failures of one file that no retry fixes (a directory where the key's file should be …). */
const PERMANENT_ERRNO = new Set(['EISDIR', 'ENAMETOOLONG', 'EINVAL', 'ELOOP']);

/** When a file operation failed: `before` the key's name changed (nothing took effect), `after` it
 * (only the directory fsync was left), or during a `read`. */
export type FsWhen = 'before' | 'after' | 'read';

/** How a failed file operation maps onto the storage-failure taxonomy (errno as Node reports it). */
export function classifyFsError(dir: string, errno: string | undefined, when: FsWhen): { readonly code: StorageFailureCode; readonly why: string } {
  const e = errno ?? 'unknown error';
  if (e === 'ENOENT' || e === 'ENOTDIR') return { code: 'storage-permanent', why: `blob directory ${show(dir)} does not exist or is not a directory` };
  if (e === 'EROFS') return { code: 'storage-permanent', why: `blob directory ${show(dir)} is on a read-only file system` };
  if (e === 'EACCES' || e === 'EPERM') return { code: 'storage-permanent', why: `blob directory ${show(dir)} is not writable (${e})` };
  if (when === 'after') return { code: 'storage-indeterminate', why: `the name changed but the directory fsync failed (${e}): it may not survive a crash` };
  return {
    code: PERMANENT_ERRNO.has(e) ? 'storage-permanent' : 'storage-transient',
    why: when === 'read' ? `reading failed (${e})` : `nothing took effect (${e})`,
  };
}

export class FileBlob implements Blob {
  readonly stats: BlobStats = { gets: 0, sets: 0, setBytes: 0, deletes: 0, lists: 0 };
  /** The directory, absolute. */
  readonly dir: string;
  #tempSeq = 0;
  readonly #tempPrefix: string;

  /** Checks that `dir` exists, is a directory and takes a durable write (a probe file, removed). */
  static async open(dir: string): Promise<FileBlob> {
    if (typeof dir !== 'string' || dir === '') throw new SbkitError('invalid-backend', `blob directory must be a non-empty path, got ${show(dir)}`);
    const blob = new FileBlob(path.resolve(dir));
    let stat;
    try {
      stat = await fs.stat(blob.dir);
    } catch (e) {
      throw blob.#error('open', e, 'before');
    }
    if (!stat.isDirectory()) throw new SbkitError('storage-permanent', `blob path ${show(blob.dir)} is not a directory`);
    const probe = blob.#tempPath();
    try {
      await blob.#writeDurably(probe, new Uint8Array(0));
    } catch (e) {
      throw blob.#error('open (write probe)', e, 'before');
    } finally {
      await fs.rm(probe, { force: true }).catch(() => {});
    }
    return blob;
  }

  private constructor(dir: string) {
    this.dir = dir;
    this.#tempPrefix = `.tmp-${process.pid}-${randomBytes(4).toString('hex')}-`;
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    this.stats.gets += 1;
    const file = this.#file(key);
    try {
      const bytes = await fs.readFile(file);
      return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    } catch (e) {
      if (errnoOf(e) === 'ENOENT' && (await this.#dirExists())) return undefined;
      throw this.#error(`get(${show(key)})`, e, 'read');
    }
  }

  async set(key: string, value: Uint8Array): Promise<void> {
    this.stats.sets += 1;
    this.stats.setBytes += value.length;
    const file = this.#file(key);
    const temp = this.#tempPath();
    try {
      await this.#writeDurably(temp, value);
      await fs.rename(temp, file);
    } catch (e) {
      await fs.rm(temp, { force: true }).catch(() => {});
      throw this.#error(`set(${show(key)})`, e, 'before');
    }
    await this.#syncDir(`set(${show(key)})`);
  }

  async setIfAbsent(key: string, value: Uint8Array): Promise<boolean> {
    const file = this.#file(key);
    const temp = this.#tempPath();
    let linked: boolean;
    try {
      await this.#writeDurably(temp, value);
      linked = await fs.link(temp, file).then(
        () => true,
        (e: unknown) => {
          if (errnoOf(e) === 'EEXIST') return false;
          throw e;
        },
      );
    } catch (e) {
      throw this.#error(`setIfAbsent(${show(key)})`, e, 'before');
    } finally {
      await fs.rm(temp, { force: true }).catch(() => {});
    }
    if (!linked) return false;
    this.stats.sets += 1;
    this.stats.setBytes += value.length;
    await this.#syncDir(`setIfAbsent(${show(key)})`);
    return true;
  }

  async delete(key: string): Promise<boolean> {
    this.stats.deletes += 1;
    const file = this.#file(key);
    try {
      await fs.unlink(file);
    } catch (e) {
      if (errnoOf(e) === 'ENOENT' && (await this.#dirExists())) return false;
      throw this.#error(`delete(${show(key)})`, e, 'before');
    }
    await this.#syncDir(`delete(${show(key)})`);
    return true;
  }

  async list(): Promise<string[]> {
    this.stats.lists += 1;
    let entries;
    try {
      entries = await fs.readdir(this.dir, { withFileTypes: true });
    } catch (e) {
      throw this.#error('list()', e, 'read');
    }
    const keys: string[] = [];
    for (const entry of entries) {
      const key = entry.isFile() ? fileNameKey(entry.name) : undefined;
      if (key !== undefined) keys.push(key);
    }
    return keys.sort();
  }

  #file(key: string): string {
    return path.join(this.dir, keyFileName(key));
  }

  #tempPath(): string {
    this.#tempSeq += 1;
    return path.join(this.dir, `${this.#tempPrefix}${this.#tempSeq}`);
  }

  /** Creates `file` (never an existing one), writes all of `value`, fsyncs and closes it. */
  async #writeDurably(file: string, value: Uint8Array): Promise<void> {
    const handle = await fs.open(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o644);
    try {
      await handle.writeFile(value);
      await handle.sync();
    } finally {
      await handle.close();
    }
  }

  async #syncDir(what: string): Promise<void> {
    try {
      const handle = await fs.open(this.dir, 'r');
      try {
        await handle.sync();
      } finally {
        await handle.close();
      }
    } catch (e) {
      throw this.#error(what, e, 'after');
    }
  }

  async #dirExists(): Promise<boolean> {
    return fs.stat(this.dir).then(
      (s) => s.isDirectory(),
      () => false,
    );
  }

  #error(what: string, e: unknown, when: FsWhen): SbkitError {
    const { code, why } = classifyFsError(this.dir, errnoOf(e), when);
    const detail = e instanceof Error ? e.message : String(e);
    return new SbkitError(code, `blob ${show(this.dir)}: ${what}: ${why}: ${detail}`, { cause: e });
  }
}
