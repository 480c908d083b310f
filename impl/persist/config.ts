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
};

/** Defaults filled in; throws `invalid-config` naming the first bad field. */
export function resolvePersistConfig(partial: Partial<PersistConfig> = {}): PersistConfig {
  const c: PersistConfig = { ...DEFAULT_PERSIST_CONFIG, ...partial };
  requireInteger(c.blobTargetSize, 1, 'persist.blobTargetSize');
  requireInteger(c.inlineSingleMaxBytes, 0, 'persist.inlineSingleMaxBytes');
  requireInteger(c.inlineTotalMaxBytes, 1, 'persist.inlineTotalMaxBytes');
  return c;
}
