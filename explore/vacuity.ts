/**
 * Properties that hold vacuously in a model-check configuration: nothing the configuration can do gives
 * them anything to judge (no finish under off, no barrier append outside the barrier, no fault without
 * --faults …). `sbkit model --check` prints them as "vacuous (needs …)" instead of "holds", so a verdict
 * never claims more than the search could show.
 *
 * Each rule pairs the configurations where it applies (`needs`) with the event that would give the
 * property something to judge (`premise`, on a SystemView); vacuity.test.ts runs the model's exhaustive
 * search with every premise as a `sometimes` property and holds the two together: a premise is never
 * witnessed exactly where its rule says the property is vacuous.
 */
import type { Variant } from '../vocab/index.ts';
import type { SystemView } from '../spec/view.ts';
import { barrierByDefault, sharesAtAll } from './variants/index.ts';

/** What decides vacuity: the variant, the replicas and whether the fault world is explored. */
export interface VacuityConfig {
  readonly variant: Variant;
  readonly replicas: number;
  /** --faults, or a model bug that implies it. */
  readonly faults: boolean;
}

export interface VacuityRule {
  readonly property: string;
  /** What the configuration lacks for the property to judge anything, or undefined when it lacks nothing. */
  readonly needs: (c: VacuityConfig) => string | undefined;
  /** Whether a view shows what the property judges (a witness that it is not vacuous). */
  readonly premise: (view: SystemView) => boolean;
}

export const VACUITY_RULES: readonly VacuityRule[] = [
  {
    property: 'barrier-every-finish-returns',
    needs: (c) => (sharesAtAll(c.variant) ? undefined : `needs a sharing variant: ${c.variant} finishes no handle`),
    premise: (v) => v.finishes.begun > 0,
  },
  {
    property: 'barrier-one-shared-batch-per-process',
    needs: (c) => (sharesAtAll(c.variant) && barrierByDefault(c.variant) ? undefined : `needs a barrier variant: ${c.variant} mints no append with the barrier`),
    premise: (v) => v.appends.some((a) => a.barrier && a.maxBytes !== 0),
  },
  {
    // a barrier with a deadline's version of the one above (model/variants/policy.ts withDeadline)
    property: 'barrier-one-shared-batch-per-group',
    needs: (c) => (sharesAtAll(c.variant) && barrierByDefault(c.variant) ? undefined : `needs a barrier variant: ${c.variant} mints no append with the barrier`),
    premise: (v) => v.appends.some((a) => a.barrier && a.maxBytes !== 0),
  },
  {
    property: 'converges-after-faults',
    needs: (c) => (c.faults ? undefined : 'needs --faults: no fault to converge after'),
    premise: (v) => v.faults.aborts > 0 || v.faults.indeterminateCommits > 0,
  },
  {
    property: 'leaks-only-from-aborts',
    needs: (c) => (c.faults ? undefined : 'needs --faults: the model keeps storage facts in the fault world only'),
    premise: (v) => v.storage !== undefined,
  },
  {
    property: 'leaks-collected',
    needs: (c) => (c.faults ? undefined : 'needs --faults: no cleanup runs without the fault world'),
    premise: (v) => v.storage?.leakedAfterCleanup !== undefined && v.storage.leakedAfterCleanup !== null,
  },
  {
    property: 'no-referenced-blob-deleted',
    needs: (c) => (c.faults || c.replicas >= 2 ? undefined : 'needs --replicas 2 or --faults: no append is refused and nothing is cleaned up'),
    premise: (v) => v.appends.some((a) => !a.result.ok && (a.deleted ?? 0) > 0) || v.storage !== undefined,
  },
];

/** Why `property` is vacuous in `c` (the text after "vacuous"), or undefined. */
export function vacuousBecause(property: string, c: VacuityConfig): string | undefined {
  return VACUITY_RULES.find((r) => r.property === property)?.needs(c);
}
