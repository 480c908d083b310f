/**
 * The fault injector's contract (persist/faulty.ts): what each decided outcome does to each call. The
 * fault world is only as strong as this: an `indeterminate-applied` PUT that never reached the store would
 * leave the retry's "my key, my bytes" path untried while the trace said otherwise. What reaches the
 * stores is judged by their own counts: a read has no effect to apply, so a read that fails never reached
 * the store, whichever way it failed (every read is also tried once with its answer lost). And the
 * injector leaves the process as it found it: an injected failure captures no stack, and every later
 * error of the process still does (the program runs under a stack trace limit of its own).
 */
import type { StorageFault } from '../../vocab/index.ts';
import { MemBlob, type BlobStats } from '../../impl/persist/blob.ts';
import { MemConsensus, type ConsensusStats } from '../../impl/persist/consensus.ts';
import { FaultyBlob, FaultyConsensus, injectedFault } from '../../impl/persist/faulty.ts';
import { type Expect, OK, refused, Judge } from './judge.ts';

const OUTCOMES = ['ok', 'ok', 'transient', 'indeterminate-applied', 'indeterminate-lost', 'indeterminate', 'permanent'] as const;
const OPS = ['blob.get', 'blob.set', 'blob.setIfAbsent', 'blob.delete', 'blob.list', 'consensus.head', 'consensus.cas', 'consensus.scan'] as const;
const READS = ['blob.get', 'blob.list', 'consensus.head', 'consensus.scan'] as const;

export async function faults(j: Judge): Promise<void> {
  const d = j.draw;
  const outer = Error.stackTraceLimit;
  const traceLimit = 1 + d.int(30);
  Error.stackTraceLimit = traceLimit;
  try {
    await program(j, traceLimit);
  } finally {
    Error.stackTraceLimit = outer;
  }
}

async function program(j: Judge, traceLimit: number): Promise<void> {
  const d = j.draw;
  const blobStore = new MemBlob();
  const inner = new MemConsensus();
  let next: StorageFault | 'ok' = 'ok';
  const plan = { decide: () => next };
  const stats: Record<string, number> = {};
  const blob = new FaultyBlob(blobStore, plan, stats);
  const consensus = new FaultyConsensus(inner, plan, stats);
  const want: Record<string, number> = {};
  /** The model of the stores: blob contents, and the consensus key's versions. */
  const blobs = new Map<string, number>();
  const versions: number[] = [];
  /** The stores' own counts of the calls that reached them. */
  const reached = { blob: { ...blobStore.stats }, consensus: { ...inner.stats } };
  const steps: [StorageFault | 'ok', (typeof OPS)[number]][] = Array.from({ length: 6 + d.int(8) }, () => [d.pick(OUTCOMES), d.pick(OPS)]);
  for (const op of READS) steps.splice(d.int(steps.length + 1), 0, ['indeterminate-applied', op]);
  for (const [outcome, op] of steps) {
    next = outcome;
    const key = `k${d.int(3)}`;
    const byte = d.int(250);
    // A compare-and-set that expects the head (it applies) or a stale one (it loses its race).
    const head = versions.length === 0 ? null : versions.length - 1;
    const expected = d.int(4) === 0 && head !== null ? (head === 0 ? null : head - 1) : head;
    const wins = expected === head;
    const effectful = op === 'blob.set' || op === 'blob.setIfAbsent' || op === 'blob.delete' || op === 'consensus.cas';
    // What the call does to the stores: `ok` runs it; `indeterminate-applied` runs an effectful call and
    // loses its answer (a compare-and-set that lost its race, or a set-if-absent of a key already there,
    // changed nothing: relabelled `-lost`).
    const runs = next === 'ok' || (next === 'indeterminate-applied' && effectful);
    const changesNothing = (op === 'consensus.cas' && !wins) || (op === 'blob.setIfAbsent' && blobs.has(key));
    const label = next === 'indeterminate-applied' && changesNothing ? 'indeterminate-lost' : next;
    const storeOp = op === 'blob.setIfAbsent' ? 'blob.set' : op;
    const expect: Expect =
      next === 'ok'
        ? OK
        : refused(next === 'transient' ? 'storage-transient' : next === 'permanent' ? 'storage-permanent' : 'storage-indeterminate', 'injected fault', `${storeOp} "${op.startsWith('blob.list') ? '' : op.startsWith('consensus') ? 'c' : key}"`, `(${label})`);
    if (next !== 'ok') want[`${storeOp}/${label}`] = (want[`${storeOp}/${label}`] ?? 0) + 1;
    const call = (): Promise<unknown> => {
      switch (op) {
        case 'blob.get':
          return blob.get(key);
        case 'blob.set':
          return blob.set(key, new Uint8Array([byte]));
        case 'blob.setIfAbsent':
          return blob.setIfAbsent(key, new Uint8Array([byte]));
        case 'blob.delete':
          return blob.delete(key);
        case 'blob.list':
          return blob.list();
        case 'consensus.head':
          return consensus.head('c');
        case 'consensus.cas':
          return consensus.compareAndSet('c', expected, { seqNo: expected === null ? 0 : expected + 1, data: new Uint8Array([byte]) });
        default:
          return consensus.scan('c', 0);
      }
    };
    let caught: unknown;
    await j.call(`${op}${op.startsWith('blob') && op !== 'blob.list' ? `(${key})` : ''} → ${next}`, expect, async () => {
      try {
        return await call();
      } catch (e) {
        caught = e;
        throw e;
      }
    });
    if (next !== 'ok') j.same(`the injected fault of ${op} → ${next}`, { op: storeOp, fault: label }, injectedFault(caught) ?? null);
    if (next !== 'ok') j.same(`the stack trace limit after ${op} → ${next}`, traceLimit, Error.stackTraceLimit);
    if (runs) {
      count(reached, op, !changesNothing);
      if (op === 'blob.set' || (op === 'blob.setIfAbsent' && !blobs.has(key))) blobs.set(key, byte);
      if (op === 'blob.delete') blobs.delete(key);
      if (op === 'consensus.cas' && wins) versions.push(byte);
    }
  }
  j.same('the calls that reached the blob store', reached.blob, blobStore.stats);
  j.same('the calls that reached consensus', reached.consensus, inner.stats);
  j.same('the blob store', [...blobs].sort(), await Promise.all([...(await blobStore.list())].sort().map(async (k) => [k, ((await blobStore.get(k)) ?? [])[0]])));
  j.same('the consensus versions', versions, (await inner.scan('c', 0)).map((v) => v.data[0]));
  j.same('faults counted by op and outcome', Object.entries(want).sort(), Object.entries(stats).sort());
}

/** What a call that reached the stores adds to their counts (`changes`: it changed what they hold). */
function count(reached: { blob: BlobStats; consensus: ConsensusStats }, op: (typeof OPS)[number], changes: boolean): void {
  const { blob, consensus } = reached;
  if (op === 'blob.get') blob.gets += 1;
  else if (op === 'blob.set' || (op === 'blob.setIfAbsent' && changes)) {
    blob.sets += 1;
    blob.setBytes += 1;
  } else if (op === 'blob.delete') blob.deletes += 1;
  else if (op === 'blob.list') blob.lists += 1;
  else if (op === 'consensus.head') consensus.heads += 1;
  else if (op === 'consensus.scan') consensus.scans += 1;
  else if (op === 'consensus.cas') {
    consensus.cas += 1;
    if (changes) consensus.bytesWritten += 1;
    else consensus.casFailures += 1;
  }
}
