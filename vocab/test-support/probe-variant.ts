/** A variant meta with an option, for tests of the option machinery (no registered variant has one yet):
 * `timeout`, a duration or `inf`, default `inf` — the shape the barrier with a timeout will take. */
import type { VariantMeta } from '../variant.ts';

export const probeMeta: VariantMeta = {
  name: 'probe',
  meaning: 'a test variant with one option',
  options: [{ name: 'timeout', flag: '--probe-timeout', help: 'how long the probe waits', type: 'duration', inf: true, default: Number.POSITIVE_INFINITY }],
  galleryBugs: [],
  defaultNoData: 'skip',
};

/** The same option without `inf`, default 5 ms. */
export const finiteProbeMeta: VariantMeta = {
  ...probeMeta,
  name: 'finite-probe',
  options: [{ name: 'timeout', flag: '--finite-probe-timeout', help: 'how long it waits', type: 'duration', inf: false, default: 5 }],
};
