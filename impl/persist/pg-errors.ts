/**
 * How a failed Postgres call maps onto the storage-failure taxonomy of errors.ts.
 *
 * What decides it is *when* the call failed and *what* the call was:
 * - `connect` phase (acquiring a connection, nothing of the call sent): the call did not take effect.
 *   Refused or reset connections, timeouts and a server that is starting or full are transient; bad
 *   credentials, a missing database or a host name that does not resolve are permanent.
 * - `sent` phase (the statement was handed to the connection): a server ERROR rolled the statement
 *   back (autocommit), so it did not take effect: transient or permanent by SQLSTATE. But a lost
 *   connection (reset, closed, our own deadline, or a FATAL from the server, which then closes the
 *   connection) leaves a *write* indeterminate: the server may have committed it before the answer was
 *   lost (e.g. a commit that already happened while the backend waited for synchronous replication).
 *   A lost *read* took no effect and is transient.
 */
import { SbkitError, type StorageFailureCode } from '../errors.ts';

export type PgPhase = 'connect' | 'sent';
export type PgOp = 'read' | 'write';

/** Our own deadline for one call (PgConsensusOptions.timeoutMs) expired. */
export class PgDeadline extends Error {
  constructor(readonly ms: number) {
    super(`no answer within ${ms} ms`);
  }
}

interface PgDatabaseError {
  readonly code: string;
  readonly severity: string;
  readonly message: string;
}

/** A server error response (pg's DatabaseError): a five-character SQLSTATE and a severity. */
export function isDatabaseError(e: unknown): e is PgDatabaseError {
  if (typeof e !== 'object' || e === null) return false;
  const { code, severity } = e as { code?: unknown; severity?: unknown };
  return typeof code === 'string' && code.length === 5 && typeof severity === 'string';
}

/** A Node.js system error (ECONNREFUSED, ECONNRESET, ENOTFOUND …). */
function systemErrorCode(e: unknown): string | undefined {
  if (typeof e !== 'object' || e === null) return undefined;
  const { code, syscall } = e as { code?: unknown; syscall?: unknown };
  return typeof code === 'string' && typeof syscall === 'string' ? code : undefined;
}

/** pg's own messages for a connection that went away or could not be had in time. */
const CONNECTION_LOST = /Connection terminated|timeout exceeded when trying to connect|Connection terminated due to connection timeout/;

/** SQLSTATEs no retry can fix: credentials, database, schema, privileges, data. */
function isPermanentState(code: string): boolean {
  const cls = code.slice(0, 2);
  return cls === '28' || cls === '42' || cls === '22' || cls === '0A' || code === '3D000' || code === '3F000';
}

/** SQLSTATEs of a statement that was refused or rolled back and may succeed if tried again. */
function isTransientState(code: string): boolean {
  const cls = code.slice(0, 2);
  return cls === '08' || cls === '40' || cls === '53' || code === '55P03' || code === '57014' || code.startsWith('57P');
}

export interface PgFailure {
  readonly code: StorageFailureCode;
  /** What happened, in words, for the error message. */
  readonly why: string;
}

export function classifyPgError(e: unknown, phase: PgPhase, op: PgOp): PgFailure {
  const lost = (what: string): PgFailure =>
    phase === 'sent' && op === 'write'
      ? { code: 'storage-indeterminate', why: `${what} after the statement was sent: it may or may not have been applied` }
      : { code: 'storage-transient', why: phase === 'sent' ? `${what} (a read: nothing was changed)` : `${what} before anything was sent` };

  if (isDatabaseError(e)) {
    const sqlstate = `SQLSTATE ${e.code}`;
    if (isPermanentState(e.code)) return { code: 'storage-permanent', why: `the server refused it (${sqlstate})` };
    if (e.severity === 'FATAL' || e.severity === 'PANIC') return lost(`the server closed the connection (${e.severity}, ${sqlstate})`);
    if (isTransientState(e.code)) return { code: 'storage-transient', why: `the server rolled it back (${sqlstate}): nothing was changed` };
    return { code: 'storage-permanent', why: `the server rejected it (${sqlstate})` };
  }
  if (e instanceof PgDeadline) return lost(`no answer within ${e.ms} ms`);
  const errno = systemErrorCode(e);
  if (errno === 'ENOTFOUND') return { code: 'storage-permanent', why: 'the host name does not resolve (ENOTFOUND)' };
  if (errno !== undefined) return lost(`connection failed (${errno})`);
  const message = e instanceof Error ? e.message : String(e);
  if (CONNECTION_LOST.test(message)) return lost('the connection was lost');
  // Anything else: at connect, a client-side refusal (TLS, authentication setup) no retry fixes;
  // after sending, we cannot tell what the server did.
  return phase === 'connect' ? { code: 'storage-permanent', why: 'the connection could not be set up' } : lost('the call failed');
}

/** The typed error for a failed call: `what` names the store and the call. */
export function pgStorageError(what: string, e: unknown, phase: PgPhase, op: PgOp): SbkitError {
  const { code, why } = classifyPgError(e, phase, op);
  const detail = e instanceof Error ? e.message : String(e);
  return new SbkitError(code, `${what}: ${why}: ${detail}`, { cause: e });
}
