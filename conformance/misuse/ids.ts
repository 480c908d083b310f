/**
 * Ids anywhere in their declared range: shared ids from 0 to the far end (2^53 − 1) and update ids near
 * it, and the same sequence number in two MV sinks' namespaces of one process-global registry (their
 * entries never collide: each gets its own batch, and a sweep removes each under its own sink). A
 * refusal about a namespaced id names it whole (`namespace#seq`: with several sinks on one registry
 * the number alone is ambiguous). And a registry of one sink given ids of several namespaces (the API
 * takes any id): its sweep lists what it removed in the map's order, by namespace, then number. One id
 * opened by two sinks of different shards is a conflicting description naming both shards.
 */
import type { TraceEvent } from '../../vocab/index.ts';
import { batchId } from '../../impl/shared/batch-id.ts';
import { SharedBatches } from '../../impl/shared/shared-batches.ts';
import { TaskGroup } from '../../impl/runtime/task-group.ts';
import { BugSwitches } from '../../impl/bugs.ts';
import { MetricsRecorder } from '../../impl/metrics.ts';
import { BlobClient } from '../../impl/persist/blob-client.ts';
import { MemBlob } from '../../impl/persist/blob.ts';
import { resolvePersistConfig } from '../../impl/persist/config.ts';
import { Trace } from '../../impl/runtime/trace.ts';
import type { SharedBatchHandle } from '../../impl/shared/handle.ts';
import type { BatchWriter } from '../../impl/persist/batch-builder.ts';
import { OK, refused, Judge } from './judge.ts';
import { show } from './draw.ts';
import { programScheduler } from './scheduler.ts';

export async function ids(j: Judge): Promise<void> {
  const d = j.draw;
  const metrics = new MetricsRecorder();
  const events: TraceEvent[] = [];
  const trace = new Trace({ event: (e) => events.push(e) });
  const tasks = new TaskGroup();
  const config = resolvePersistConfig({ blobTargetSize: 1 + d.int(200), inlineSingleMaxBytes: d.int(100) });
  const store = new MemBlob();
  const sinks = ['shard-a', 'shard-b'].map((shard, sink) => ({ sink, shard, trace, writer: { config, blob: new BlobClient(store, programScheduler, metrics, `w${sink}`, trace), metrics, shardId: shard } }));
  const [a, b] = sinks as [(typeof sinks)[0], (typeof sinks)[0]];
  const shared = new SharedBatches({ replica: 0, process: 0, writer: a.writer, scheduler: programScheduler, trace, bugs: new BugSwitches([]), spawn: tasks.spawn, sinks: [0, 1], shard: a.shard });
  const far = Number.MAX_SAFE_INTEGER;
  await j.call(`builder(${far + 1})`, refused('invalid-config', 'shared id', `${far + 1}`), () => shared.builder(batchId(far + 1, a.shard), { lower: 0, upper: 1 }, { worker: 0, sink: a }));
  // Rounds of opens and finishes, each id's sequence number drawn from the whole range, sometimes the same
  // in both sinks (with different descriptions: no conflict, since they are different ids).
  const dead: { sink: number; seq: number }[] = [];
  let entries = 0;
  let retained = 0;
  let nextUpdate = far - 200;
  for (let round = 3 + d.int(5); round > 0; round--) {
    const seq = d.pick([0, 1 + d.int(9), far - d.int(3), far, Math.floor(far / 2) + d.int(5)]);
    const both = d.int(2) === 0;
    const opened: { sink: (typeof sinks)[0]; upper: number; handle: SharedBatchHandle; ids: number[] }[] = [];
    if (d.int(3) === 0) {
      // An empty range, refused before any state exists: the message names the id with its namespace.
      const sink = d.pick([a, b]);
      await j.call(`builder(${sink.shard}#${seq}, [1, 1))`, refused('invalid-config', `shared batch ${sink.shard}#${seq}: upper 1 must be greater than lower 1`), () => shared.builder(batchId(seq, sink.shard), { lower: 1, upper: 1 }, { worker: 0, sink }));
    }
    for (const sink of both ? [a, b] : [d.pick([a, b])]) {
      const upper = 1 + sink.sink + d.int(2);
      const key = `${sink.sink}#${seq}`;
      // A sweep runs first when the map outgrew twice what the last one left (every sink's entries).
      const sweeps = entries > 2 * retained;
      const handle = await j.call(`builder(${sink.shard}#${seq}, [0, ${upper}))`, OK, () => shared.builder(batchId(seq, sink.shard), { lower: 0, upper }, { worker: sink.sink, sink }));
      if (handle === undefined) return;
      if (sweeps) {
        // (before the lookup: every dead entry goes, this id's too)
        const removed = [...dead].sort((x, y) => x.sink - y.sink || x.seq - y.seq);
        const sweep = events.filter((e) => e.kind === 'sweep').at(-1);
        j.same('what the sweep removed, per sink, in id order', [0, 1].map((s) => ({ sink: s, removed: removed.filter((x) => x.sink === s).map((x) => x.seq) })), sweep?.kind === 'sweep' ? sweep.sinks : undefined);
        entries -= removed.length;
        retained = entries;
        dead.length = 0;
      }
      const isNew = !dead.some((x) => `${x.sink}#${x.seq}` === key);
      if (isNew) entries += 1;
      else dead.splice(dead.findIndex((x) => `${x.sink}#${x.seq}` === key), 1);
      j.same(`refs(${sink.shard}#${seq})`, 1, shared.refs(batchId(seq, sink.shard)));
      const us = Array.from({ length: 1 + d.int(3) }, () => ({ id: nextUpdate++, key: `k${nextUpdate}`, value: new Uint8Array(1 + d.int(30)), time: d.int(upper), diff: 1 }));
      await j.call(`push(${show(us)})`, OK, () => handle.push(us));
      opened.push({ sink, upper, handle, ids: us.map((u) => u.id) });
    }
    for (const o of opened) {
      const got = await j.call(`finish() of ${o.sink.shard}#${seq}`, OK, () => o.handle.finish());
      j.same(`the batch of ${o.sink.shard}#${seq}`, o.ids, got?.updateIds ?? null);
      j.same(`its range`, [0, o.upper], got === null || got === undefined ? null : [got.lower, got.upper]);
      dead.push({ sink: o.sink.sink, seq });
      // Its handle is spent: a push is refused, naming the batch with its namespace.
      if (d.int(2) === 0) await j.call(`push() on ${o.sink.shard}#${seq} after finish()`, refused('push-after-finish', `push() on shared batch ${o.sink.shard}#${seq}`), () => o.handle.push(us1()));
    }
  }
  // One id opened by both sinks (the API takes any id: a caller naming its ids without its shard): a
  // description includes its shard (Materialize's `BatchDesc.shard_id`), so the second open is refused,
  // naming both shards.
  const common = batchId(1 + d.int(9), 'common');
  const first = await j.call(`builder(common#${common.seq}, [0, 1)) by ${a.shard}`, OK, () => shared.builder(common, { lower: 0, upper: 1 }, { worker: 0, sink: a }));
  if (first === undefined) return;
  await j.call(`builder(common#${common.seq}, [0, 1)) by ${b.shard}`, refused('conflicting-descriptions', `live builder has shard ${a.shard} [0, 1)`, `asked for shard ${b.shard} [0, 1)`), () => shared.builder(common, { lower: 0, upper: 1 }, { worker: 1, sink: b }));
  await j.call(`finish() of common#${common.seq}`, OK, () => first.finish());
  await j.call('every builder task ends', OK, () => tasks.whenAllDone());
  await oneSinkManyNamespaces(j, a);
}

