/**
 * The metrics of a run against what its trace says and what its stores counted.
 *
 * Why: `sbkit compare`'s tables (parts per append, blob PUTs, consensus commands, state-diff bytes) are
 * built from impl/metrics.ts, and nothing else compared those counters with anything: a counter bumped
 * on the wrong branch, twice, or not at all refined the model and passed every check (Stryker found
 * 29 such survivors in impl/sink/append.ts alone). The trace is checked event by event against the
 * model, so a count taken from it is a count the model vouches for; the in-memory stores count every
 * call that reached them, independently of the client that made it.
 *
 * What is exact and what is a bound:
 * - counted in the same synchronous step as the event that reports it (appends, parts and batches of
 *   appends, mismatches, deletes, bumps, faults, aborts, restarts, cleanups): equal in every run;
 * - counted where no event is emitted, or in steps an abort can separate from their event (attempts,
 *   updates written, blob PUTs, inline flushes): equal in a run without aborts, faults or orphaned
 *   batches, a bound otherwise;
 * - against the stores: with no faults, every client call reached the store exactly once; with faults
 *   a PUT may reach it and still fail (an applied indeterminate write, a permanent failure after it),
 *   and a compare-and-set may be lost before reaching it, so each side bounds the other.
 */
import type { TraceEvent } from '../vocab/index.ts';
import type { Metrics } from '../impl/metrics.ts';
import type { BlobStats } from '../impl/persist/blob.ts';
import type { ConsensusStats } from '../impl/persist/consensus.ts';

/** What the run's own in-memory stores counted (absent for stores that count nothing). */
export interface StoreTally {
  readonly blob: BlobStats;
  readonly consensus: ConsensusStats;
  /** Bytes of every version stored under the sink's shard key (the state diffs that committed). */
  readonly shardBytes: number;
}

/** Counts a metric should equal (or bound), taken from the trace in one pass. */
interface TraceCounts {
  appends: number;
  emptyAppends: number;
  mismatches: number;
  partsHollow: number;
  partsInline: number;
  batchesAppended: number;
  updatesAppended: number;
  batchesDeleted: number;
  bumps: number;
  faultsTransient: number;
  faultsIndeterminate: number;
  faultsPermanent: number;
  aborts: number;
  restarts: number;
  cleanupRuns: number;
  blobsCollected: number;
  backpressureFlushes: number;
  /** Updates and hollow parts of every batch a builder finished that the trace shows (own or received). */
  updatesBuilt: number;
  hollowBuilt: number;
  /** Handles closed with nobody to receive (sweep-release / drop with `closed`): orphaned batches. */
  closedForNobody: number;
}

function countTrace(trace: readonly TraceEvent[]): TraceCounts {
  const c: TraceCounts = {
    appends: 0,
    emptyAppends: 0,
    mismatches: 0,
    partsHollow: 0,
    partsInline: 0,
    batchesAppended: 0,
    updatesAppended: 0,
    batchesDeleted: 0,
    bumps: 0,
    faultsTransient: 0,
    faultsIndeterminate: 0,
    faultsPermanent: 0,
    aborts: 0,
    restarts: 0,
    cleanupRuns: 0,
    blobsCollected: 0,
    backpressureFlushes: 0,
    updatesBuilt: 0,
    hollowBuilt: 0,
    closedForNobody: 0,
  };
  for (const e of trace) {
    switch (e.kind) {
      case 'append':
        if (!e.result.ok) {
          c.mismatches += 1;
          break;
        }
        if (e.batches > 0) c.appends += 1;
        else c.emptyAppends += 1;
        c.partsHollow += e.parts.hollow;
        c.partsInline += e.parts.inline;
        c.batchesAppended += e.batches;
        c.updatesAppended += e.updates.length;
        break;
      case 'delete':
        c.batchesDeleted += e.batches;
        break;
      case 'bump':
        c.bumps += 1;
        break;
      case 'fault':
        if (e.fault === 'transient') c.faultsTransient += 1;
        else if (e.fault === 'permanent') c.faultsPermanent += 1;
        else c.faultsIndeterminate += 1;
        break;
      case 'cleanup':
        c.cleanupRuns += 1;
        c.blobsCollected += e.deleted;
        break;
      case 'backpressure':
        c.backpressureFlushes += e.flushed;
        break;
      case 'own-batch':
        c.updatesBuilt += e.batch.updates.length;
        c.hollowBuilt += e.batch.parts.hollow;
        break;
      case 'finish-end':
        if (e.received !== null) {
          c.updatesBuilt += e.received.updates.length;
          c.hollowBuilt += e.received.parts.hollow;
        }
        break;
      case 'sweep-release':
      case 'drop':
        if (e.closed) c.closedForNobody += 1;
        break;
      default:
        break;
    }
  }
  c.aborts = replicaSteps(trace, (e) => e.kind === 'abort');
  c.restarts = replicaSteps(trace, (e) => e.kind === 'restart');
  return c;
}

/**
 * Aborts and restarts (those `counts` selects) counted once per replica step, as the supervisor counts
 * them: with several sinks an abort is one event per sink it took down, a restart one per sink it
 * restarts.
 */
export function replicaSteps(trace: readonly TraceEvent[], counts: (e: TraceEvent) => boolean): number {
  let n = 0;
  const down = new Set<number>();
  for (const e of trace) {
    if (e.kind === 'abort') {
      if (!down.has(e.replica) && counts(e)) n += 1;
      down.add(e.replica);
    } else if (e.kind === 'restart') {
      if (down.has(e.replica) && counts(e)) n += 1;
      down.delete(e.replica);
    }
  }
  return n;
}

