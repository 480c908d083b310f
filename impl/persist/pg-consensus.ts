/**
 * PgConsensus: the Consensus interface (consensus.ts) on PostgreSQL, through node-postgres (`pg`), as
 * Materialize's persist keeps its consensus in Postgres or CockroachDB.
 *
 * Schema — one row per version, created when missing (under a transaction-scoped advisory lock:
 * concurrent `CREATE TABLE IF NOT EXISTS` can fail on pg_type's unique index); a table of that name
 * with any other columns or primary key is refused (`storage-permanent`, naming the difference):
 *
 *   CREATE TABLE <table> (shard text NOT NULL, sequence_number bigint NOT NULL, data bytea NOT NULL,
 *                         PRIMARY KEY (shard, sequence_number))
 *
 * compareAndSet(key, expected, {seqNo: expected + 1, data}) is ONE autocommit statement — one implicit
 * transaction, one round trip — that inserts the new version only if the latest is `expected`:
 *
 *   -- expected = n                                   -- expected = null (no version yet)
 *   INSERT INTO t (shard, sequence_number, data)      INSERT INTO t (shard, sequence_number, data)
 *   SELECT $1, $2, $3                                 SELECT $1, $2, $3
 *   WHERE EXISTS (SELECT 1 FROM t                     WHERE NOT EXISTS (SELECT 1 FROM t
 *                 WHERE shard = $1                                      WHERE shard = $1)
 *                   AND sequence_number = $4)         ON CONFLICT DO NOTHING
 *     AND NOT EXISTS (SELECT 1 FROM t
 *                     WHERE shard = $1 AND sequence_number > $4)
 *   ON CONFLICT DO NOTHING
 *
 * One row inserted: committed. None: the race was lost, and the head is read back in a second
 * statement (safe, as in Materialize: versions are never deleted or changed here and sequence
 * numbers only grow, so whatever head it reads is at or after the one that beat us).
 *
 * Isolation: READ COMMITTED, set on every connection (startup option default_transaction_isolation,
 * checked at open). Why that is enough:
 * - at most one version per (shard, seqNo): the primary key. A concurrent insert of the same key waits
 *   for the other transaction and then does nothing (ON CONFLICT DO NOTHING): unique-index checks see
 *   committed rows whatever the statement's snapshot;
 * - no gaps: inserting n + 1 needs version n committed (EXISTS), and nothing is ever deleted, so what
 *   EXISTS saw stays true;
 * - so "the latest is n" ⇔ "n exists and n + 1 does not": the primary key decides the race. The NOT
 *   EXISTS (> n) clause is implied by it on a gapless table and kept as a guard, as Materialize does.
 * Under REPEATABLE READ or SERIALIZABLE the same statement stays correct but a lost race surfaces as a
 * serialization failure (SQLSTATE 40001, mapped to storage-transient) instead of zero rows.
 *
 * Failures (pg-errors.ts): every call runs under a deadline (`timeoutMs`, connecting included); a
 * call that fails before its statement is sent is `storage-transient` (or `storage-permanent`: bad
 * credentials, no such database); a compare-and-set whose connection is lost or whose deadline passes
 * after sending is `storage-indeterminate` — the server may have committed it, and may even commit it
 * after we gave up (a statement blocked on a lock) — resolved by reading state back (persist: the
 * idempotency token). Reads that fail after sending changed nothing: transient.
 */
import pg from 'pg';
import { SbkitError, requireInteger, show } from '../errors.ts';
import type { CasResult, Consensus, ConsensusStats, SeqNo, VersionedData } from './consensus.ts';
import { LatencyRecorder } from './latency.ts';
import { PgDeadline, pgStorageError, type PgOp, type PgPhase } from './pg-errors.ts';

export interface PgConsensusOptions {
  /** `postgres://` or `postgresql://` connection URL (user, password, host, port, database, pg's query options). */
  readonly url: string;
  /** The table of versions (default `consensus`): lower-case letters, digits and `_`, at most 63. */
  readonly table?: string;
  /** Deadline of every call in ms, connecting included (default 10 000). */
  readonly timeoutMs?: number;
  /** Connections in the pool (default 4). */
  readonly poolSize?: number;
  /** `application_name` of the connections (default `sbkit`), as pg_stat_activity shows it. */
  readonly applicationName?: string;
}

export const DEFAULT_PG_TABLE = 'consensus';
export const DEFAULT_PG_TIMEOUT_MS = 10_000;
/** A consensus table name: lower-case letters, digits and `_`, not starting with a digit, at most 63. */
export const PG_TABLE_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** The URL with its password replaced by `***`, for messages. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password !== '') u.password = '***';
    return u.toString();
  } catch {
    return url.replace(/:[^:@/]*@/, ':***@');
  }
}

/** The columns a consensus table must have, in order. */
const EXPECTED_COLUMNS = [
  { name: 'shard', type: 'text' },
  { name: 'sequence_number', type: 'bigint' },
  { name: 'data', type: 'bytea' },
] as const;

