/**
 * Child process for the FileBlob tests (test-only), run with tsx:
 * - `write-forever DIR SEED`: writes 8 MiB blobs `w<SEED>/blob-<i>` (each one byte value) until
 *   killed, alternating set and setIfAbsent, printing `writing <i>` before each;
 * - `read-only DIR` (root, inside `unshare --mount`): mounts a 4 MiB tmpfs on DIR, opens a FileBlob
 *   and stores `k`, tries an 8 MiB blob (the file system is full), remounts DIR read-only, then tries
 *   every call and a fresh open; prints one JSON line `{step: {code, message}}` (plus the names left
 *   in DIR after the full write).
 */
import { execFileSync } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { FileBlob } from '../persist/file-blob.ts';

const [mode, dir = '', seed = '0'] = process.argv.slice(2);

async function outcome(run: () => Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    const value = await run();
    return { code: 'ok', message: value instanceof Uint8Array ? String(value.length) : String(value) };
  } catch (e) {
    const err = e as { code?: string; message?: string };
    return { code: err.code ?? 'unknown', message: err.message ?? String(e) };
  }
}

if (mode === 'write-forever') {
  const blob = await FileBlob.open(dir);
  for (let i = 0; ; i++) {
    const value = new Uint8Array(8 << 20).fill((i % 251) + 1);
    process.stdout.write(`writing ${i}\n`);
    if (i % 2 === 0) await blob.set(`w${seed}/blob-${i}`, value);
    else await blob.setIfAbsent(`w${seed}/blob-${i}`, value);
  }
} else if (mode === 'read-only') {
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', dir]);
  const blob = await FileBlob.open(dir);
  await blob.set('k', new Uint8Array([1]));
  const full = await outcome(() => blob.set('big', new Uint8Array(8 << 20)));
  const afterFull = { code: 'ok', message: (await readdir(dir)).join(',') };
  execFileSync('mount', ['-o', 'remount,ro', dir]);
  const report = {
    full,
    afterFull,
    set: await outcome(() => blob.set('x', new Uint8Array([2]))),
    setIfAbsent: await outcome(() => blob.setIfAbsent('y', new Uint8Array([3]))),
    delete: await outcome(() => blob.delete('k')),
    get: await outcome(() => blob.get('k')),
    open: await outcome(() => FileBlob.open(dir)),
  };
  console.log(JSON.stringify(report));
} else {
  console.error(`unknown mode ${String(mode)}`);
  process.exit(2);
}
