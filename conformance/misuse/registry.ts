/**
 * The writer registry: claims that race each other for its sequence number, retirements (one retired
 * twice), storage faults on its calls (survived), and a permanent failure (refused, nothing committed).
 */
import type { StorageFault, TraceEvent } from '../../vocab/index.ts';
import { MetricsRecorder } from '../../impl/metrics.ts';
import { MemConsensus } from '../../impl/persist/consensus.ts';
import { FaultyConsensus } from '../../impl/persist/faulty.ts';
import type { RetryContext } from '../../impl/persist/retry.ts';
import { claimWriter, readWriters, registryEntries, retireWriter, writerOfKey, writerRegistryKey, type Retired } from '../../impl/persist/writer-registry.ts';
import { Trace } from '../../impl/runtime/trace.ts';
import { OK, refused, Judge } from './judge.ts';
import { programScheduler } from './scheduler.ts';
import { WHERE } from './writer.ts';

export async function registry(j: Judge): Promise<void> {
  const d = j.draw;
  const inner = new MemConsensus();
  /** What the next compare-and-sets, and the next reads, do (in call order; then `ok`). */
  const cas: (StorageFault | 'ok')[] = [];
  const reads: (StorageFault | 'ok')[] = [];
  const consensus = new FaultyConsensus(inner, { decide: (op) => (op === 'consensus.cas' ? cas.shift() : reads.shift()) ?? 'ok' });
  const metrics = new MetricsRecorder();
  const events: TraceEvent[] = [];
  const io: RetryContext = { scheduler: programScheduler, where: WHERE, trace: new Trace({ event: (e) => events.push(e) }), metrics };
  const shard = 'misuse-shard';
  const replicas = 2 + d.int(3);
  /** The model: every writer claimed, by id, with its replica and why it can no longer append. */
  const model = new Map<string, { replica: number; retired: Retired | null }>();
  /** Incarnations committed by claims whose answer was lost: nobody holds them. */
  let orphans = 0;
  const rounds = 2 + d.int(3);
  for (let k = 0; k < rounds; k++) {
    // Claims by distinct replicas at once: they race for the registry's next sequence number (a loser
    // reads again and retries); faults that a retry survives hit whichever calls come next.
    const who = Array.from({ length: replicas }, (_, r) => r).filter(() => d.int(2) === 0);
    if (who.length === 0) who.push(d.int(replicas));
    for (let f = d.int(3); f > 0; f--) cas.push(d.pick(['ok', 'transient', 'indeterminate-applied', 'indeterminate-lost'] as const));
    for (let f = d.int(2); f > 0; f--) reads.push(d.pick(['transient', 'indeterminate'] as const));
    const appliedBefore = consensus.stats['consensus.cas/indeterminate-applied'] ?? 0;
    const got = await Promise.all(who.map((r) => j.call(`claimWriter(replica ${r})`, OK, () => claimWriter(consensus, shard, r, metrics, io))));
    // A claim whose compare-and-set applied though its answer was lost is made again: the incarnation
    // it committed is held by nobody, and the claim made again expires it.
    orphans += (consensus.stats['consensus.cas/indeterminate-applied'] ?? 0) - appliedBefore;
    // (claims of one round are by distinct replicas, and a claim expires only its own replica's writers:
    // the order they committed in does not change what the registry says)
    got.forEach((w, i) => {
      const r = who[i] as number;
      for (const m of model.values()) if (m.replica === r && m.retired === null) m.retired = 'expired';
      if (w === undefined) return;
      if (model.has(w.id)) j.wrong.push(`claimWriter(replica ${r}) returned ${w.id}, a writer claimed before`);
      if (w.replica !== r || w.id !== `w${w.incarnation}-r${r}`) j.wrong.push(`claimWriter(replica ${r}) returned ${JSON.stringify(w)}`);
      model.set(w.id, { replica: r, retired: null });
    });
    cas.length = 0;
    reads.length = 0;
    // Retirements of live writers; now and then one retired already, again (the first reason stands).
    // They meet survivable faults of their own (what the claims left unused is dropped above).
    for (let f = d.int(3); f > 0; f--) cas.push(d.pick(['ok', 'transient', 'indeterminate-applied', 'indeterminate-lost'] as const));
    for (let f = d.int(2); f > 0; f--) reads.push(d.pick(['transient', 'indeterminate'] as const));
    for (const [id, m] of [...model].filter(() => d.int(3) === 0)) {
      const reason: Retired = d.int(2) === 0 ? 'finished' : 'expired';
      const w = { id, incarnation: Number(id.slice(1, id.indexOf('-'))), replica: m.replica, retired: m.retired };
      await j.call(`retireWriter(${id}, ${reason})`, OK, () => retireWriter(consensus, shard, w, reason, metrics, io));
      m.retired ??= reason;
    }
    cas.length = 0;
    reads.length = 0;
  }
  // A compare-and-set that fails permanently: the claim is refused and commits nothing.
  cas.push('permanent');
  const r = d.int(replicas);
  await j.call(`claimWriter(replica ${r}) whose compare-and-set fails permanently`, refused('storage-permanent', 'consensus.cas', 'permanent'), () => claimWriter(consensus, shard, r, metrics, io));
  const read = await readWriters(inner, shard);
  const entries = (m: ReadonlyMap<string, { readonly replica: number; readonly retired: Retired | null }>) =>
    [...m].map(([id, w]) => `${id}:${w.replica}:${w.retired ?? 'live'}`).sort();
  const held = new Map([...read].filter(([id]) => model.has(id)));
  j.same('the writers the registry holds', entries(model), entries(held));
  // Besides those, only the incarnations nobody holds, each expired by the claim made again.
  const unheld = [...read.values()].filter((w) => !model.has(w.id));
  j.same('incarnations nobody holds', orphans, unheld.length);
  j.same('their state', unheld.map(() => 'expired'), unheld.map((w) => w.retired));
  // Every id reads back from its part keys, multi-digit numbers too (a registry reaches incarnation 10).
  const far = `w${10 + d.int(990)}-r${d.int(20)}`;
  for (const id of [...read.keys(), far]) j.same(`writerOfKey("${id}/part-${d.int(20)}")`, id, writerOfKey(`${id}/part-${d.int(20)}`));
  // A key under another namespace (another shard's, another sink's prefix in a shared bucket) was not
  // minted by a writer of this registry: cleanup must never take it for one of theirs.
  const foreign = `${d.pick(['other-shard', 's1', 'x'])}/${d.pick([...read.keys(), far])}/part-${d.int(20)}`;
  j.same(`writerOfKey("${foreign}")`, undefined, writerOfKey(foreign));
  // What each claim wrote: its claim, and an expiry for exactly the live writers of its replica — no
  // event for a writer of another replica, one retired already, or one never claimed (stored bytes are
  // part of what a command costs).
  const written = new Map<string, { replica: number; retired: Retired | null }>();
  for (const v of await inner.scan(writerRegistryKey(shard), 0)) {
    const version = registryEntries(v.data);
    const claim = version.find((e) => e.kind === 'claim');
    if (claim !== undefined) {
      const expired = version.filter((e) => e !== claim).map((e) => `${e.kind} ${e.id}`).sort();
      const due = [...written].filter(([, w]) => w.replica === claim.replica && w.retired === null).map(([id]) => `expired ${id}`).sort();
      j.same(`the registry version a claim of ${claim.id} wrote (besides its claim)`, due, expired);
    }
    for (const e of version) {
      if (e.kind === 'claim') written.set(e.id, { replica: e.replica, retired: null });
      else {
        const w = written.get(e.id);
        if (w !== undefined) w.retired ??= e.kind;
      }
    }
  }
  // The entries, read event by event, say what the registry says: every writer claimed once, each
  // retired for the reason of its first retirement.
  j.same('why each writer retired, by the registry entries', entries(read), entries(written));
  const injected = Object.values(consensus.stats).reduce((n, k) => n + k, 0);
  j.same('fault events (every injected fault, reported once)', injected, events.filter((e) => e.kind === 'fault').length);
}
