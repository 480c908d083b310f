/**
 * The shortest counterexample of `sbkit model --check` as a sequence diagram (explore/sequence.ts):
 * the first violated property, over the variants in order; the breadth-first search makes its trace a
 * shortest one. The mark sits after the last event: the state it reached violates the property.
 */
import type { ModelCheckResult } from './model-check.ts';
import { type Sequence, sequenceOf } from './sequence.ts';

export function modelCounterexampleSequence(r: ModelCheckResult): Sequence | undefined {
  for (const v of r.variants) {
    const p = v.properties.find((x) => x.verdict === 'violated' && x.trace !== undefined);
    if (p === undefined || p.trace === undefined) continue;
    const bug = r.request.modelBug === undefined ? '' : ` with model bug ${r.request.modelBug}`;
    return sequenceOf(p.trace, {
      title: `model ${v.variant}${bug}: shortest counterexample to ${p.name} (${p.trace.length} events)`,
      firstIndex: 1,
      mark: { index: p.trace.length, text: `${p.kind} ${p.name} VIOLATED: ${p.why ?? ''}` },
      notes: [`${p.name}: ${p.why ?? ''}`, `reproduce: sbkit model --check --variant ${v.variant}${r.request.modelBug === undefined ? '' : ` --model-bug ${r.request.modelBug}`}`],
    });
  }
  return undefined;
}