/** An update for a push that must be refused. */
const us1 = () => [{ id: 1, key: 'k', value: new Uint8Array(1), time: 0, diff: 1 }];

/**
 * A registry of one sink (no `sinks`), given ids of three namespaces ('' is a bare number's), some numbers
 * shared across namespaces: groups of handles opened together, then finished (dead). Each sweep's `removed`
 * lists the dead entries in the map's order (Materialize's `BTreeMap<SharedBatchId, …>`): by namespace —
 * as strings compare — then by number; a sequence number alone does not say which namespace comes first.
 */
async function oneSinkManyNamespaces(j: Judge, sink: { readonly shard: string; readonly writer: BatchWriter }): Promise<void> {
  const d = j.draw;
  const events: TraceEvent[] = [];
  const trace = new Trace({ event: (e) => events.push(e) });
  const tasks = new TaskGroup();
  const shared = new SharedBatches({ replica: 0, process: 0, writer: sink.writer, scheduler: programScheduler, trace, bugs: new BugSwitches([]), spawn: tasks.spawn, shard: sink.shard });
  const namespaces = ['shard-b', '', 'shard-a'];
  const dead: { ns: string; seq: number }[] = [];
  let entries = 0;
  let retained = 0;
  const expected: number[][] = [];
  for (let group = 2 + d.int(4); group > 0; group--) {
    const open: { ns: string; seq: number; name: string; handle: SharedBatchHandle }[] = [];
    for (let n = 1 + d.int(4); n > 0; n--) {
      const ns = d.pick(namespaces);
      const seq = d.int(4);
      if (open.some((o) => o.ns === ns && o.seq === seq)) continue;
      const name = ns === '' ? `${seq}` : `${ns}#${seq}`;
      // The sweep, first, when the map outgrew twice what the last one left (every entry, live or dead).
      if (entries > 2 * retained) {
        expected.push([...dead].sort((x, y) => (x.ns === y.ns ? x.seq - y.seq : x.ns < y.ns ? -1 : 1)).map((x) => x.seq));
        entries -= dead.length;
        retained = entries;
        dead.length = 0;
      }
      const handle = await j.call(`builder(${name}, [0, 1)) of a one-sink registry`, OK, () => shared.builder(ns === '' ? seq : batchId(seq, ns), { lower: 0, upper: 1 }, { worker: 0 }));
      if (handle === undefined) return;
      // (a dead entry of that id is replaced: the map's length does not change)
      const at = dead.findIndex((x) => x.ns === ns && x.seq === seq);
      if (at < 0) entries += 1;
      else dead.splice(at, 1);
      open.push({ ns, seq, name, handle });
    }
    for (const o of open) {
      await j.call(`finish() of ${o.name}`, OK, () => o.handle.finish());
      dead.push({ ns: o.ns, seq: o.seq });
    }
  }
  j.same('what each sweep of the one-sink registry removed, in id order', expected, events.flatMap((e) => (e.kind === 'sweep' ? [e.removed] : [])));
  await j.call('every builder task of the one-sink registry ends', OK, () => tasks.whenAllDone());
}
