/**
 * Backends by spec string (`--consensus mem|postgres://…`, `--blob mem|file:DIR`): what parses, what is
 * refused with invalid-backend naming the flag and the value, and that each spec opens its store.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isSbkitError } from '../errors.ts';
import { openBlob, openConsensus, parseBlobSpec, parseConsensusSpec } from '../persist/backends.ts';
import { MemBlob } from '../persist/blob.ts';
import { MemConsensus } from '../persist/consensus.ts';
import { FileBlob } from '../persist/file-blob.ts';
import { PgConsensus } from '../persist/pg-consensus.ts';
import { dropTables, pgTargetOrSkip, uniqueTable, withOption } from '../../test-support/pg-target.ts';

const target = pgTargetOrSkip('backends.test.ts');
const scratch = mkdtempSync(path.join(os.tmpdir(), 'sbkit-backends-'));
const tables: string[] = [];
afterAll(async () => {
  rmSync(scratch, { recursive: true, force: true });
  if (target.url !== undefined) await dropTables(target.url, tables);
});

const invalid = (flag: string, detail: RegExp) => (e: unknown) => isSbkitError(e, 'invalid-backend') && e.message.startsWith(flag) && detail.test(e.message);

describe('parseConsensusSpec', () => {
  it('mem, and postgres:// / postgresql:// URLs with the kit options taken out', () => {
    expect(parseConsensusSpec('mem')).toEqual({ kind: 'mem' });
    expect(parseConsensusSpec('postgres://u:p@127.0.0.1:5433/db')).toEqual({ kind: 'postgres', url: 'postgres://u:p@127.0.0.1:5433/db', table: 'consensus', timeoutMs: 10_000 });
    expect(parseConsensusSpec('postgresql://h/db?table=shard_a&timeout_ms=250&sslmode=disable')).toEqual({
      kind: 'postgres',
      url: 'postgresql://h/db?sslmode=disable',
      table: 'shard_a',
      timeoutMs: 250,
    });
    expect(parseConsensusSpec('postgres:///db?host=/var/run/postgresql')).toMatchObject({ kind: 'postgres', table: 'consensus' });
  });

  it.each([
    ['', /must be mem or a postgres:\/\/ URL, got ""/],
    ['memory', /got "memory"/],
    ['mysql://h/db', /got "mysql:\/\/h\/db"/],
    ['postgres:/h/db', /got "postgres:\/h\/db"/],
    ['postgres://h:99999/db', /it does not parse as a URL/],
    ['postgres:///db', /no host/],
    ['postgres://u:secret@h/db?tabel=x', /unknown option "tabel".*got "postgres:\/\/u:\*\*\*@h\/db\?tabel=x"/],
    ['postgres://h/db?timeout_ms=0', /timeout_ms must be a positive integer, got "0"/],
    ['postgres://h/db?timeout_ms=1e3', /timeout_ms must be a positive integer, got "1e3"/],
    ['postgres://h/db?table=Bad-Name', /table must be lower-case letters, digits and _, at most 63, got "Bad-Name"/],
  ])('%j is invalid-backend', (spec, detail) => {
    expect(() => parseConsensusSpec(spec)).toThrow(expect.objectContaining({ code: 'invalid-backend', message: expect.stringMatching(detail) }));
  });

  it('names the flag it was given', () => {
    expect(() => parseConsensusSpec('nope', '--shard-consensus')).toThrow(/^--shard-consensus must be mem/);
  });
});

describe('parseBlobSpec', () => {
  it('mem, file:DIR (relative or absolute) and file:///abs', () => {
    expect(parseBlobSpec('mem')).toEqual({ kind: 'mem' });
    expect(parseBlobSpec('file:scratch/blobs')).toEqual({ kind: 'file', dir: 'scratch/blobs' });
    expect(parseBlobSpec('file:/tmp/b')).toEqual({ kind: 'file', dir: '/tmp/b' });
    expect(parseBlobSpec('file:///tmp/a%20b')).toEqual({ kind: 'file', dir: '/tmp/a b' });
  });

  it.each([
    ['', /must be mem or file:DIR, got ""/],
    ['file:', /got "file:"/],
    ['file', /got "file"/],
    ['s3://bucket/x', /got "s3:\/\/bucket\/x"/],
    ['file://otherhost/x', /is not a file URL/],
  ])('%j is invalid-backend', (spec, detail) => {
    expect(() => parseBlobSpec(spec)).toThrow(expect.objectContaining({ code: 'invalid-backend', message: expect.stringMatching(detail) }));
  });
});

describe('openConsensus / openBlob', () => {
  it('default to in-memory stores', async () => {
    const c = await openConsensus();
    const b = await openBlob();
    expect(c.store).toBeInstanceOf(MemConsensus);
    expect(b.store).toBeInstanceOf(MemBlob);
    expect([c.spec, b.spec]).toEqual(['mem', 'mem']);
    await c.close();
    await b.close();
  });

  it('file:DIR opens a FileBlob on that directory; a missing one is storage-permanent naming it', async () => {
    const b = await openBlob(`file:${scratch}`);
    expect(b.store).toBeInstanceOf(FileBlob);
    expect(b.spec).toBe(`file:${scratch}`);
    await b.store.set('w0-r0/part-0', new Uint8Array([1]));
    expect(await b.store.list()).toEqual(['w0-r0/part-0']);
    await b.close();
    const missing = path.join(scratch, 'missing');
    await expect(openBlob(`file:${missing}`)).rejects.toSatisfy((e: unknown) => isSbkitError(e, 'storage-permanent') && e.message.includes(missing));
  });

  it('a bad spec is refused before anything is opened', async () => {
    await expect(openConsensus('postgres://h:1/db?nope=1')).rejects.toSatisfy(invalid('--consensus', /unknown option "nope"/));
    await expect(openBlob('dir:/tmp', { flag: '--blob' })).rejects.toSatisfy(invalid('--blob', /file:DIR/));
  });

  it.skipIf(target.skip !== undefined)('postgres:// opens a PgConsensus on the table and deadline it names', async () => {
    const table = uniqueTable('t_backends');
    tables.push(table);
    const c = await openConsensus(withOption(withOption(target.url ?? '', 'table', table), 'timeout_ms', '60000'), { applicationName: 'sbkit-backends', poolSize: 2 });
    expect(c.store).toBeInstanceOf(PgConsensus);
    const pgStore = c.store as PgConsensus;
    expect([pgStore.table, pgStore.timeoutMs]).toEqual([table, 60_000]);
    expect(c.spec).not.toMatch(/:sbkit@/); // the password is redacted
    expect(await c.store.compareAndSet('k', null, { seqNo: 0, data: new Uint8Array([1]) })).toEqual({ ok: true });
    await c.close();
    const defaults = await openConsensus(withOption(target.url ?? '', 'table', table));
    expect((defaults.store as PgConsensus).timeoutMs).toBe(10_000);
    await defaults.close();
  });
});
