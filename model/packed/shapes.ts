/**
 * Where worker indices, replica indices and update ids sit in the model's data: one shape per state
 * component (layout.ts's slot kinds) and per event kind. symmetry.ts renames values by these shapes and
 * derives its sorting keys from them; nothing else about the protocol is known there.
 *
 * Shapes are strict: a record with a key its shape does not list (or missing one it lists) is an error,
 * so a new context field that might carry a worker index cannot be silently left unrenamed. Adding an
 * event kind means one entry in `EVENT_SHAPES` (a missing entry is a compile error; an unknown kind at
 * run time throws), next to its read set in read-sets.ts.
 */
import type { TraceEventKind } from '../../vocab/index.ts';
import type { SlotKind } from './layout.ts';

export type Shape =
  /** No worker, replica or update reference inside. */
  | { readonly t: 'opaque' }
  /** A worker index within the enclosing replica, or null. */
  | { readonly t: 'worker' }
  /** A process index within the enclosing replica. */
  | { readonly t: 'process' }
  /** A replica index. */
  | { readonly t: 'replica' }
  /** Update ids whose order matters (push order): renamed in place. */
  | { readonly t: 'ids' }
  /** Update ids kept ascending: renamed, then sorted. */
  | { readonly t: 'idSet' }
  /** An array with one element per worker of the replica: elements move with their worker. */
  | { readonly t: 'byWorker'; readonly of: Shape }
  /** An array with one element per replica: elements move with their replica. */
  | { readonly t: 'byReplica'; readonly of: Shape }
  /** An array whose order is history (instance order, append order): kept. */
  | { readonly t: 'list'; readonly of: Shape }
  /** An array of records kept sorted by their `worker` field (stable). */
  | { readonly t: 'sortedByWorker'; readonly of: Shape }
  | { readonly t: 'record'; readonly fields: Readonly<Record<string, Shape>> }
  | { readonly t: 'nullable'; readonly of: Shape }
  /** An XState `Local` (value + context): the value is opaque. */
  | { readonly t: 'local'; readonly context: Shape }
  /** A record of replica `record[field]` (history spans replicas): its content renames as that replica's. */
  | { readonly t: 'ofReplica'; readonly field: string; readonly of: Shape };

const opaque: Shape = { t: 'opaque' };
const worker: Shape = { t: 'worker' };
const process: Shape = { t: 'process' };
const replica: Shape = { t: 'replica' };
const ids: Shape = { t: 'ids' };
const idSet: Shape = { t: 'idSet' };
const record = (fields: Record<string, Shape>): Shape => ({ t: 'record', fields });
const nullable = (of: Shape): Shape => ({ t: 'nullable', of });
const list = (of: Shape): Shape => ({ t: 'list', of });
const local = (fields: Record<string, Shape>): Shape => ({ t: 'local', context: record(fields) });

/**
 * vocab Description. SUBTLE: `appendWorker` is a worker index left as it is (opaque): the mint derives it
 * from its sequence number and nothing in the model reads it, so a symmetry moves the append worker's
 * components with the others and keeps the field (symmetry.ts; symmetry.test.ts fails on a model that
 * reads it).
 */
const description = record({ lower: opaque, upper: opaque, appendWorker: opaque, sharedId: opaque, maxBytes: opaque, barrier: opaque });
/** model/parts.ts Batch and vocab BatchSummary. */
const batch = record({ updates: idSet, partBytes: opaque });
const summary = record({ updates: idSet, parts: opaque, partBytes: opaque });

/** spec/view.ts BuilderView (the fault history keeps those of aborted incarnations). */
const builderView = record({
  replica,
  incarnation: opaque,
  process,
  sharedId: opaque,
  instance: opaque,
  handles: opaque,
  receivers: opaque,
  updates: idSet,
  deliveredToNobody: opaque,
});

/** model/append.ts's machine (the live description's, and a superseded one's). */
const appendLocal = local({
  lower: opaque,
  upper: opaque,
  handed: { t: 'byWorker', of: nullable(record({ route: opaque, batches: list(batch) })) },
  result: opaque,
  parts: opaque,
  inlineBytesAdded: opaque,
  committed: opaque,
  flushed: opaque,
  bumpedFrom: opaque,
});

/** model/builder.ts's context but for its instances, and one InstanceRecord. */
const BUILDER_HEADER: Record<string, Shape> = {
  barrier: opaque,
  participants: opaque,
  blobTargetSize: opaque,
  timesOut: opaque,
  refs: opaque,
  pending: opaque,
  deliverer: worker,
  unfinished: opaque,
  expired: opaque,
  late: opaque,
  earlySkips: opaque,
};
const INSTANCE: Shape = record({ cut: record({ updates: idSet, partBytes: opaque, buffered: opaque }), handles: opaque, receiver: worker, receipts: opaque, toNobody: opaque });

