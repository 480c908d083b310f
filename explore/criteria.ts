/**
 * The issue's done-criteria, evaluated on a steady comparison of every registered variant: each
 * variant's own (explore/variants/, in registry order), then per row nothing lost, duplicated or leaked
 * and the model predicting every append. `npm start` prints them and the report shows them; they are
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

export function evaluateCriteria(c: Comparison): Criterion[] {
  const rows = new Map(VARIANTS.map((v) => [v, headlineRow(c, v)]));
  if ([...rows.values()].some((r) => r === undefined)) {
    return [{ name: 'every registered variant compared', ok: false, detail: `run compare with --variants ${VARIANTS.join(',')}` }];
  }
  const row = (v: string): Figures => rows.get(v) as Figures;
  const workers = c.setup.workers * c.setup.processes;
  const out: Criterion[] = EXPLORE_VARIANTS.flatMap((v) => v.criteria({ row, workers }));
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
