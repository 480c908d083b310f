/**
 * Storage backends by spec string, as the command line gives them: `--consensus mem|postgres://…`
 * and `--blob mem|file:DIR`. `mem` (the default) is the in-memory store; every other spec opens a
 * real one. A spec that does not parse is `invalid-backend`, naming the flag and the value; a store
 * that cannot be opened is the storage error of that store (pg-consensus.ts, file-blob.ts).
 *
 * Consensus URLs: `postgres://user:password@host:port/database?options` (or `postgresql://`). The kit's
 * own options are `table` (the consensus table, default `consensus`) and `timeout_ms` (the deadline of
 * every call, default 10 000); pg's `sslmode`, `application_name`, `connect_timeout`, `options` and
 * `host` (a socket directory) pass through; any other option is refused, so a typo is not ignored.
 *
 * Blob specs: `file:DIR` (relative to the working directory, or absolute; `file:///abs` also works).
 * The directory must exist and be writable.
 */
import { fileURLToPath } from 'node:url';
import { SbkitError, show } from '../errors.ts';
import { MemBlob, type Blob } from './blob.ts';
import { MemConsensus, type Consensus } from './consensus.ts';
import { FileBlob } from './file-blob.ts';
import { DEFAULT_PG_TABLE, DEFAULT_PG_TIMEOUT_MS, PG_TABLE_NAME, PgConsensus, redactUrl } from './pg-consensus.ts';

export type ConsensusSpec =
  | { readonly kind: 'mem' }
  | { readonly kind: 'postgres'; readonly url: string; readonly table: string; readonly timeoutMs: number };

export type BlobSpec = { readonly kind: 'mem' } | { readonly kind: 'file'; readonly dir: string };

/** An opened store and how to release it. */
export interface Backend<T> {
  readonly store: T;
  /** The spec, password redacted, for output. */
  readonly spec: string;
  close(): Promise<void>;
}

const KIT_OPTIONS = new Set(['table', 'timeout_ms']);
const PG_OPTIONS = new Set(['sslmode', 'application_name', 'connect_timeout', 'options', 'host']);

export function parseConsensusSpec(spec: string, flag = '--consensus'): ConsensusSpec {
  if (spec === 'mem') return { kind: 'mem' };
  const bad = (why: string): never => {
    throw new SbkitError('invalid-backend', `${flag} must be mem or a postgres:// URL${why}, got ${show(redactUrl(String(spec)))}`);
  };
  if (typeof spec !== 'string' || !/^postgres(ql)?:\/\//.test(spec)) bad('');
  let url: URL;
  try {
    url = new URL(spec);
  } catch {
    return bad(' (it does not parse as a URL)');
  }
  if (url.hostname === '' && !url.searchParams.has('host')) bad(' (no host)');
  let table = DEFAULT_PG_TABLE;
  let timeoutMs = DEFAULT_PG_TIMEOUT_MS;
  for (const [name, value] of [...url.searchParams]) {
    if (name === 'table') table = value;
    else if (name === 'timeout_ms') {
      timeoutMs = Number(value);
      if (!/^[1-9][0-9]*$/.test(value) || !Number.isSafeInteger(timeoutMs)) bad(` (timeout_ms must be a positive integer, got ${show(value)})`);
    } else if (!PG_OPTIONS.has(name)) {
      bad(` (unknown option ${show(name)}; known: ${[...KIT_OPTIONS, ...PG_OPTIONS].join(', ')})`);
    }
  }
  if (!PG_TABLE_NAME.test(table)) bad(` (table must be lower-case letters, digits and _, at most 63, got ${show(table)})`);
  for (const name of KIT_OPTIONS) url.searchParams.delete(name);
  return { kind: 'postgres', url: url.toString(), table, timeoutMs };
}

export function parseBlobSpec(spec: string, flag = '--blob'): BlobSpec {
  if (spec === 'mem') return { kind: 'mem' };
  if (typeof spec !== 'string' || !spec.startsWith('file:') || spec.length === 'file:'.length) {
    throw new SbkitError('invalid-backend', `${flag} must be mem or file:DIR, got ${show(spec)}`);
  }
  const rest = spec.slice('file:'.length);
  if (!rest.startsWith('//')) return { kind: 'file', dir: rest };
  try {
    return { kind: 'file', dir: fileURLToPath(spec) };
  } catch (e) {
    throw new SbkitError('invalid-backend', `${flag} ${show(spec)} is not a file URL: ${e instanceof Error ? e.message : String(e)}`);
  }
}

export interface OpenConsensusOptions {
  /** The flag named in errors (default `--consensus`). */
  readonly flag?: string;
  readonly applicationName?: string;
  readonly poolSize?: number;
}

export async function openConsensus(spec = 'mem', options: OpenConsensusOptions = {}): Promise<Backend<Consensus>> {
  const parsed = parseConsensusSpec(spec, options.flag);
  if (parsed.kind === 'mem') return { store: new MemConsensus(), spec: 'mem', close: async () => {} };
  const store = await PgConsensus.open({
    url: parsed.url,
    table: parsed.table,
    timeoutMs: parsed.timeoutMs,
    ...(options.applicationName === undefined ? {} : { applicationName: options.applicationName }),
    ...(options.poolSize === undefined ? {} : { poolSize: options.poolSize }),
  });
  return { store, spec: redactUrl(spec), close: () => store.close() };
}

export async function openBlob(spec = 'mem', options: { readonly flag?: string } = {}): Promise<Backend<Blob>> {
  const parsed = parseBlobSpec(spec, options.flag);
  if (parsed.kind === 'mem') return { store: new MemBlob(), spec: 'mem', close: async () => {} };
  const store = await FileBlob.open(parsed.dir);
  return { store, spec: `file:${store.dir}`, close: async () => {} };
}
