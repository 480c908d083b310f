/**
 * The done-criteria, evaluated on a steady comparison: the own criteria of each registered variant the
 * comparison ran (explore/variants/, in registry order; a variant that did not run is not judged, and one
 * whose criteria read a variant that did not run says so as a miss), then per row nothing lost,
 * duplicated or leaked and the model predicting every append. `npm start` prints them and the report shows them; they are
 * measurements, so a miss is reported, never hidden.
 */
import { headlineRow } from './cases.ts';
import type { Comparison, Figures } from './types.ts';
import { EXPLORE_VARIANTS, VARIANTS } from './variants/index.ts';

export interface Criterion {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
}

/** Figures of a variant that did not run: every field 0. */
const ABSENT = new Proxy({}, { get: () => 0 }) as Figures;

export function evaluateCriteria(c: Comparison): Criterion[] {
  const ran = EXPLORE_VARIANTS.filter((v) => headlineRow(c, v.meta.name) !== undefined);
  if (ran.length === 0) {
    return [{ name: 'a registered variant compared', ok: false, detail: `run compare with --variants ${VARIANTS.join(',')}` }];
  }
  const workers = c.setup.workers * c.setup.processes;
  const out: Criterion[] = [];
  for (const v of ran) {
    const missing: string[] = [];
    // A variant that did not run reads as zeros here; the criteria that read it are replaced by one miss.
    const row = (name: string): Figures => headlineRow(c, name) ?? (missing.push(name), ABSENT);
    const own = v.criteria({ row, workers });
    if (missing.length === 0) out.push(...own);
    else {
      const need = [...new Set(missing)];
      out.push({ name: `${v.meta.name}: its criteria compare it with ${need.join(', ')}`, ok: false, detail: `run compare with --variants ${[v.meta.name, ...need].join(',')}` });
    }
  }
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
