/**
 * The variant registry of impl/: every variant's implementation definition, in the order every listing
 * follows (compare's rows, the check's variants, the report). Code outside a variant's own files asks a
 * registry — this one, model/variants/index.ts or explore/variants/index.ts, which list the same names in
 * the same order (explore/variants/registry.test.ts) — and never spells or compares a variant's name.
 *
 * How to add a variant `v` (its own files, plus one line in each of the three registrations):
 * 1. `vocab/variants/v.ts`: its meta — name, one-line meaning, options (`VariantOptionSpec`: type,
 *    default, the command-line flag), the gallery bugs that show under it.
 * 2. `impl/variants/v.ts`: its `ImplVariant` (policy.ts: whether it shares, the barrier flag's default,
 *    the barrier of a flagged description), listed in `IMPL_VARIANTS` below.
 * 3. `model/variants/v.ts`: its `ModelVariant`, listed in model/variants/index.ts.
 * 4. `explore/variants/v.ts`: its presentation (chart style, done-criteria, model-check and coverage
 *    notes), listed in explore/variants/index.ts.
 * Then tests and docs (CONTEXT.md rows, vocab/PROTOCOL.md for what it changes in the protocol). Options
 * reach the command line, compare's setup, RunConfig/ModelConfig `variantOptions`, the check's workload
 * and its replay token without further code. A new mechanism — a trace event, a builder that behaves
 * otherwise — is protocol, not registration: PROTOCOL.md, vocab's TraceEvent, impl/shared/ and the
 * model's machines.
 */
import type { Variant, VariantMeta } from '../../vocab/index.ts';
import { SbkitError, show } from '../errors.ts';
import { barrier } from './barrier.ts';
import { barrierTimeout } from './barrier-timeout.ts';
import { bestEffort } from './best-effort.ts';
import { off } from './off.ts';
import { resolveVariantOptions } from './options.ts';
import type { ImplVariant, SharingPolicy } from './policy.ts';

export type { BarrierSpec, ImplVariant, SharingPolicy } from './policy.ts';

export const IMPL_VARIANTS: readonly ImplVariant[] = [off, bestEffort, barrier, barrierTimeout];

/** The registered variants' names, in registry order. */
export const VARIANTS: readonly Variant[] = IMPL_VARIANTS.map((v) => v.meta.name);

/** A registered variant, or `invalid-config` naming the field and the registered names. */
export function implVariant(name: unknown, field = 'variant'): ImplVariant {
  const found = IMPL_VARIANTS.find((v) => v.meta.name === name);
  if (found === undefined) throw new SbkitError('invalid-config', `${field} must be one of ${VARIANTS.join(', ')}, got ${show(name)}`);
  return found;
}

export const variantMeta = (name: Variant): VariantMeta => implVariant(name).meta;

/** The policy of a run of `name` with `options` (RunConfig.variantOptions: validated, defaulted). */
export function sharingPolicy(name: unknown, options?: unknown): SharingPolicy {
  const v = implVariant(name);
  return v.policy(resolveVariantOptions(v.meta, options));
}

/** The policy the async sink (v1) runs with whatever the run's variant: off's (it never uses
 * SharedBatches, #37591). */
export const ASYNC_SINK_POLICY: SharingPolicy = off.policy({});

/** Whether the variant shares at all (off: no). */
export const sharesAtAll = (name: Variant): boolean => sharingPolicy(name).sharing;

/** Whether the barrier of a run of `name` with its default options has a deadline (it may time out). */
export const barrierHasDeadline = (name: Variant): boolean => sharingPolicy(name).barrier(1).deadline !== undefined;

/** The barrier flag of a run of `name` that sets none. */
export const barrierByDefault = (name: Variant): boolean => sharingPolicy(name).barrierByDefault;
