/**
 * The checks of a run on real storage (production compare, the crash test): its trace, recorded under
 * real concurrency, is put in the shard's order (impl/linearize.ts), replayed on the model (every append
 * predicted exactly, nothing left pending: model-agreement.ts) and judged by spec/'s always and
 * eventually properties on its final view, with the storage facts the audit of the real database and
 * files gives. model/ and spec/ are imported lazily, as everywhere in explore/.
 */
import type { TraceEvent } from '../vocab/index.ts';
import { linearizeByShard } from '../impl/linearize.ts';
import type { ModelConfig } from '../model/config.ts';
import type { StorageFacts } from '../spec/view.ts';
import { agreementOn, type ModelAgreement } from './model-agreement.ts';

export interface RealCheck {
  /** The trace put in the shard's order (the trace as given when no order fits). */
  readonly trace: readonly TraceEvent[];
  /** Events the linearization placed before one that preceded them (0: the trace was in order). */
  readonly moved: number;
  readonly model: ModelAgreement;
  /** `name: why` of every always/eventually property that failed on the final view. */
  readonly propertyFailures: readonly string[];
  /** The sometimes-properties the run witnessed. */
  readonly witnessed: readonly string[];
}

/** Property reasons can list thousands of update ids: one line each, at most this long. */
const MAX_REASON = 300;
const clip = (s: string): string => (s.length <= MAX_REASON ? s : `${s.slice(0, MAX_REASON - 1)}…`);

export async function checkRealTrace(cfg: ModelConfig, trace: readonly TraceEvent[], storage?: StorageFacts): Promise<RealCheck> {
  const linear = linearizeByShard(trace);
  if (!linear.ok) {
    const model = { agrees: false, appends: 0, detail: `no order of the trace fits the shard: ${linear.why.slice(0, 400)}` };
    return { trace, moved: 0, model, propertyFailures: [], witnessed: [] };
  }
  const model = await agreementOn(cfg, linear.trace);
  const [{ properties }, { viewFromTrace }, { policyOf }] = await Promise.all([import('../spec/properties.ts'), import('../spec/view.ts'), import('../model/variants/index.ts')]);
  const view = viewFromTrace(cfg, linear.trace, { final: true, ...(storage === undefined ? {} : { storage }) });
  const propertyFailures: string[] = [];
  const witnessed: string[] = [];
  for (const p of policyOf(cfg).properties(properties)) {
    const verdict = p.check(view);
    if (p.kind === 'sometimes') {
      if (verdict.ok) witnessed.push(p.name);
    } else if (!verdict.ok) propertyFailures.push(clip(`${p.name}: ${verdict.why}`));
  }
  return { trace: linear.trace, moved: linear.moved, model, propertyFailures, witnessed };
}
