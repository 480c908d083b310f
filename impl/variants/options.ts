/**
 * A variant's options (vocab VariantOptionSpec) resolved for a run: every option of the variant with
 * its value or its default; a value of the wrong type or range, or an option the variant does not take,
 * is an `invalid-config` SbkitError naming `variantOptions.<option>` and the value.
 */
import type { VariantMeta, VariantOptionSpec, VariantOptions } from '../../vocab/index.ts';
import { SbkitError, show } from '../errors.ts';

export function resolveVariantOptions(meta: VariantMeta, given: unknown): VariantOptions {
  if (given !== undefined && (typeof given !== 'object' || given === null || Array.isArray(given))) {
    throw new SbkitError('invalid-config', `variantOptions must be an object, got ${show(given)}`);
  }
  const values = (given ?? {}) as Readonly<Record<string, unknown>>;
  for (const key of Object.keys(values)) {
    if (!meta.options.some((o) => o.name === key)) {
      const takes = meta.options.length === 0 ? 'takes none' : `takes ${meta.options.map((o) => o.name).join(', ')}`;
      throw new SbkitError('invalid-config', `variantOptions.${key}: variant ${meta.name} has no option ${show(key)} (it ${takes})`);
    }
  }
  const out: Record<string, number> = {};
  for (const spec of meta.options) out[spec.name] = resolveOption(meta, spec, values[spec.name]);
  return out;
}

function resolveOption(meta: VariantMeta, spec: VariantOptionSpec, value: unknown): number {
  if (value === undefined) return spec.default;
  const ok = typeof value === 'number' && value >= 0 && (Number.isFinite(value) || (spec.inf && value === Number.POSITIVE_INFINITY));
  if (!ok) {
    const range = spec.inf ? 'a duration in ms ≥ 0, or Infinity (inf)' : 'a finite duration in ms ≥ 0';
    throw new SbkitError('invalid-config', `variantOptions.${spec.name} of variant ${meta.name} must be ${range}, got ${show(value)}`);
  }
  return value;
}
