/**
 * Where the Postgres tests find their server (test-only): env `SBKIT_PG_URL`, else the URL that
 * `npm run pg:start` wrote to .sbkit/pg/url. Without either, the tests skip, printing why — the
 * reason pg:start recorded in .sbkit/pg/unavailable when the server truly could not start. With
 * `SBKIT_PG_REQUIRED=1` a missing server is a failure instead of a skip.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const STATE = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '.sbkit', 'pg');

export type PgTarget = { readonly url: string; readonly skip?: undefined } | { readonly url?: undefined; readonly skip: string };

export function pgTarget(): PgTarget {
  const env = process.env['SBKIT_PG_URL'];
  if (env !== undefined && env !== '') return { url: env };
  const file = path.join(STATE, 'url');
  if (existsSync(file)) return { url: readFileSync(file, 'utf8').trim() };
  const unavailable = path.join(STATE, 'unavailable');
  const skip = existsSync(unavailable)
    ? `PostgreSQL could not be started: ${readFileSync(unavailable, 'utf8').trim()}`
    : 'no PostgreSQL running: start one with `npm run pg:start`, or set SBKIT_PG_URL';
  if (process.env['SBKIT_PG_REQUIRED'] === '1') throw new Error(`SBKIT_PG_REQUIRED=1 but ${skip}`);
  return { skip };
}

/** The target, printing the skip reason once per file when there is none. */
export function pgTargetOrSkip(file: string): PgTarget {
  const t = pgTarget();
  if (t.skip !== undefined) console.warn(`[${file}] skipping the PostgreSQL tests: ${t.skip}`);
  return t;
}

let tableSeq = 0;

/** A table name no other test (or run) uses: `<prefix>_<pid>_<time>_<n>`. */
export function uniqueTable(prefix: string): string {
  tableSeq += 1;
  return `${prefix}_${process.pid}_${Date.now().toString(36)}_${tableSeq}`.toLowerCase();
}

/** Runs `sql` on a fresh connection to `url` and closes it. */
export async function withAdmin<T>(url: string, run: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => {});
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end().catch(() => {});
  }
}

export async function dropTables(url: string, tables: readonly string[]): Promise<void> {
  if (tables.length === 0) return;
  await withAdmin(url, async (c) => {
    for (const t of tables) await c.query(`DROP TABLE IF EXISTS ${pg.escapeIdentifier(t)}`);
  });
}

/** The URL with a kit option (`table`, `timeout_ms`) set. */
export function withOption(url: string, name: string, value: string): string {
  const u = new URL(url);
  u.searchParams.set(name, value);
  return u.toString();
}