/** A whole builder entry as the model holds it (header and instances together). */
export const ENTRY_SHAPE: Shape = nullable(local({ ...BUILDER_HEADER, instances: list(INSTANCE) }));

export const COMPONENT_SHAPES: { readonly [K in SlotKind]: Shape } = {
  up: opaque,
  incarnation: opaque,
  mint: local({ intervals: opaque, workers: opaque, desired: opaque, lower: opaque, seq: opaque, live: nullable(description) }),
  append: nullable(appendLocal),
  superseded: nullable(record({ desc: description, append: appendLocal })),
  worker: local({ staged: idSet, bytes: opaque, route: opaque, batch: nullable(batch) }),
  handle: nullable(local({ staged: idSet, instance: opaque, pushed: opaque, last: opaque })),
  sweep: local({ upgradeRace: opaque, shared: opaque, retained: opaque, lock: worker, visited: opaque, holding: opaque }),
  // a builder entry's header: the builder without its instances (layout.ts cuts an entry in slots)
  builder: nullable(local(BUILDER_HEADER)),
  instance: nullable(INSTANCE),
  shard: opaque,
  appends: list({
    t: 'ofReplica',
    field: 'replica',
    of: record({
      replica,
      incarnation: opaque,
      sharedId: opaque,
      lower: opaque,
      upper: opaque,
      maxBytes: opaque,
      barrier: opaque,
      routes: { t: 'byWorker', of: opaque },
      batches: {
        t: 'sortedByWorker',
        of: record({ worker, process, route: opaque, updates: idSet, parts: opaque, partBytes: opaque }),
      },
      updates: idSet,
      parts: opaque,
      result: opaque,
      shardUpper: opaque,
      deleted: opaque,
    }),
  }),
  shardUppers: opaque,
  finishesBegun: opaque,
  finishesEnded: opaque,
  ownBatches: opaque,
  deleted: opaque,
  faults: record({
    aborts: opaque,
    indeterminate: opaque,
    retiredBuilders: list({ t: 'ofReplica', field: 'replica', of: builderView }),
    pendingCleanups: opaque,
    finalCleanup: opaque,
    leakingByReplica: { t: 'byReplica', of: opaque },
    leaksExpired: opaque,
    leaksCollected: opaque,
    referencedDeleted: opaque,
    finishesAbandoned: opaque,
    batchesAbandoned: opaque,
  }),
};

const at = { kind: opaque, replica, process, worker, sharedId: opaque };

export const EVENT_SHAPES: { readonly [K in TraceEventKind]: Shape } = {
  frontier: record({ kind: opaque, replica, upper: opaque }),
  mint: record({ kind: opaque, replica, desc: description }),
  poll: record({ kind: opaque, replica, sharedId: opaque }),
  stage: record({ ...at, updates: idSet, bytes: opaque, route: opaque }),
  open: record({ ...at, created: opaque, participants: opaque }),
  push: record({ ...at, updates: ids }),
  'finish-begin': record({ ...at, last: opaque }),
  'finish-end': record({ ...at, received: nullable(summary) }),
  skip: record({ ...at, early: opaque }),
  timeout: record({ kind: opaque, replica, process, sharedId: opaque, completes: opaque }),
  superseded: record(at),
  'own-batch': record({ ...at, batch: summary }),
  hand: record({ ...at, batches: list(summary) }),
  append: record({ kind: opaque, replica, lower: opaque, upper: opaque, batches: opaque, parts: opaque, runs: opaque, updates: idSet, result: opaque }),
  delete: record({ kind: opaque, replica, lower: opaque, batches: opaque, reason: opaque }),
  backpressure: record({ kind: opaque, replica, lower: opaque, inlineBytes: opaque, adding: opaque, flushed: opaque }),
  bump: record({ kind: opaque, replica, from: opaque, to: opaque }),
  // exploration's sweeps are always a builder() call's: they name its worker
  sweep: record({ kind: opaque, replica, process, worker, removed: opaque }),
  'sweep-hold': record({ ...at, sharedId: opaque }),
  'sweep-release': record({ ...at, closed: opaque }),
  drop: record({ ...at, closed: opaque }),
  fault: record({ kind: opaque, replica, op: opaque, fault: opaque }),
  abort: record({ kind: opaque, replica, reason: opaque }),
  restart: record({ kind: opaque, replica, lower: opaque }),
  // SUBTLE: exploration runs every cleanup "by replica 0" and its outcome does not depend on which
  // replica runs it, so the field is not renamed (a renamed one would be a different but equal event).
  cleanup: record({ kind: opaque, replica: opaque, deleted: opaque }),
};

export function eventShape(kind: string): Shape {
  const shape = (EVENT_SHAPES as Record<string, Shape | undefined>)[kind];
  if (shape === undefined) throw new Error(`model/packed/shapes.ts has no shape for event kind ${JSON.stringify(kind)}`);
  return shape;
}
