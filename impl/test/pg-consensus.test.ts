/**
 * PgConsensus on a real PostgreSQL (`npm run pg:start`): the shared Consensus contract (with
 * MemConsensus), two clients racing on one key, the schema check, and every failure path with its
 * typed error — refused, hung, bad credentials, no database, a statement refused by the server, and
 * the indeterminate compare-and-set in both directions (the backend killed before its commit; the
 * commit done and its answer lost), each shown by reading the database back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SbkitError, isSbkitError, isStorageFailure, type SbkitErrorCode } from '../errors.ts';
import { MemConsensus, type VersionedData } from '../persist/consensus.ts';
import { classifyPgError, PgDeadline, pgStorageError } from '../persist/pg-errors.ts';
import { PgConsensus, redactUrl } from '../persist/pg-consensus.ts';
import { consensusContract } from '../test-support/consensus-contract.ts';
import { dropTables, pgTargetOrSkip, uniqueTable, withAdmin } from '../../test-support/pg-target.ts';
import { closedPort, startProxy, startSilentServer } from '../test-support/tcp-proxy.ts';

const target = pgTargetOrSkip('pg-consensus.test.ts');
const URL_ = target.url ?? 'postgres://unused@127.0.0.1:1/unused';
const tables: string[] = [];
afterAll(async () => {
  if (target.url !== undefined) await dropTables(target.url, tables);
});

let apps = 0;
/** A PgConsensus on a fresh table (dropped after the file), with a distinct application_name. */
async function openPg(options: { url?: string; table?: string; timeoutMs?: number; poolSize?: number } = {}): Promise<PgConsensus & { app: string }> {
  const table = options.table ?? uniqueTable('t_pgc');
  if (!tables.includes(table)) tables.push(table);
  const app = `sbkit-test-${process.pid}-${(apps += 1)}`;
  const c = await PgConsensus.open({ url: options.url ?? URL_, table, applicationName: app, ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }), ...(options.poolSize === undefined ? {} : { poolSize: options.poolSize }) });
  return Object.assign(c, { app });
}

const v = (seqNo: number, ...bytes: number[]): VersionedData => ({ seqNo, data: new Uint8Array(bytes) });
const failsWith = (code: SbkitErrorCode, message?: RegExp) => (e: unknown) => isSbkitError(e, code) && (message === undefined || message.test(e.message));

/** The pid of the backend serving `app` once it waits on a lock. */
async function waitingBackend(app: string): Promise<number> {
  return withAdmin(URL_, async (admin) => {
    // polls until found: the bound only ends a wait that will never come (a loaded machine needs longer)
    for (let i = 0; i < 6000; i++) {
      const r = await admin.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'`, [app]);
      if (r.rows[0] !== undefined) return r.rows[0].pid;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`no backend of ${app} waited on a lock in 6,000 polls (over a minute)`);
  });
}

async function terminate(pid: number): Promise<void> {
  await withAdmin(URL_, async (admin) => {
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
  });
}

consensusContract('MemConsensus', async () => ({ consensus: new MemConsensus(), close: async () => {} }));
consensusContract(
  'PgConsensus',
  async () => {
    const consensus = await openPg();
    return { consensus, close: () => consensus.close() };
  },
  target.skip === undefined ? {} : { skip: target.skip },
);

