/**
 * Typed errors of impl/. One class, `SbkitError`, with a `code` naming the problem; the message says
 * what was wrong and with which value, e.g. "maxBytes must be a non-negative integer, got -1".
 *
 * Bad input and broken invariants always throw one of these: never a hang, never silent loss.
 */

export type SbkitErrorCode =
  /** `maxBytes` (a number or the value a knob function returned) is negative, NaN or fractional. */
  | 'invalid-max-bytes'
  /** Fewer than one worker, process, replica (`replicas: 0`) or participant; a negative worker index. */
  | 'invalid-workers'
  /** Any other malformed configuration: intervals, persist tunables, duplicate update ids, a malformed
   * update (not an object, a key that is not well-formed UTF-16, |diff| above MAX_ABS_DIFF) … */
  | 'invalid-config'
  /** A bug name the gallery does not know. */
  | 'unknown-bug'
  /** builder()/noteSkip() for a live shared id with a different [lower, upper) or participants. */
  | 'conflicting-descriptions'
  /** push() on a handle that already finished or was dropped, or whose builder's channel was closed
   * (a correct protocol never pushes into a closed channel; only gallery bugs lose such pushes). */
  | 'push-after-finish'
  /** finish() (or drop()) on a handle that already finished or was dropped. */
  | 'finish-twice'
  /** finish() (or drop()) while a push() of the same handle is still in flight (the push could be lost). */
  | 'push-in-flight'
  /** push() into a builder whose task failed; the error's `cause` is the task's failure. */
  | 'builder-failed'
  /** A blob PUT to a key that already exists: part keys are unique per writer incarnation, so this is
   * a second writer with the same id or a bug; the writer refuses rather than overwrite. */
  | 'blob-key-exists'
  /** A barrier received more arrivals (finish or skip) than it has participants. */
  | 'barrier-over-report'
  /** An update whose time is outside the batch's [lower, upper). */
  | 'update-outside-description'
  /** delete() or compareAndAppend() of a batch that was already appended or deleted. */
  | 'batch-consumed'
  /** compareAndAppend() arguments that cannot describe one append (e.g. a batch for another range). */
  | 'invalid-append'
  /** Bytes that do not decode as a part or a state diff. */
  | 'corrupt-data'
  /** A consensus implementation broke its contract (e.g. a sequence number that does not advance). */
  | 'consensus-invariant'
  /** A replica crashed (permanent storage failures) more often than the run's `maxRestarts` allows, or
   * one restart's start (claim, shard read) failed permanently more often than that. */
  | 'replica-gave-up'
  /** A task of a replica's incarnation failed after every sink it hosts had sealed: there is nothing
   * left to abort, so the supervisor cannot act on the failure and fails the run with it (`cause`). */
  | 'incarnation-failed'
  /** A storage backend spec that does not parse: `--consensus` not `mem` or a postgres:// URL, a
   * malformed URL, an unknown URL option, `--blob` not `mem` or `file:DIR`, a bad table name. */
  | 'invalid-backend'
  /** A blob key no store can hold: empty, not well-formed UTF-16, or too long for a file name. */
  | 'invalid-blob-key'
  /** A blob or consensus call failed and did NOT take effect (a refused connection, a throttled
   * request, an error returned before anything was written): safe to retry as it is. */
  | 'storage-transient'
  /** A blob or consensus call failed and MAY have taken effect: its answer was lost (a timeout, a
   * connection dropped during a commit). Jepsen's "indeterminate" result; a compare-and-set that
   * ends this way must be resolved by reading state back (persist: the idempotency token). */
  | 'storage-indeterminate'
  /** A blob or consensus call failed in a way retrying cannot help (credentials, a missing bucket,
   * a schema that is not ours): the replica goes down, as a crash would. */
  | 'storage-permanent';

/** The three storage-failure codes, in the order a retry loop cares about them. */
export const STORAGE_FAILURE_CODES = ['storage-transient', 'storage-indeterminate', 'storage-permanent'] as const;
export type StorageFailureCode = (typeof STORAGE_FAILURE_CODES)[number];

export class SbkitError extends Error {
  override readonly name = 'SbkitError';
  constructor(
    readonly code: SbkitErrorCode,
    message: string,
    options?: { readonly cause?: unknown },
  ) {
    super(message, options);
  }
}

/** True iff `e` is an SbkitError (with `code`, when given). */
export function isSbkitError(e: unknown, code?: SbkitErrorCode): e is SbkitError {
  return e instanceof SbkitError && (code === undefined || e.code === code);
}

/** Renders a value for an error message: numbers as written, strings quoted. */
export function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null || value === undefined) {
    return String(value);
  }
  if (typeof value === 'function') return 'a function';
  return JSON.stringify(value) ?? String(value);
}

/** Throws unless `n` is an integer ≥ `min`; `what` names the field in the message. */
export function requireInteger(
  n: number,
  min: number,
  what: string,
  code: SbkitErrorCode = 'invalid-config',
): number {
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < min) {
    const bound = min === 0 ? 'a non-negative integer' : `an integer ≥ ${min}`;
    throw new SbkitError(code, `${what} must be ${bound}, got ${show(n)}`);
  }
  return n;
}

/** True iff `e` is a storage failure (transient, indeterminate or permanent). */
export function isStorageFailure(e: unknown): e is SbkitError & { readonly code: StorageFailureCode } {
  return e instanceof SbkitError && (STORAGE_FAILURE_CODES as readonly string[]).includes(e.code);
}

/** The default branch of an exhaustive switch: the type checker proves it unreachable. */
export function unreachable(x: never): never {
  throw new Error(`unreachable: ${JSON.stringify(x)}`);
}