interface VersionRow {
  readonly sequence_number: string;
  readonly data: Buffer;
}

export interface PgConsensusStats extends ConsensusStats {
  /** Wall-clock latency of every compare-and-set that got an answer (committed or lost). */
  readonly casLatency: LatencyRecorder;
}

export class PgConsensus implements Consensus {
  readonly stats: PgConsensusStats = { heads: 0, cas: 0, casFailures: 0, scans: 0, bytesWritten: 0, casLatency: new LatencyRecorder() };
  /** What messages call this store: the URL without its password. */
  readonly name: string;
  readonly table: string;
  readonly timeoutMs: number;
  readonly #pool: pg.Pool;
  readonly #sql: { readonly head: string; readonly scan: string; readonly casFirst: string; readonly casNext: string };
  #closed = false;

  /** Connects, creates the table if missing and checks its schema. */
  static async open(options: PgConsensusOptions): Promise<PgConsensus> {
    const consensus = new PgConsensus(options);
    try {
      await consensus.#setUp();
    } catch (e) {
      await consensus.close();
      throw e;
    }
    return consensus;
  }

  private constructor(options: PgConsensusOptions) {
    this.table = options.table ?? DEFAULT_PG_TABLE;
    if (!PG_TABLE_NAME.test(this.table)) {
      throw new SbkitError('invalid-backend', `consensus table must match ${PG_TABLE_NAME.source}, got ${show(this.table)}`);
    }
    this.timeoutMs = requireInteger(options.timeoutMs ?? DEFAULT_PG_TIMEOUT_MS, 1, 'consensus timeoutMs', 'invalid-backend');
    const poolSize = requireInteger(options.poolSize ?? 4, 1, 'consensus poolSize', 'invalid-backend');
    this.name = `consensus ${redactUrl(options.url)}`;
    this.#pool = new pg.Pool({
      connectionString: options.url,
      max: poolSize,
      connectionTimeoutMillis: this.timeoutMs,
      idleTimeoutMillis: 30_000,
      allowExitOnIdle: true,
      keepAlive: true,
      application_name: options.applicationName ?? 'sbkit',
      options: '-c default_transaction_isolation=read\\ committed',
    });
    // An idle connection that dies (a server restart, pg_terminate_backend) is dropped by the pool;
    // without a listener its 'error' event would crash the process. The next call reconnects.
    this.#pool.on('error', () => {});
    const t = pg.escapeIdentifier(this.table);
    this.#sql = {
      head: `SELECT sequence_number, data FROM ${t} WHERE shard = $1 ORDER BY sequence_number DESC LIMIT 1`,
      scan: `SELECT sequence_number, data FROM ${t} WHERE shard = $1 AND sequence_number >= $2 ORDER BY sequence_number`,
      casFirst: `INSERT INTO ${t} (shard, sequence_number, data) SELECT $1, $2, $3
        WHERE NOT EXISTS (SELECT 1 FROM ${t} WHERE shard = $1)
        ON CONFLICT DO NOTHING`,
      casNext: `INSERT INTO ${t} (shard, sequence_number, data) SELECT $1, $2, $3
        WHERE EXISTS (SELECT 1 FROM ${t} WHERE shard = $1 AND sequence_number = $4)
          AND NOT EXISTS (SELECT 1 FROM ${t} WHERE shard = $1 AND sequence_number > $4)
        ON CONFLICT DO NOTHING`,
    };
  }

  async head(key: string): Promise<VersionedData | undefined> {
    this.stats.heads += 1;
    return this.#head(key);
  }

  async compareAndSet(key: string, expected: SeqNo | null, next: VersionedData): Promise<CasResult> {
    this.stats.cas += 1;
    const want = expected === null ? 0 : expected + 1;
    if (next.seqNo !== want) {
      throw new SbkitError(
        'consensus-invariant',
        `compareAndSet(${key}): new seqNo must be ${want} after ${String(expected)}, got ${next.seqNo}`,
      );
    }
    const data = Buffer.from(next.data.buffer, next.data.byteOffset, next.data.byteLength);
    const started = performance.now();
    const inserted = await this.#call(`compareAndSet(${show(key)}, expected ${String(expected)})`, 'write', async (c) => {
      const r = expected === null ? await c.query(this.#sql.casFirst, [key, want, data]) : await c.query(this.#sql.casNext, [key, want, data, expected]);
      return r.rowCount === 1;
    });
    this.stats.casLatency.add(performance.now() - started);
    if (inserted) {
      this.stats.bytesWritten += next.data.length;
      return { ok: true };
    }
    this.stats.casFailures += 1;
    const head = await this.#head(key); // the read-back is part of the CaS, not a head the caller asked for
    return { ok: false, head: head === undefined ? null : head.seqNo };
  }

  async scan(key: string, from: SeqNo): Promise<VersionedData[]> {
    this.stats.scans += 1;
    const rows = await this.#call(`scan(${show(key)}, ${from})`, 'read', async (c) => (await c.query<VersionRow>(this.#sql.scan, [key, from])).rows);
    return rows.map((r) => this.#version(r));
  }

  /** Ends every connection; later calls fail with `storage-permanent`. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#pool.end();
  }

  async #head(key: string): Promise<VersionedData | undefined> {
    const rows = await this.#call(`head(${show(key)})`, 'read', async (c) => (await c.query<VersionRow>(this.#sql.head, [key])).rows);
    return rows[0] === undefined ? undefined : this.#version(rows[0]);
  }

  #version(row: VersionRow): VersionedData {
    const seqNo = Number(row.sequence_number);
    if (!Number.isSafeInteger(seqNo) || seqNo < 0) {
      throw new SbkitError('consensus-invariant', `${this.name}: sequence number ${row.sequence_number} is not a safe non-negative integer`);
    }
    return { seqNo, data: new Uint8Array(row.data) };
  }

  async #setUp(): Promise<void> {
    await this.#call('open', 'write', async (c) => {
      await c.query('BEGIN');
      await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`sbkit-consensus:${this.table}`]);
      await c.query(`CREATE TABLE IF NOT EXISTS ${pg.escapeIdentifier(this.table)} (
        shard text NOT NULL, sequence_number bigint NOT NULL, data bytea NOT NULL,
        PRIMARY KEY (shard, sequence_number))`);
      await c.query('COMMIT');
      const problems = await this.#schemaProblems(c);
      if (problems.length > 0) {
        throw new SbkitError(
          'storage-permanent',
          `${this.name}: table ${show(this.table)} exists with an unexpected schema (${problems.join('; ')}): it is not a consensus table; drop it or choose another with ?table=`,
        );
      }
      const isolation = (await c.query<{ transaction_isolation: string }>('SHOW transaction_isolation')).rows[0]?.transaction_isolation;
      if (isolation !== 'read committed') {
        throw new SbkitError('storage-permanent', `${this.name}: transaction isolation is ${show(isolation)}, expected "read committed"`);
      }
    });
  }

  async #schemaProblems(c: pg.PoolClient): Promise<string[]> {
    const columns = (
      await c.query<{ column_name: string; data_type: string; is_nullable: string }>(
        `SELECT column_name, data_type, is_nullable FROM information_schema.columns
         WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`,
        [this.table],
      )
    ).rows;
    const problems: string[] = [];
    const byName = new Map(columns.map((col) => [col.column_name, col]));
    for (const want of EXPECTED_COLUMNS) {
      const have = byName.get(want.name);
      if (have === undefined) problems.push(`no column ${show(want.name)}`);
      else if (have.data_type !== want.type) problems.push(`column ${show(want.name)} is ${have.data_type}, expected ${want.type}`);
      else if (have.is_nullable !== 'NO') problems.push(`column ${show(want.name)} is nullable, expected NOT NULL`);
    }
    for (const col of columns) {
      if (!EXPECTED_COLUMNS.some((w) => w.name === col.column_name)) problems.push(`unexpected column ${show(col.column_name)}`);
    }
    const key = (
      await c.query<{ attname: string }>(
        `SELECT a.attname FROM pg_index i
         CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
         JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
         WHERE i.indrelid = to_regclass(format('%I.%I', current_schema(), $1::text)) AND i.indisprimary
         ORDER BY k.ord`,
        [this.table],
      )
    ).rows.map((r) => r.attname);
    if (key.join(',') !== 'shard,sequence_number') {
      problems.push(`primary key is (${key.join(', ')}), expected (shard, sequence_number)`);
    }
    return problems;
  }

  /**
   * Runs `run` on a pooled connection under the deadline. The phase (connect → sent) decides how a
   * failure is classified; a connection that failed in any way, or whose deadline passed, is
   * destroyed, never returned to the pool.
   */
  async #call<T>(what: string, op: PgOp, run: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    if (this.#closed) throw new SbkitError('storage-permanent', `${this.name}: ${what}: the consensus client is closed`);
    let phase: PgPhase = 'connect';
    let client: pg.PoolClient | undefined;
    let expired = false;
    // SUBTLE: a checked-out client's 'error' event has no pool listener; the failure also rejects
    // the pending query (which is how we see it), so this listener only keeps the process alive.
    const ignore = (): void => {};
    const work = (async () => {
      const c = await this.#pool.connect();
      if (expired) {
        c.release();
        throw new PgDeadline(this.timeoutMs);
      }
      client = c;
      c.on('error', ignore);
      phase = 'sent';
      return run(c);
    })();
    work.catch(() => {}); // past the deadline its late outcome has nobody to tell
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        expired = true;
        reject(new PgDeadline(this.timeoutMs));
      }, this.timeoutMs);
    });
    try {
      const value = await Promise.race([work, deadline]);
      client?.off('error', ignore);
      client?.release();
      return value;
    } catch (e) {
      if (client !== undefined) {
        client.release(true);
        client.connection.stream.destroy();
      }
      if (e instanceof SbkitError) throw e;
      throw pgStorageError(`${this.name}: ${what}`, e, phase, op);
    } finally {
      clearTimeout(timer);
    }
  }
}