describe('classifying Postgres failures (pg-errors.ts)', () => {
  const db = (code: string, severity = 'ERROR') => Object.assign(new Error(`server says ${code}`), { code, severity });
  const sys = (code: string) => Object.assign(new Error(`connect ${code}`), { code, syscall: 'connect' });
  it.each([
    ['refused before sending', sys('ECONNREFUSED'), 'connect', 'write', 'storage-transient'],
    ['host does not resolve', sys('ENOTFOUND'), 'connect', 'read', 'storage-permanent'],
    ['reset after sending a write', sys('ECONNRESET'), 'sent', 'write', 'storage-indeterminate'],
    ['reset after sending a read', sys('ECONNRESET'), 'sent', 'read', 'storage-transient'],
    ['bad password', db('28P01', 'FATAL'), 'connect', 'read', 'storage-permanent'],
    ['no such database', db('3D000', 'FATAL'), 'connect', 'write', 'storage-permanent'],
    ['server starting up', db('57P03', 'FATAL'), 'connect', 'write', 'storage-transient'],
    ['terminated during a write', db('57P01', 'FATAL'), 'sent', 'write', 'storage-indeterminate'],
    ['terminated during a read', db('57P01', 'FATAL'), 'sent', 'read', 'storage-transient'],
    ['serialization failure (rolled back)', db('40001'), 'sent', 'write', 'storage-transient'],
    ['statement timeout (rolled back)', db('57014'), 'sent', 'write', 'storage-transient'],
    ['disk full (rolled back)', db('53100'), 'sent', 'write', 'storage-transient'],
    ['table dropped under us', db('42P01'), 'sent', 'write', 'storage-permanent'],
    ['an internal error', db('XX000'), 'sent', 'write', 'storage-permanent'],
    ['our deadline while connecting', new PgDeadline(5), 'connect', 'write', 'storage-transient'],
    ['our deadline after sending a write', new PgDeadline(5), 'sent', 'write', 'storage-indeterminate'],
    ['pg: connection terminated', new Error('Connection terminated unexpectedly'), 'sent', 'write', 'storage-indeterminate'],
    ['pg: pool connect timeout', new Error('timeout exceeded when trying to connect'), 'connect', 'write', 'storage-transient'],
    ['client-side setup failure', new Error('SASL: client password must be a string'), 'connect', 'read', 'storage-permanent'],
    ['unknown failure after sending a write', 'something odd', 'sent', 'write', 'storage-indeterminate'],
  ] as const)('%s → %s', (_what, error, phase, op, code) => {
    expect(classifyPgError(error, phase, op).code).toBe(code);
  });

  it('the typed error names the call, the outcome and the cause, whatever was thrown', () => {
    const e = pgStorageError('consensus x: head("k")', 'a string, not an Error', 'sent', 'read');
    expect(e).toMatchObject({ code: 'storage-transient', message: 'consensus x: head("k"): the call failed (a read: nothing was changed): a string, not an Error', cause: 'a string, not an Error' });
    expect(isStorageFailure(e)).toBe(true);
  });

  it('isStorageFailure: exactly the three storage codes', () => {
    for (const code of ['storage-transient', 'storage-indeterminate', 'storage-permanent'] as const) expect(isStorageFailure(new SbkitError(code, 'x'))).toBe(true);
    expect(isStorageFailure(new SbkitError('invalid-backend', 'x'))).toBe(false);
    expect(isStorageFailure(Object.assign(new Error('x'), { code: 'storage-transient' }))).toBe(false);
  });

  it('redacts passwords in URLs it shows', () => {
    expect(redactUrl('postgres://u:secret@h:5/db')).toBe('postgres://u:***@h:5/db');
    expect(redactUrl('postgres://u@h/db')).toBe('postgres://u@h/db');
    expect(redactUrl('not a url u:secret@h')).toBe('not a url u:***@h');
  });
});