/** The exact ones: each metric equal to its trace count in every run. */
const EXACT = [
  'appends',
  'emptyAppends',
  'mismatches',
  'partsHollow',
  'partsInline',
  'batchesAppended',
  'updatesAppended',
  'batchesDeleted',
  'bumps',
  'faultsTransient',
  'faultsIndeterminate',
  'faultsPermanent',
  'aborts',
  'restarts',
  'cleanupRuns',
  'blobsCollected',
] as const satisfies readonly (keyof Metrics & keyof TraceCounts)[];

/**
 * Every disagreement between the run's metrics, its trace and its stores, one line each (empty when
 * they agree). `store` is absent when the run's stores count nothing (a real backend).
 */
export function metricsDisagreements(trace: readonly TraceEvent[], m: Metrics, store?: StoreTally): string[] {
  const t = countTrace(trace);
  const out: string[] = [];
  const equal = (name: string, metric: number, want: number, from: string): void => {
    if (metric !== want) out.push(`${name} = ${metric}, ${from} says ${want}`);
  };
  const atLeast = (name: string, metric: number, want: number, from: string): void => {
    if (metric < want) out.push(`${name} = ${metric}, below the ${want} ${from} shows`);
  };
  const atMost = (name: string, metric: number, bound: number, from: string): void => {
    if (metric > bound) out.push(`${name} = ${metric}, above the ${bound} ${from} allows`);
  };
  // Every counter counts up: one below zero is wrong whatever the trace says (a counter that only has
  // an upper bound under faults, batchesOrphaned or retries, would otherwise pass counting down).
  for (const [name, value] of Object.entries(m)) if (typeof value === 'number' && value < 0) out.push(`${name} = ${value}: a counter below zero`);

  for (const k of EXACT) equal(k, m[k], t[k], 'the trace');

  // Every compare-and-append the append worker made: the one each append event reports, and two per
  // bump (the refused attempt that saw current < lower, then the bump itself). A bump that lost its
  // race is retried without an event, so this is a bound; the pairs keep the parity.
  const appendEvents = t.appends + t.emptyAppends + t.mismatches;
  atLeast('appendAttempts', m.appendAttempts, appendEvents + 2 * t.bumps, 'append and bump events (one each, two per bump)');

  const exact = t.aborts === 0 && t.faultsTransient + t.faultsIndeterminate + t.faultsPermanent === 0 && t.closedForNobody === 0;
  if (exact) {
    if ((m.appendAttempts - appendEvents) % 2 !== 0) {
      out.push(`appendAttempts = ${m.appendAttempts}: not ${appendEvents} append events plus two per bump attempt`);
    }
    equal('updatesWritten', m.updatesWritten, t.updatesBuilt, 'the batches the trace shows built (own and received)');
    equal('inlineFlushedParts', m.inlineFlushedParts, t.backpressureFlushes, 'the backpressure events');
    equal('blobPuts', m.blobPuts, t.hollowBuilt + t.backpressureFlushes, 'hollow parts built plus inline parts flushed');
    equal('batchesOrphaned', m.batchesOrphaned, 0, 'a run where no handle closed for nobody');
  } else {
    atLeast('updatesWritten', m.updatesWritten, t.updatesBuilt, 'the batches the trace shows built');
    atMost('inlineFlushedParts', m.inlineFlushedParts, t.backpressureFlushes, 'the backpressure events');
    atMost('batchesOrphaned', m.batchesOrphaned, t.closedForNobody, 'the handles closed for nobody');
  }
  atMost('consensusCasFailed', m.consensusCasFailed, m.consensusCommands, 'consensusCommands');

  if (store !== undefined) {
    const { blob, consensus } = store;
    const cas = m.consensusCommands + m.writerRegistrations;
    if (exact) {
      equal('blobPuts', m.blobPuts, blob.sets, 'the blob store');
      equal('blobPutBytes', m.blobPutBytes, blob.setBytes, 'the blob store');
      equal('blobDeletes', m.blobDeletes, blob.deletes, 'the blob store');
      equal('consensusCommands + writerRegistrations', cas, consensus.cas, 'the consensus store');
      equal('consensusCasFailed', m.consensusCasFailed, consensus.casFailures, 'the consensus store');
      equal('stateDiffBytes', m.stateDiffBytes, store.shardBytes, "the shard's versions in consensus");
      equal('consensusHeads', m.consensusHeads, consensus.heads, 'the consensus store');
    } else {
      // A PUT or delete the client saw succeed reached the store once; one that reached it may still
      // have failed. A compare-and-set the client sent may never have reached the store.
      atMost('blobPuts', m.blobPuts, blob.sets, 'the blob store');
      atMost('blobPutBytes', m.blobPutBytes, blob.setBytes, 'the blob store');
      atMost('blobDeletes', m.blobDeletes, blob.deletes, 'the blob store');
      atLeast('consensusCommands + writerRegistrations', cas, consensus.cas, 'the consensus store');
      atMost('stateDiffBytes', m.stateDiffBytes, store.shardBytes, "the shard's versions in consensus");
      // Each refresh reads the head once; a failed read never reached the store (faulty.ts).
      atLeast('consensusHeads', m.consensusHeads, consensus.heads, 'the consensus store');
    }
    // The store's own byte count covers what it holds for the shard (the writer registry comes on top).
    if (consensus.bytesWritten < store.shardBytes) {
      out.push(`the consensus store counts ${consensus.bytesWritten} bytes written, fewer than the ${store.shardBytes} its shard versions hold`);
    }
  }
  return out;
}
