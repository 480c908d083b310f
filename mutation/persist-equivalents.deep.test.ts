/**
 * Evidence for two survivors of impl/persist (mutation/evidence.ts), over the killer's whole budget:
 * - retry.ts `reportFault` leaves `by` out of an incarnation's `fault` event; its mutant sets it
 *   `undefined`. Every reader compares the field with `undefined` or `'supervisor'`, and a trace leaves
 *   its process as JSON, which drops it: here the killer's stages run with every such event emitted the
 *   mutant's way (a spy on `Trace.emit`), and print word for word what they print without.
 * - blob-client.ts `delete`'s `opts.retries` is false only in the arm of the gallery bug
 *   `mismatch-delete-error-swallowed`: with it forced true the bug still swallows permanent failures,
 *   and the gallery stage still catches it (shown in a copy of the kit with the mutant planted).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BUG_NAMES } from '../vocab/index.ts';
import type { TraceEvent } from '../vocab/index.ts';
import { Trace } from '../impl/runtime/trace.ts';
import { runCheck, type CheckOptions } from '../conformance/check.ts';
import { DEFAULT_FAULT_RATE } from '../conformance/faults.ts';
import { plant } from '../conformance/test-support/plant.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

/** The killer's stage `opts` (seed 1, one job, unshrunk): its exit code and output. */
async function stage(opts: Partial<CheckOptions>): Promise<{ code: number; output: string }> {
  const r = await runCheck({ variant: 'all', seed: 1, jobs: 1, shrink: false, ...opts });
  return { code: r.exitCode, output: r.output };
}

/** The same stage with every `fault` event that has no `by` emitted with `by: undefined`; how many were. */
async function withUndefinedBy(opts: Partial<CheckOptions>): Promise<{ code: number; output: string; rewritten: number }> {
  let rewritten = 0;
  const emit = Trace.prototype.emit;
  vi.spyOn(Trace.prototype, 'emit').mockImplementation(function (this: Trace, e: TraceEvent) {
    if (e.kind !== 'fault' || 'by' in e) return emit.call(this, e);
    rewritten += 1;
    return emit.call(this, { ...e, by: undefined });
  });
  try {
    return { ...(await stage(opts)), rewritten };
  } finally {
    vi.restoreAllMocks();
  }
}

describe("an incarnation's fault event with `by: undefined` (retry.ts reportFault's mutant) reads as one without", () => {
  it('the fault world prints word for word the same', async () => {
    const plain = await stage({ faults: DEFAULT_FAULT_RATE });
    const mutant = await withUndefinedBy({ faults: DEFAULT_FAULT_RATE });
    expect(plain.code, plain.output).toBe(0);
    expect(mutant.rewritten).toBeGreaterThan(1000);
    expect(mutant.code).toBe(plain.code);
    expect(mutant.output).toBe(plain.output);
  }, 1_800_000);

  it('the gallery: every bug is caught, and each report is word for word the same', async () => {
    let rewritten = 0;
    for (const bug of BUG_NAMES) {
      const plain = await stage({ bug });
      const mutant = await withUndefinedBy({ bug });
      rewritten += mutant.rewritten;
      expect(plain.code, `${bug}: ${plain.output}`).toBe(1);
      expect([bug, mutant.code, mutant.output]).toEqual([bug, plain.code, plain.output]);
    }
    expect(rewritten).toBeGreaterThan(0);
  }, 1_800_000);
});

describe('gallery-only: blob-client.ts delete with `opts.retries` forced true', () => {
  it('still shows mismatch-delete-error-swallowed', () => {
    const p = plant({ file: 'impl/persist/blob-client.ts', from: 'if (opts.retries) await retryExternal(', to: 'if (true) await retryExternal(' });
    try {
      const r = p.sbkit(['check', '--bug', 'mismatch-delete-error-swallowed', '--seed', '1', '--no-shrink']);
      expect(r.code, r.output).toBe(1);
      expect(r.output).toMatch(/FAILED/);
    } finally {
      p.dispose();
    }
  }, 600_000);
});