describe.skipIf(target.skip !== undefined)('PgConsensus on PostgreSQL', () => {
  let a: PgConsensus;
  let b: PgConsensus;
  beforeAll(async () => {
    a = await openPg();
    b = await openPg({ table: a.table });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it('two clients racing compare-and-set on one key: exactly one wins each seqNo', async () => {
    const key = 'race';
    expect(await a.compareAndSet(key, null, v(0))).toEqual({ ok: true });
    const winners: string[] = [];
    for (let s = 1; s <= 150; s++) {
      const [ra, rb] = await Promise.all([a.compareAndSet(key, s - 1, v(s, 1)), b.compareAndSet(key, s - 1, v(s, 2))]);
      expect([ra.ok, rb.ok].filter(Boolean), `seqNo ${s}`).toHaveLength(1);
      if (!ra.ok) expect(ra.head).toBe(s);
      if (!rb.ok) expect(rb.head).toBe(s);
      winners.push(ra.ok ? 'a' : 'b');
    }
    const stored = await a.scan(key, 1);
    expect(stored.map((x) => x.seqNo)).toEqual([...Array(150).keys()].map((i) => i + 1));
    expect(stored.map((x) => (x.data[0] === 1 ? 'a' : 'b'))).toEqual(winners);
    console.log(`racing CaS: a won ${winners.filter((w) => w === 'a').length}, b won ${winners.filter((w) => w === 'b').length} of 150`);
  });

  it('two clients each appending as fast as they can: the history is gapless and every version has one author', async () => {
    const key = 'append';
    const append = async (c: PgConsensus, id: number): Promise<number[]> => {
      const mine: number[] = [];
      for (;;) {
        const head = (await c.head(key))?.seqNo ?? null;
        if (head !== null && head >= 199) return mine;
        const seqNo = head === null ? 0 : head + 1;
        if ((await c.compareAndSet(key, head, v(seqNo, id))).ok) mine.push(seqNo);
      }
    };
    const [mineA, mineB] = await Promise.all([append(a, 1), append(b, 2)]);
    expect([...mineA, ...mineB].sort((x, y) => x - y)).toEqual([...Array(200).keys()]);
    const stored = await b.scan(key, 0);
    for (const s of mineA) expect(stored[s]?.data[0]).toBe(1);
    for (const s of mineB) expect(stored[s]?.data[0]).toBe(2);
  });

  it('opening an existing consensus table reuses it; concurrent opens of a new one all succeed', async () => {
    const again = await openPg({ table: a.table });
    expect((await again.head('race'))?.seqNo).toBe(150);
    await again.close();
    const table = uniqueTable('t_concurrent');
    const opened = await Promise.all([1, 2, 3, 4].map(() => openPg({ table })));
    await Promise.all(opened.map((c) => c.close()));
  });

  it('a table with an unexpected schema is storage-permanent naming the table and every difference', async () => {
    const cases: [string, string, RegExp][] = [
      ['int_seq', '(shard text NOT NULL, sequence_number integer NOT NULL, data bytea NOT NULL, PRIMARY KEY (shard, sequence_number))', /column "sequence_number" is integer, expected bigint/],
      ['no_pk', '(shard text NOT NULL, sequence_number bigint NOT NULL, data bytea NOT NULL)', /primary key is \(\), expected \(shard, sequence_number\)/],
      ['odd_pk', '(shard text NOT NULL, sequence_number bigint NOT NULL, data bytea NOT NULL, PRIMARY KEY (sequence_number, shard))', /primary key is \(sequence_number, shard\)/],
      ['extra', '(shard text NOT NULL, sequence_number bigint NOT NULL, data bytea, note text, PRIMARY KEY (shard, sequence_number))', /column "data" is nullable, expected NOT NULL; unexpected column "note"/],
      ['missing', '(shard text NOT NULL, sequence_number bigint NOT NULL, PRIMARY KEY (shard, sequence_number))', /no column "data"/],
    ];
    for (const [name, columns, problem] of cases) {
      const table = uniqueTable(`t_bad_${name}`);
      tables.push(table);
      await withAdmin(URL_, (admin) => admin.query(`CREATE TABLE ${table} ${columns}`));
      await expect(openPg({ table }), name).rejects.toSatisfy(failsWith('storage-permanent', new RegExp(`table "${table}" exists with an unexpected schema \\(.*${problem.source}`)));
    }
  });

  it('a closed port fails fast with storage-transient naming the URL, password redacted', async () => {
    const port = await closedPort();
    const url = `postgres://sbkit:secret@127.0.0.1:${port}/sbkit`;
    // ECONNREFUSED, not the deadline, ends it (the deadline would say "no answer within 600000 ms")
    await expect(PgConsensus.open({ url, timeoutMs: 600_000 })).rejects.toSatisfy(
      failsWith('storage-transient', new RegExp(`consensus postgres://sbkit:\\*\\*\\*@127.0.0.1:${port}/sbkit: open: connection failed \\(ECONNREFUSED\\) before anything was sent`)),
    );
  });

  it('a server that never answers: the deadline ends the call with storage-transient', async () => {
    const silent = await startSilentServer();
    try {
      // Without a deadline the call would never end (the test would hang until vitest's guard); a lower
      // bound shows it was the deadline (ours or the driver's connection timeout, whichever fires first).
      const started = Date.now();
      await expect(PgConsensus.open({ url: `postgres://sbkit@127.0.0.1:${silent.port}/sbkit`, timeoutMs: 300 })).rejects.toSatisfy(failsWith('storage-transient'));
      expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    } finally {
      await silent.close();
    }
  });

  it('bad credentials and a missing database are storage-permanent', async () => {
    const u = new URL(URL_);
    u.password = 'wrong-password';
    await expect(PgConsensus.open({ url: u.toString() })).rejects.toSatisfy(failsWith('storage-permanent', /SQLSTATE 28P01/));
    const nodb = new URL(URL_);
    nodb.pathname = '/no_such_database_sbkit';
    await expect(PgConsensus.open({ url: nodb.toString() })).rejects.toSatisfy(failsWith('storage-permanent', /SQLSTATE 3D000.*no_such_database_sbkit/));
  });

  it('a statement the server refuses (the table dropped under us) is storage-permanent; a closed client too', async () => {
    const c = await openPg();
    await withAdmin(URL_, (admin) => admin.query(`DROP TABLE ${c.table}`));
    await expect(c.compareAndSet('k', null, v(0))).rejects.toSatisfy(failsWith('storage-permanent', /SQLSTATE 42P01/));
    await expect(c.head('k')).rejects.toSatisfy(failsWith('storage-permanent', /SQLSTATE 42P01/));
    await c.close();
    await c.close();
    await expect(c.scan('k', 0)).rejects.toSatisfy(failsWith('storage-permanent', /closed/));
  });

  it('indeterminate, not applied: the backend is terminated while the CaS waits inside its statement', async () => {
    const victim = await openPg({ table: a.table });
    const key = 'terminated';
    await victim.compareAndSet(key, null, v(0));
    await withAdmin(URL_, async (blocker) => {
      // An uncommitted row on (key, 1): the CaS's insert waits for this transaction.
      await blocker.query('BEGIN');
      await blocker.query(`INSERT INTO ${a.table} VALUES ($1, 1, '\\x00')`, [key]);
      const cas = victim.compareAndSet(key, 0, v(1, 7));
      cas.catch(() => {});
      await terminate(await waitingBackend(victim.app));
      await expect(cas).rejects.toSatisfy(failsWith('storage-indeterminate', /server closed the connection \(FATAL, SQLSTATE 57P01\) after the statement was sent: it may or may not have been applied/));
      await blocker.query('ROLLBACK');
    });
    expect((await a.head(key))?.seqNo).toBe(0); // it was not applied
    expect(await victim.compareAndSet(key, 0, v(1, 8))).toEqual({ ok: true }); // the pool reconnects
    await victim.close();
  });

  it('indeterminate, applied: the commit happened and the answer was lost on the way back', async () => {
    const pgUrl = new URL(URL_);
    const proxy = await startProxy(pgUrl.hostname, Number(pgUrl.port || 5432));
    try {
      pgUrl.port = String(proxy.port);
      const c = await openPg({ url: pgUrl.toString(), table: a.table, poolSize: 1 });
      const key = 'answer-lost';
      expect(await c.compareAndSet(key, null, v(0))).toEqual({ ok: true });
      proxy.dropNextReply();
      await expect(c.compareAndSet(key, 0, v(1, 42))).rejects.toSatisfy(failsWith('storage-indeterminate', /connection was lost after the statement was sent/));
      expect(proxy.cut).toBe(1);
      expect(await a.head(key)).toEqual(v(1, 42)); // it was applied
      expect(await c.compareAndSet(key, 1, v(2))).toEqual({ ok: true });
      await c.close();
    } finally {
      await proxy.close();
    }
  });

  it('indeterminate past the deadline: a CaS blocked on a lock times out, then commits after we gave up', async () => {
    const c = await openPg({ table: a.table, timeoutMs: 400 });
    const key = 'late-commit';
    // the first version through `a` (the default deadline): c's short one is only for the blocked call
    await a.compareAndSet(key, null, v(0));
    await withAdmin(URL_, async (blocker) => {
      await blocker.query('BEGIN');
      await blocker.query(`INSERT INTO ${a.table} VALUES ($1, 1, '\\x00')`, [key]);
      await expect(c.compareAndSet(key, 0, v(1, 9))).rejects.toSatisfy(failsWith('storage-indeterminate', /no answer within 400 ms after the statement was sent/));
      await blocker.query('ROLLBACK');
    });
    let head: VersionedData | undefined;
    for (let i = 0; i < 3000 && head?.seqNo !== 1; i++) {
      head = await a.head(key);
      if (head?.seqNo !== 1) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(head).toEqual(v(1, 9));
    await c.close();
  });

  it('a read whose backend is terminated mid-statement is storage-transient (it changed nothing)', async () => {
    const c = await openPg({ table: a.table });
    await withAdmin(URL_, async (blocker) => {
      await blocker.query('BEGIN');
      await blocker.query(`LOCK TABLE ${a.table} IN ACCESS EXCLUSIVE MODE`);
      const head = c.head('race');
      head.catch(() => {});
      await terminate(await waitingBackend(c.app));
      await expect(head).rejects.toSatisfy(failsWith('storage-transient', /a read: nothing was changed/));
      await blocker.query('ROLLBACK');
    });
    expect((await c.head('race'))?.seqNo).toBe(150);
    await c.close();
  });

  it('a session whose isolation is not READ COMMITTED is refused at open (the URL\'s options win over ours)', async () => {
    const u = new URL(URL_);
    u.searchParams.set('options', '-c default_transaction_isolation=serializable');
    await expect(openPg({ url: u.toString() })).rejects.toSatisfy(failsWith('storage-permanent', /transaction isolation is "serializable", expected "read committed"/));
  });

  it('a foreign row with a negative sequence number is a consensus-invariant error', async () => {
    await withAdmin(URL_, (admin) => admin.query(`INSERT INTO ${a.table} VALUES ('foreign', -1, '\\x00')`));
    await expect(a.scan('foreign', -5)).rejects.toSatisfy(failsWith('consensus-invariant', /sequence number -1 is not a safe non-negative integer/));
  });

  it('bad options are invalid-backend', async () => {
    await expect(PgConsensus.open({ url: URL_, table: 'Bad-Name' })).rejects.toSatisfy(failsWith('invalid-backend', /consensus table must match/));
    await expect(PgConsensus.open({ url: URL_, timeoutMs: 0 })).rejects.toSatisfy(failsWith('invalid-backend', /timeoutMs must be an integer ≥ 1/));
  });
});
