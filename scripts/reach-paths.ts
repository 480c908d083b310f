/** Where the reach measurement keeps its data and its document (scripts/reach.ts, scripts/reach-remap.ts). */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/** The document that lists every impl/ range `sbkit check` does not reach, with its reason. */
export const DOC_PATH = join(ROOT, 'docs', 'quality', 'unreached.md');
