/** The step function: the model's prediction compared with the given event, field by field. */
import type { TraceEvent } from '../../vocab/index.ts';
import type { ModelConfig } from '../config.ts';
import type { SystemState } from '../state.ts';
import type { StepResult } from './prediction.ts';
import { enabledActions } from './enabled.ts';
import { predict } from './predict.ts';

/**
 * First field (depth-first, in the model's field order) where `actual` differs from `expected`, as
 * `path expected X, got Y`. Arrays of plain values are reported whole (`stage.updates expected [1,2] …`).
 */
export function firstDifference(expected: unknown, actual: unknown, path: string): string | null {
  return covers(expected, actual) ? null : differenceAt(expected, actual, path);
}

/** `actual` has every field of `expected` with an equal value: the allocation-free common case. */
function covers(expected: unknown, actual: unknown): boolean {
  if (typeof expected !== 'object' || expected === null) return Object.is(expected, actual);
  if (typeof actual !== 'object' || actual === null) return false;
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) return false;
    for (let i = 0; i < expected.length; i++) if (!covers(expected[i], actual[i])) return false;
    return true;
  }
  if (Array.isArray(actual)) return false;
  const act = actual as Record<string, unknown>;
  const exp = expected as Record<string, unknown>;
  for (const key in exp) if (!covers(exp[key], act[key])) return false;
  return true;
}

function differenceAt(expected: unknown, actual: unknown, path: string): string | null {
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) return describeDiff(path, expected, actual);
    for (let i = 0; i < expected.length; i++) {
      const d = differenceAt(expected[i], actual[i], `${path}[${i}]`);
      if (d !== null) return isPlain(expected[i]) ? describeDiff(path, expected, actual) : d;
    }
    return null;
  }
  if (typeof expected === 'object' && expected !== null) {
    if (typeof actual !== 'object' || actual === null || Array.isArray(actual)) {
      return describeDiff(path, expected, actual);
    }
    const act = actual as Record<string, unknown>;
    for (const [key, value] of Object.entries(expected)) {
      const d = differenceAt(value, act[key], `${path}.${key}`);
      if (d !== null) return d;
    }
    return null;
  }
  return Object.is(expected, actual) ? null : describeDiff(path, expected, actual);
}

const isPlain = (x: unknown): boolean => typeof x !== 'object' || x === null;
const describeDiff = (path: string, expected: unknown, actual: unknown): string =>
  `${path} expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;

export function step(cfg: ModelConfig, state: SystemState, event: TraceEvent): StepResult {
  const p = predict(cfg, state, event);
  if (!p.ok) {
    const expected = enabledActions(cfg, state).find((x) => sameActor(x, event));
    return { ok: false, reason: `not enabled: ${event.kind}: ${p.reason}`, ...(expected === undefined ? {} : { expected }) };
  }
  const diff = firstDifference(p.expected, event, event.kind);
  if (diff !== null) return { ok: false, reason: `predicted field differs: ${diff}`, expected: p.expected };
  return { ok: true, state: p.next };
}

/** Same actor: the same worker, or the same registry, or the same replica for replica-level events. */
function sameActor(a: TraceEvent, b: TraceEvent): boolean {
  const actor = (e: TraceEvent): string =>
    'worker' in e
      ? `w${e.replica}/${e.worker}`
      : 'process' in e
        ? `p${e.replica}/${e.process}`
        : `r${e.replica}`;
  return actor(a) === actor(b);
}
