/**
 * The variant registry of model/: every variant's model definition, in the registry order of
 * impl/variants/index.ts (the same names, tested in explore/variants/registry.test.ts; how to add a
 * variant is written there). validateConfig (config.ts) refuses a name not listed here and an option
 * the variant does not take; system.ts asks `policyOf(cfg)`.
 */
import type { NoDataPolicy, Variant, VariantMeta, VariantOptions } from '../../vocab/index.ts';
import type { ModelConfig } from '../config.ts';
import { barrier } from './barrier.ts';
import { barrierTimeout } from './barrier-timeout.ts';
import { bestEffort } from './best-effort.ts';
import { off } from './off.ts';
import type { ModelPolicy, ModelVariant } from './policy.ts';

export type { ModelBarrier, ModelPolicy, ModelVariant } from './policy.ts';

export const MODEL_VARIANTS: readonly ModelVariant[] = [off, bestEffort, barrier, barrierTimeout];

/** The registered variants' names, in registry order. */
export const MODEL_VARIANT_NAMES: readonly Variant[] = MODEL_VARIANTS.map((v) => v.meta.name);

/** A registered variant, or undefined. */
export const modelVariant = (name: unknown): ModelVariant | undefined => MODEL_VARIANTS.find((v) => v.meta.name === name);

/** Each option of the variant: its given value, else its default (validateConfig checked the values). */
function optionsOf(meta: VariantMeta, given: ModelConfig['variantOptions']): VariantOptions {
  return Object.fromEntries(meta.options.map((o) => [o.name, given?.[o.name] ?? o.default]));
}

/** What a policy depends on: the configuration's variant and its options. */
export type VariantChoice = Pick<ModelConfig, 'variant' | 'variantOptions'>;

let lastConfig: VariantChoice | undefined;
let lastPolicy: ModelPolicy | undefined;

/** The policy of a (validated) configuration; computed once for the last configuration asked about. */
export function policyOf(cfg: VariantChoice): ModelPolicy {
  if (cfg === lastConfig && lastPolicy !== undefined) return lastPolicy;
  const v = modelVariant(cfg.variant);
  if (v === undefined) throw new RangeError(`no model variant ${JSON.stringify(cfg.variant)}: registered are ${MODEL_VARIANT_NAMES.join(', ')}`);
  lastPolicy = v.policy(optionsOf(v.meta, cfg.variantOptions));
  lastConfig = cfg;
  return lastPolicy;
}

/** Whether a description with knob `maxBytes` is shared under `cfg`'s variant. */
export const sharingOn = (cfg: ModelConfig, maxBytes: number): boolean => policyOf(cfg).sharing && maxBytes > 0;

function registered(variant: Variant): ModelVariant {
  const v = modelVariant(variant);
  if (v === undefined) throw new RangeError(`no model variant ${JSON.stringify(variant)}`);
  return v;
}

/** The barrier flag a variant's mints read where the run sets none (its options at their defaults). */
export function defaultBarrier(variant: Variant): boolean {
  const v = registered(variant);
  return v.policy(Object.fromEntries(v.meta.options.map((o) => [o.name, o.default]))).barrierByDefault;
}

/** What a worker with no data does where the run does not say. */
export function defaultNoData(variant: Variant): NoDataPolicy {
  return registered(variant).meta.defaultNoData;
}
