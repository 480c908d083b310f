/**
 * The judge of a program: each call with its predicted outcome (done, or refused with a code and the names
 * its message gives), and what disagreed; a call that never returns is a deadlock.
 */
import { SbkitError, type SbkitErrorCode } from '../../impl/errors.ts';
import type { Scenario } from './scenario.ts';
import { Draw } from './draw.ts';

/** What the model predicts for one call. */
export type Expect =
  | { readonly ok: true }
  | { readonly ok: false; readonly code: SbkitErrorCode; readonly names: readonly string[]; readonly causeNames?: string };

export const OK: Expect = { ok: true };
export const refused = (code: SbkitErrorCode, ...names: string[]): Expect => ({ ok: false, code, names });

/** Calls, predictions and what disagreed. */
export class Judge {
  readonly program: string[] = [];
  readonly refusals: Record<string, number> = {};
  readonly wrong: string[] = [];
  constructor(
    readonly scenario: Scenario,
    readonly draw: Draw,
  ) {}

  /** Makes the call, and compares its outcome with the prediction. Returns the call's value when it
   * was predicted to succeed and did. */
  async call<T>(what: string, expect: Expect, run: () => Promise<T> | T): Promise<T | undefined> {
    this.program.push(what);
    if (!expect.ok) this.refusals[expect.code] = (this.refusals[expect.code] ?? 0) + 1;
    let value: T;
    try {
      value = await returns(run());
    } catch (e) {
      if (expect.ok) {
        this.wrong.push(`${what}: expected to succeed, threw ${describe(e)}`);
        return undefined;
      }
      if (!(e instanceof SbkitError)) {
        this.wrong.push(`${what}: expected ${expect.code}, threw ${describe(e)} (not a typed SbkitError)`);
      } else if (e.code !== expect.code) {
        this.wrong.push(`${what}: expected ${expect.code}, refused with ${e.code}: "${e.message}"`);
      } else {
        const missing = expect.names.filter((n) => !e.message.includes(n));
        if (missing.length > 0) this.wrong.push(`${what}: refused (${e.code}) but the message does not name ${missing.map((m) => JSON.stringify(m)).join(', ')}: "${e.message}"`);
        // A refusal that reports another failure carries it as its cause (what a caller inspects or logs).
        if (expect.causeNames !== undefined && !(e.cause instanceof Error && e.cause.message.includes(expect.causeNames))) {
          this.wrong.push(`${what}: refused (${e.code}) without the failure it reports as its cause (${JSON.stringify(expect.causeNames)}): cause is ${describe(e.cause)}`);
        }
      }
      return undefined;
    }
    if (!expect.ok) {
      this.wrong.push(`${what}: expected ${expect.code}, but it succeeded`);
      return undefined;
    }
    return value;
  }

  /** A state the model predicts, compared with what the implementation shows. */
  same(what: string, expected: unknown, actual: unknown): void {
    const e = JSON.stringify(expected);
    const a = JSON.stringify(actual);
    if (e !== a) this.wrong.push(`after ${this.program.length} calls: ${what} is ${a}, the model says ${e}`);
  }
}

/** A call that never returned: the object deadlocked (the model's "blocked" is never a right answer). */
class Stalled extends Error {
  override readonly name = 'Stalled';
}

/**
 * `p`, or a `Stalled` refusal when it can never settle. The objects here wait on promises only (in-memory
 * stores, the pass-through scheduler): once the microtask queue has drained (a `process.nextTick` runs
 * only then) and a full event-loop turn has passed, an unsettled call is blocked for good. Without this a
 * deadlocked object left `sbkit check` with nothing to run: Node exited with code 13 and no message.
 */
async function returns<T>(p: Promise<T> | T): Promise<T> {
  if (!(p instanceof Promise)) return p;
  let settled = false;
  const mark = (): void => {
    settled = true;
  };
  p.then(mark, mark);
  await new Promise<void>((resolve) => process.nextTick(resolve));
  if (!settled) await new Promise<void>((resolve) => setImmediate(resolve));
  if (!settled) throw new Stalled('never returned: the object is blocked on itself (a deadlock)');
  return p;
}

export function describe(e: unknown): string {
  if (e instanceof SbkitError) return `${e.code}: "${e.message}"`;
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}
