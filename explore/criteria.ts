/**
 * The issue's done-criteria, evaluated on a steady comparison of all three variants. `npm start` prints
 * them and the report shows them; they are measurements, so a miss is reported, never hidden.
 */
import { headlineRow } from './cases.ts';
import type { Comparison } from './types.ts';
import { fixed, percent } from './format.ts';

export interface Criterion {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
}

/** Barrier PUTs may be at most this share of off's. */
const MAX_BARRIER_PUT_SHARE = 0.2;
/** Off counts as "about one part per worker" within this relative distance. */
const OFF_TOLERANCE = 0.1;

export function evaluateCriteria(c: Comparison): Criterion[] {
  const off = headlineRow(c, 'off');
  const be = headlineRow(c, 'best-effort');
  const barrier = headlineRow(c, 'barrier');
  if (off === undefined || be === undefined || barrier === undefined) {
    return [{ name: 'all three variants compared', ok: false, detail: 'run compare with --variants off,best-effort,barrier' }];
  }
  const workers = c.setup.workers * c.setup.processes;
  const out: Criterion[] = [
    {
      name: 'barrier: exactly one part per append',
      ok: barrier.partsPerAppend === 1,
      detail: `barrier parts/append = ${fixed(barrier.partsPerAppend, 3)}`,
    },
    {
      name: 'best-effort strictly between barrier (1.0) and off',
      ok: be.partsPerAppend > 1 && be.partsPerAppend < off.partsPerAppend,
      detail: `1.0 < ${fixed(be.partsPerAppend, 3)} < ${fixed(off.partsPerAppend, 3)}`,
    },
    {
      name: 'off: about one part per worker',
      ok: Math.abs(off.partsPerAppend - workers) <= OFF_TOLERANCE * workers,
      detail: `off parts/append = ${fixed(off.partsPerAppend, 3)} at ${workers} workers`,
    },
    {
      name: 'barrier blob PUTs at most 20% of off',
      ok: barrier.blobPuts <= MAX_BARRIER_PUT_SHARE * off.blobPuts,
      detail: `${barrier.blobPuts} of ${off.blobPuts} = ${percent(barrier.blobPuts, off.blobPuts)}`,
    },
  ];
  for (const r of c.rows) {
    out.push({
      name: `${r.variant}: nothing lost, duplicated or leaked`,
      ok: r.lost === 0 && r.duplicated === 0 && r.leakedBlobs === 0,
      detail: `lost ${r.lost}, duplicated ${r.duplicated}, leaked ${r.leakedBlobs}`,
    });
  }
  for (const r of c.rows) {
    out.push({ name: `${r.variant}: model predicts every append`, ok: r.modelAgrees, detail: r.modelDetail });
  }
  return out;
}

export function renderCriteria(cs: readonly Criterion[]): string {
  return `${cs.map((c) => `  ${c.ok ? 'ok  ' : 'MISS'} ${c.name} (${c.detail})`).join('\n')}\n`;
}
