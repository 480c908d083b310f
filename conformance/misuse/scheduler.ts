/** The scheduler the programs' objects run under. */
import type { Scheduler } from '../../impl/seams.ts';

/**
 * The scheduler the programs' objects run under: pass-through (every point resumes at once), except
 * that a program past POINT_LIMIT scheduling points is spinning — a retry loop that never ends, say, a
 * store that refuses for good retried forever — and its next point throws. Without the limit such a
 * loop runs on microtasks alone and `sbkit check` never returned (Stryker could only time it out).
 */
const POINT_LIMIT = 20_000;
let points = 0;
class Spinning extends Error {
  override readonly name = 'Spinning';
}
export const programScheduler: Scheduler = {
  point: () => (++points > POINT_LIMIT ? Promise.reject(new Spinning(`passed more than ${POINT_LIMIT} scheduling points: a loop that never ends`)) : Promise.resolve()),
};
/** A new program: no scheduling points passed yet. */
export function restartPoints(): void {
  points = 0;
}
