/**
 * Persist tunables (vocab PersistConfig): defaults as in Materialize, validated once per run.
 */
import type { PersistConfig } from '../../vocab/index.ts';
import { requireInteger } from '../errors.ts';

export const MiB = 1024 * 1024;

export const DEFAULT_PERSIST_CONFIG: PersistConfig = {
  blobTargetSize: 128 * MiB,
  inlineSingleMaxBytes: 4096,
  inlineTotalMaxBytes: MiB,
  maxRuns: 1,
};

/** Defaults filled in; throws `invalid-config` naming the first bad field. */
export function resolvePersistConfig(partial: Partial<PersistConfig> = {}): PersistConfig {
  const c: PersistConfig = { ...DEFAULT_PERSIST_CONFIG, ...partial, maxRuns: partial.maxRuns ?? DEFAULT_PERSIST_CONFIG.maxRuns };
  requireInteger(c.blobTargetSize, 1, 'persist.blobTargetSize');
  requireInteger(c.inlineSingleMaxBytes, 0, 'persist.inlineSingleMaxBytes');
  requireInteger(c.inlineTotalMaxBytes, 1, 'persist.inlineTotalMaxBytes');
  requireInteger(c.maxRuns ?? 1, 0, 'persist.maxRuns');
  return c;
}
