/**
 * `--consensus SPEC` and `--blob SPEC`: where the shard's state and blobs live (impl/persist/backends.ts).
 * `mem` (the default) is the in-memory store; `postgres://…` and `file:DIR` are real ones. A spec that
 * does not parse is a flag error (exit 2, naming the flag); a store that cannot be opened is reported
 * by `openBackends`, naming the flag too.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SbkitError } from '../impl/errors.ts';
import { openBlob, openConsensus, parseBlobSpec, parseConsensusSpec, type Backend } from '../impl/persist/backends.ts';
import type { Blob } from '../impl/persist/blob.ts';
import type { Consensus } from '../impl/persist/consensus.ts';
import { bad, good, type Flag } from './args.ts';

/** A spec flag: the raw spec (validated), `mem` by default. */
function specFlag(flag: string, help: string, placeholder: string, check: (spec: string, flag: string) => unknown): Flag<string> {
  return {
    help,
    placeholder,
    takesValue: true,
    repeatable: false,
    defaultValue: 'mem',
    defaultText: 'mem',
    parse: (raw) => {
      try {
        check(raw, flag);
        return good(raw);
      } catch (e) {
        if (!(e instanceof SbkitError)) throw e;
        // The message starts with the flag; the parser names it already.
        return bad(e.message.startsWith(`${flag} `) ? e.message.slice(flag.length + 1) : e.message);
      }
    },
  };
}

export const consensusFlag = (help: string): Flag<string> => specFlag('--consensus', help, 'mem|postgres://…', parseConsensusSpec);
export const blobFlag = (help: string): Flag<string> => specFlag('--blob', help, 'mem|file:DIR', parseBlobSpec);

const SHARED = 'replica processes share the shard: an in-memory store cannot be shared';

/** `--consensus` of the crash test: a postgres:// URL only (its help offers nothing else). */
export const postgresFlag = (help: string): Flag<string> =>
  specFlag('--consensus', help, 'postgres://…', (spec, flag) => {
    if (!/^postgres(ql)?:\/\//.test(spec)) throw new SbkitError('invalid-backend', `${flag} must be a postgres:// URL (${SHARED})`);
    parseConsensusSpec(spec, flag);
  });

/** `--blob` of the crash test: file:DIR only. */
export const fileBlobFlag = (help: string): Flag<string> =>
  specFlag('--blob', help, 'file:DIR', (spec, flag) => {
    if (!spec.startsWith('file:')) throw new SbkitError('invalid-backend', `${flag} must be file:DIR (${SHARED})`);
    parseBlobSpec(spec, flag);
  });

/** A real store is given: the run is in production mode (real I/O, real concurrency, wall clock). */
export const isReal = (spec: string): boolean => spec !== 'mem';

export interface OpenedBackends {
  readonly consensus: Backend<Consensus>;
  readonly blob: Backend<Blob>;
  close(): Promise<void>;
}

/** Opens both stores; a failure is a typed error whose message names the flag. */
export async function openBackends(consensusSpec: string, blobSpec: string, applicationName: string): Promise<OpenedBackends> {
  const consensus = await named('--consensus', () => openConsensus(consensusSpec, { applicationName }));
  try {
    const blob = await named('--blob', () => openBlob(blobSpec));
    return { consensus, blob, close: () => consensus.close() };
  } catch (e) {
    await consensus.close();
    throw e;
  }
}

async function named<T>(flag: string, open: () => Promise<T>): Promise<T> {
  try {
    return await open();
  } catch (e) {
    if (e instanceof SbkitError) throw new SbkitError(e.code, `${flag}: ${e.message}`, { cause: e });
    throw e;
  }
}

const STATE = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '.sbkit', 'pg', 'url');

/** The PostgreSQL to use when none is given: env SBKIT_PG_URL, else the URL `npm run pg:start` wrote. */
export function defaultPgUrl(): string | undefined {
  const env = process.env['SBKIT_PG_URL'];
  if (env !== undefined && env !== '') return env;
  return existsSync(STATE) ? readFileSync(STATE, 'utf8').trim() : undefined;
}
