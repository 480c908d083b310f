/**
 * The load classes a workload names per (interval, worker), and the byte sizes two of them are built
 * around. What each class means: conformance/workload.ts's header. Its own file so that both the
 * workload and the swarm's feature draw (swarm.ts) read it without importing each other.
 */

export const LOAD_CLASSES = ['tiny', 'medium', 'none', 'large', 'boundary', 'inline-edge', 'cut-edge'] as const;
export type LoadClass = (typeof LOAD_CLASSES)[number];

/** Staged bytes of an `inline-edge` load: the default inline_writes_single_max_bytes. */
export const INLINE_EDGE = 4096;
/** Bytes of a `cut-edge` load's first two updates: the small blob_target_size. */
export const CUT_EDGE = 6000;
