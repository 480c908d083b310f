/**
 * The id a shared batch is registered under (Materialize's `SharedBatchId(Uuid)`, `Uuid::new_v4()` per
 * description). The registry keys its entries by this id alone, so ids must not collide across the MV
 * sinks that share a process's registry: a description's id is its sink's namespace (its shard) and its
 * mint sequence number — deterministic, and as collision-free across sinks as the real UUIDs. Traces name
 * a batch by the sequence number alone (`sharedId`; events of sink s > 0 carry `sink`).
 *
 * A bare number is an id in the empty namespace (unit tests of the registry alone).
 */
import type { SharedId } from '../../vocab/index.ts';

export interface SharedBatchId {
  /** The sink's namespace (its shard id); '' for a bare number. */
  readonly namespace: string;
  /** The description's mint sequence number: what traces call the batch (`sharedId`). */
  readonly seq: SharedId;
}

export const batchId = (seq: SharedId, namespace = ''): SharedBatchId => ({ namespace, seq });

export const asBatchId = (id: SharedId | SharedBatchId): SharedBatchId => (typeof id === 'number' ? batchId(id) : id);

/** The registry's map key: the id alone (namespace and sequence number). */
export const keyOf = (id: SharedBatchId): string => `${id.namespace}#${id.seq}`;

/** How messages name an id: the bare number in the empty namespace, else `namespace#seq`. */
export const showId = (id: SharedBatchId): string => (id.namespace === '' ? `${id.seq}` : `${id.namespace}#${id.seq}`);

/** The order of the registry's map (Materialize's `BTreeMap<SharedBatchId, …>`): by namespace, then sequence number. */
export function compareIds(a: SharedBatchId, b: SharedBatchId): number {
  if (a.namespace !== b.namespace) return a.namespace < b.namespace ? -1 : 1;
  return a.seq - b.seq;
}
