/**
 * FileBlob: the shared Blob contract (with MemBlob), its key ↔ file name mapping, crash safety with a
 * writer SIGKILLed mid-write, and typed errors for a missing, non-directory or read-only directory.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, promises as fs, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { isSbkitError } from '../errors.ts';
import { MemBlob } from '../persist/blob.ts';
import { classifyFsError, FileBlob, fileNameKey, keyFileName } from '../persist/file-blob.ts';
import { blobContract } from '../test-support/blob-contract.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const CHILD = path.join(HERE, '..', 'test-support', 'file-blob-child.ts');
// node itself (not the tsx wrapper, which would survive as a parent while its child is killed).
const NODE_TS = [process.execPath, '--import', 'tsx'] as const;

const scratch = mkdtempSync(path.join(os.tmpdir(), 'sbkit-file-blob-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let dirs = 0;
async function freshDir(): Promise<string> {
  const dir = path.join(scratch, `d${(dirs += 1)}`);
  await fs.mkdir(dir);
  return dir;
}

blobContract('MemBlob', async () => new MemBlob());
blobContract('FileBlob', async () => FileBlob.open(await freshDir()));

describe('FileBlob key ↔ file name', () => {
  it('is a bijection onto names without /, not starting with ., made of [A-Za-z0-9_.%-]', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }), (key) => {
        const name = keyFileName(key);
        expect(name).toMatch(/^[A-Za-z0-9_%-][A-Za-z0-9_.%-]*$/);
        expect(fileNameKey(name)).toBe(key);
      }),
      { seed: 12, numRuns: 500 },
    );
    expect(keyFileName('w0-r0/part-3')).toBe('w0-r0%2Fpart-3');
    expect(keyFileName('.a.b')).toBe('%2Ea.b');
    expect(keyFileName('..')).toBe('%2E.');
  });

  it('names that no key maps to are not keys: temp files, non-canonical escapes, bad UTF-8', () => {
    for (const name of ['.tmp-1-ab-1', '.x', '%41', 'a%2f', 'a%2', 'a%zz', '%FF', 'a/b', 'a b', '']) expect(fileNameKey(name)).toBeUndefined();
  });

  it('refuses keys no file can hold, with invalid-blob-key', () => {
    expect(() => keyFileName('')).toThrow(expect.objectContaining({ code: 'invalid-blob-key', message: expect.stringMatching(/non-empty/) }));
    expect(() => keyFileName('a\uD800b')).toThrow(/lone surrogate/);
    expect(() => keyFileName('🙂'.repeat(30))).toThrow(/too long for a file name \(360 bytes encoded, at most 255\)/);
    expect(() => keyFileName(42 as unknown as string)).toThrow(expect.objectContaining({ code: 'invalid-blob-key' }));
  });
});

describe('FileBlob on disk', () => {
  it('leaves exactly one file per key, no temp files, and skips strays, dot files, directories and foreign names', async () => {
    const dir = await freshDir();
    const b = await FileBlob.open(dir);
    await b.set('w0-r0/part-0', new Uint8Array([1]));
    await b.setIfAbsent('w0-r0/part-1', new Uint8Array([2]));
    await b.setIfAbsent('w0-r0/part-1', new Uint8Array([3]));
    expect((await fs.readdir(dir)).sort()).toEqual(['w0-r0%2Fpart-0', 'w0-r0%2Fpart-1']);
    writeFileSync(path.join(dir, '.tmp-99999-deadbeef-1'), 'half a blob');
    writeFileSync(path.join(dir, '%41'), 'not canonical');
    await fs.mkdir(path.join(dir, 'subdir'));
    expect(await b.list()).toEqual(['w0-r0/part-0', 'w0-r0/part-1']);
  });

  it('two stores on one directory race setIfAbsent: exactly one wins (link is atomic)', async () => {
    const dir = await freshDir();
    const [a, b] = [await FileBlob.open(dir), await FileBlob.open(dir)];
    for (let round = 0; round < 20; round++) {
      const key = `k${round}`;
      const won = await Promise.all([a.setIfAbsent(key, new Uint8Array([1])), b.setIfAbsent(key, new Uint8Array([2]))]);
      expect(won.filter(Boolean)).toHaveLength(1);
      expect([...((await a.get(key)) ?? [])]).toEqual([won[0] ? 1 : 2]);
    }
    expect(await a.list()).toHaveLength(20);
    expect((await fs.readdir(dir)).filter((n) => n.startsWith('.'))).toEqual([]);
  });

  it('a writer SIGKILLed mid-write leaves its temp file behind, which is never a key; every key is whole', async () => {
    const dir = await freshDir();
    let leftTemp = 0;
    // Six writers, each killed while writing its blob #2 (a set) or #3 (a setIfAbsent), alternately.
    for (let attempt = 0; attempt < 6; attempt++) {
      const child = spawn(NODE_TS[0], [...NODE_TS.slice(1), CHILD, 'write-forever', dir, String(attempt)], { stdio: ['ignore', 'pipe', 'inherit'] });
      const killAt = 3 + (attempt % 2);
      await new Promise<void>((resolve) => {
        let seen = '';
        child.stdout.on('data', (d: Buffer) => {
          seen += d.toString();
          if ((seen.match(/writing/g) ?? []).length >= killAt) {
            setTimeout(() => child.kill('SIGKILL'), 2);
            resolve();
          }
        });
      });
      await new Promise((resolve) => child.once('exit', resolve));
      const names = await fs.readdir(dir);
      leftTemp = names.filter((n) => n.startsWith('.tmp-')).length; // strays of this and earlier writers
    }
    expect(leftTemp, 'no kill landed mid-write in 6 attempts').toBeGreaterThan(0);
    const b = await FileBlob.open(dir);
    const keys = await b.list();
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) {
      expect(key).toMatch(/^w\d+\/blob-\d+$/);
      const value = (await b.get(key)) ?? new Uint8Array(0);
      // The child writes 8 MiB of one byte value per blob: whole, or absent.
      expect(value.length).toBe(8 << 20);
      const fill = value[0];
      expect(value.every((x) => x === fill)).toBe(true);
    }
  });
});

describe('FileBlob failures', () => {
  it.each([
    ['ENOENT', 'before', 'storage-permanent', /does not exist/],
    ['ENOTDIR', 'read', 'storage-permanent', /does not exist or is not a directory/],
    ['EROFS', 'before', 'storage-permanent', /read-only file system/],
    ['EACCES', 'read', 'storage-permanent', /not writable \(EACCES\)/],
    ['EPERM', 'before', 'storage-permanent', /not writable \(EPERM\)/],
    ['EIO', 'after', 'storage-indeterminate', /the name changed but the directory fsync failed \(EIO\)/],
    ['ENOSPC', 'before', 'storage-transient', /nothing took effect \(ENOSPC\)/],
    ['EMFILE', 'read', 'storage-transient', /reading failed \(EMFILE\)/],
    ['EISDIR', 'read', 'storage-permanent', /reading failed \(EISDIR\)/],
    [undefined, 'before', 'storage-transient', /unknown error/],
  ] as const)('%s %s → %s', (errno, when, code, why) => {
    const f = classifyFsError('/d', errno, when);
    expect(f.code).toBe(code);
    expect(f.why).toMatch(why);
  });

  it('a directory where a key\'s file should be: get and set fail permanent, leaving no temp file', async () => {
    const dir = await freshDir();
    const b = await FileBlob.open(dir);
    await fs.mkdir(path.join(dir, keyFileName('w0-r0/part-0')));
    await expect(b.get('w0-r0/part-0')).rejects.toSatisfy((e: unknown) => isSbkitError(e, 'storage-permanent') && /get\("w0-r0\/part-0"\): reading failed \(EISDIR\)/.test(e.message));
    await expect(b.set('w0-r0/part-0', new Uint8Array([1]))).rejects.toSatisfy((e: unknown) => isSbkitError(e, 'storage-permanent') && /nothing took effect \(EISDIR\)/.test(e.message));
    expect(await fs.readdir(dir)).toEqual([keyFileName('w0-r0/part-0')]);
  });
});

describe('FileBlob bad directories: typed errors naming the path', () => {
  const permanent = (dir: string, why: RegExp) => (e: unknown) => isSbkitError(e, 'storage-permanent') && e.message.includes(JSON.stringify(dir)) && why.test(e.message);

  it('a missing directory', async () => {
    const dir = path.join(scratch, 'no-such-dir');
    await expect(FileBlob.open(dir)).rejects.toSatisfy(permanent(dir, /does not exist/));
  });

  it('a path that is a file', async () => {
    const file = path.join(scratch, 'a-file');
    writeFileSync(file, 'x');
    await expect(FileBlob.open(file)).rejects.toSatisfy(permanent(file, /is not a directory/));
  });

  it('a directory removed after open: every call fails permanent, none says "missing key"', async () => {
    const dir = await freshDir();
    const b = await FileBlob.open(dir);
    await b.set('k', new Uint8Array([1]));
    await fs.rm(dir, { recursive: true });
    for (const call of [() => b.get('k'), () => b.set('k', new Uint8Array(1)), () => b.setIfAbsent('j', new Uint8Array(1)), () => b.delete('k'), () => b.list()]) {
      await expect(call()).rejects.toSatisfy(permanent(dir, /does not exist/));
    }
  });

  it('an empty path is invalid-backend', async () => {
    await expect(FileBlob.open('')).rejects.toSatisfy((e: unknown) => isSbkitError(e, 'invalid-backend'));
  });

  // Root ignores permission bits, so as root the directory is made read-only for real: a read-only
  // tmpfs mounted in a private mount namespace (unshare -m; nothing leaks to the host's mounts) where
  // a child process opens it. As another user, mode 0555 does it.
  it('a read-only directory, at open and for a store opened before the directory became read-only', async () => {
    const dir = await freshDir();
    if (process.getuid?.() === 0) {
      const r = spawnSync('unshare', ['--mount', '--propagation', 'private', ...NODE_TS, CHILD, 'read-only', dir], { encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      const report = JSON.parse(r.stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, { code: string; message: string }>;
      for (const step of ['open', 'set', 'setIfAbsent', 'delete']) {
        expect(report[step]?.code, step).toBe('storage-permanent');
        expect(report[step]?.message).toMatch(/read-only file system/);
        expect(report[step]?.message).toContain(JSON.stringify(dir));
      }
      expect(report['get']).toEqual({ code: 'ok', message: '1' }); // reads still work
      // A full file system: nothing took effect (transient), and the temp file is gone.
      expect(report['full']?.code).toBe('storage-transient');
      expect(report['full']?.message).toMatch(/set\("big"\): nothing took effect \(ENOSPC\)/);
      expect(report['afterFull']).toEqual({ code: 'ok', message: 'k' });
    } else {
      await fs.chmod(dir, 0o555);
      await expect(FileBlob.open(dir)).rejects.toSatisfy(permanent(dir, /not writable \(EACCES\)/));
      await fs.chmod(dir, 0o755);
    }
  });
});
