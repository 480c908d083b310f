/**
 * Writer claims that race each other, for one replica or several, with a storage fault of every kind on
 * the first compare-and-set, which is held until the second claim committed: every claim returns its own
 * writer id, the last committed of a replica is its one live writer, and every incarnation nobody holds is
 * expired.
 */
import type { Consensus } from '../../impl/persist/consensus.ts';
import { MetricsRecorder } from '../../impl/metrics.ts';
import { MemConsensus } from '../../impl/persist/consensus.ts';
import { FaultyConsensus } from '../../impl/persist/faulty.ts';
import type { RetryContext } from '../../impl/persist/retry.ts';
import { claimWriter, readWriters } from '../../impl/persist/writer-registry.ts';
import { Trace } from '../../impl/runtime/trace.ts';
import { OK, refused, Judge } from './judge.ts';
import { programScheduler } from './scheduler.ts';
import { WHERE } from './writer.ts';

export async function claims(j: Judge): Promise<void> {
  const d = j.draw;
  const inner = new MemConsensus();
  const fault = d.pick(['transient', 'indeterminate-applied', 'indeterminate-lost', 'indeterminate', 'permanent'] as const);
  const first = d.int(2) === 0 ? 'held' : 'first';
  let armed = true;
  const faulty = new FaultyConsensus(inner, { decide: (op) => (op === 'consensus.cas' && armed ? ((armed = false), fault) : 'ok') });
  // The first compare-and-set (`held`) waits until the second committed, then meets the fault; or
  // (`first`) meets it at once.
  let calls = 0;
  let release: () => void = () => undefined;
  const second = new Promise<void>((resolve) => (release = resolve));
  const consensus: Consensus = {
    head: (k) => faulty.head(k),
    scan: (k, from) => faulty.scan(k, from),
    async compareAndSet(k, expected, next) {
      const n = calls++;
      if (n === 0 && first === 'held') await second;
      const r = n === 0 ? await faulty.compareAndSet(k, expected, next) : await inner.compareAndSet(k, expected, next);
      if (n === 1) release();
      return r;
    },
  };
  const metrics = new MetricsRecorder();
  const io: RetryContext = { scheduler: programScheduler, where: WHERE, trace: new Trace(), metrics };
  const shard = 'claims';
  // Earlier writers of the replicas, then the race.
  const replicas = 1 + d.int(2);
  const earlier: string[] = [];
  for (let r = 0; r < replicas; r++) {
    const w = await j.call(`claimWriter(replica ${r})`, OK, () => claimWriter(inner, shard, r, metrics));
    if (w !== undefined) earlier.push(w.id);
  }
  const racing = Array.from({ length: 2 + d.int(2) }, () => (d.int(3) === 0 ? d.int(replicas) : 0));
  j.program.push(`claims racing for replicas [${racing.join(', ')}]; the first compare-and-set ${first === 'held' ? 'held until the second committed, then' : ''} ${fault}`);
  const got = await Promise.all(
    racing.map((r, i) => j.call(`claimWriter(replica ${r}) #${i}`, i === 0 && fault === 'permanent' ? refused('storage-permanent', 'consensus.cas', 'permanent') : OK, () => claimWriter(consensus, shard, r, metrics, io))),
  );
  const returned = got.flatMap((w, i) => (w === undefined ? [] : [{ ...w, replica: racing[i] as number }]));
  const idsReturned = returned.map((w) => w.id);
  j.same('writer ids two claims both returned', [], idsReturned.filter((id, i) => idsReturned.indexOf(id) !== i));
  for (const w of returned) if (earlier.includes(w.id)) j.wrong.push(`a claim returned ${w.id}, a writer claimed before the race`);
  const read = await readWriters(inner, shard);
  for (let r = 0; r < replicas; r++) {
    const mine = returned.filter((w) => w.replica === r);
    const live = [...read.values()].filter((w) => w.replica === r && w.retired === null).map((w) => w.id);
    const last = mine.sort((x, y) => y.incarnation - x.incarnation)[0];
    j.same(`replica ${r}'s live writers`, [last === undefined ? earlier[r] : last.id], live);
  }
  for (const w of read.values()) {
    if (!idsReturned.includes(w.id) && !earlier.includes(w.id)) j.same(`${w.id}, held by nobody`, 'expired', w.retired);
  }
}
