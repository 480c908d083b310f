/**
 * One writer's handle on a shard (persist's `WriteHandle`): compare-and-append over consensus.
 *
 * compareAndAppend(batches, expectedUpper, newUpper) appends every batch's parts as ONE batch over
 * [expectedUpper, newUpper) with ONE consensus compare-and-set:
 * - scheduling point `consensus.cas`, then head (+ scan of new diffs) and the CaS in the same step;
 * - wrong upper → `upper-mismatch` result (no CaS; the caller still owns its batches);
 * - inline backpressure (inline payload I > 0 and state.inlineBytes + I ≥ inlineTotalMaxBytes) →
 *   refused: the batches' inline parts are flushed to blob, then the whole step is retried (the
 *   flush awaits PUTs, so another writer can interleave and the retry can see a mismatch);
 * - success consumes the batches.
 *
 * SUBTLE: under a scheduler that runs one step at a time nothing interleaves between head and CaS,
 * so each call issues exactly one CaS. With real concurrency (the pass-through scheduler and several
 * replicas) another writer can commit in between; the CaS then fails on its sequence number and the
 * step is re-evaluated against the fresh state (a second attempt, counted in consensusCommands, and
 * the lost one in consensusCasFailed).
 *
 * Metrics: consensusCommands += 1 per CaS attempted (committed or lost), consensusCasFailed += 1 per
 * lost one, inlineFlushedParts += the parts each flush moved to blob, at the flush (whatever the retry
 * then meets), stateDiffBytes += the committed diff's bytes.
 */
import type { PartsSummary, PersistConfig, Time } from '../../vocab/index.ts';
import type { BugSwitches } from '../bugs.ts';
import { SbkitError, isStorageFailure, requireInteger } from '../errors.ts';
import type { MetricsRecorder } from '../metrics.ts';
import type { Scheduler } from '../seams.ts';
import type { Trace } from '../runtime/trace.ts';
import { pointAt, type Where } from '../runtime/where.ts';
import type { Batch } from './batch.ts';
import type { BlobClient } from './blob-client.ts';
import type { Consensus } from './consensus.ts';
import { countParts } from './part.ts';
import { reportFault, retryExternal, type RetryContext } from './retry.ts';
import { EMPTY_SHARD_STATE, applyDiff, applyVersions, inlinePayload, type ShardState, type StateDiff } from './state.ts';
import { encodeDiff } from './state-diff.ts';

export type CompareAndAppendResult =
  | { readonly kind: 'ok'; readonly parts: PartsSummary; readonly flushedParts: number }
  | { readonly kind: 'upper-mismatch'; readonly current: Time; readonly expected: Time };

export interface ShardWriterDeps {
  readonly shardId: string;
  readonly consensus: Consensus;
  readonly blob: BlobClient;
  readonly scheduler: Scheduler;
  readonly metrics: MetricsRecorder;
  readonly config: PersistConfig;
  readonly where: Where;
  readonly trace: Trace;
  readonly bugs: BugSwitches;
}

export class ShardWriter {
  #state: ShardState = EMPTY_SHARD_STATE;
  /** Idempotency tokens: one per compareAndAppend call of this writer (its retries reuse it). */
  #nextToken = 0;

  constructor(private readonly deps: ShardWriterDeps) {}

  /** The shard this writer appends to. */
  get shardId(): string {
    return this.deps.shardId;
  }

  /** The state as this writer last saw it. */
  get cachedState(): ShardState {
    return this.#state;
  }

  get #io(): RetryContext {
    const { scheduler, where, trace, metrics } = this.deps;
    return { scheduler, where, trace, metrics };
  }

  /** Refreshes from consensus (a scheduling point first) and returns the state. */
  async fetchState(): Promise<ShardState> {
    await pointAt(this.deps.scheduler, 'consensus.head', this.deps.where);
    await this.#refresh();
    return this.#state;
  }

  async compareAndAppend(batches: readonly Batch[], expectedUpper: Time, newUpper: Time): Promise<CompareAndAppendResult> {
    this.#validate(batches, expectedUpper, newUpper);
    const { consensus, metrics, config, shardId, bugs } = this.deps;
    const writer = this.deps.blob.writerId;
    const token = this.#nextToken++;
    let flushedParts = 0;
    for (;;) {
      await pointAt(this.deps.scheduler, 'consensus.cas', this.deps.where);
      await this.#refresh();
      const state = this.#state;
      // SUBTLE: after an indeterminate compare-and-set, the token in state is the only way to know that
      // our own write applied; without it, the moved upper reads as another writer's (the gallery bug).
      if (state.writers.get(writer) === token && !bugs.has('indeterminate-cas-deletes-batches')) {
        return this.#committed(batches, flushedParts);
      }
      if (state.upper !== expectedUpper) return { kind: 'upper-mismatch', current: state.upper, expected: expectedUpper };

      const inline = inlinePayload(batches.flatMap((b) => b.parts));
      if (inline > 0 && state.inlineBytes + inline >= config.inlineTotalMaxBytes) {
        // The refusal is this step (it read this state); the flush's PUTs and the retry come after it.
        const flushing = countParts(batches.flatMap((b) => b.parts)).inline;
        this.deps.trace.emit({
          kind: 'backpressure',
          replica: this.deps.where.replica,
          lower: expectedUpper,
          inlineBytes: state.inlineBytes,
          adding: inline,
          flushed: flushing,
        });
        for (const b of batches) {
          const flushed = await b.flushInlineToBlob();
          flushedParts += flushed;
          metrics.c.inlineFlushedParts += flushed;
        }
        continue;
      }

      const seqNo = state.seqNo === null ? 0 : state.seqNo + 1;
      const diff: StateDiff = {
        seqNo,
        upper: newUpper,
        since: state.since,
        batch: batches.length === 0 ? null : { lower: expectedUpper, upper: newUpper, parts: batches.flatMap((b) => b.parts) },
        writer,
        token,
      };
      const data = encodeDiff(diff);
      // The command goes out in a round trip of its own, after the read it was built from (persist's
      // compare_and_append reads, then sends): another writer may commit in between, and this one then
      // loses the race (`ok: false`) and re-evaluates on fresh state. (The label is not a `consensus.`
      // one: the timing model charges the command's round trip once, at `consensus.cas`.)
      await pointAt(this.deps.scheduler, 'cas.send', this.deps.where);
      metrics.c.consensusCommands += 1;
      let ok: boolean;
      try {
        ok = (await consensus.compareAndSet(shardId, state.seqNo, { seqNo, data })).ok;
      } catch (e) {
        if (!isStorageFailure(e)) throw e;
        // Reported at once: an indeterminate CaS that applied changed the shard at this very step.
        reportFault(this.#io, 'consensus.cas', e);
        if (e.code === 'storage-permanent') throw e;
        metrics.c.retries += 1;
        await pointAt(this.deps.scheduler, 'retry.consensus.cas', this.deps.where);
        continue; // transient: not applied; indeterminate: the next refresh tells
      }
      if (!ok) {
        metrics.c.consensusCasFailed += 1;
        continue; // lost a race between head and CaS: re-evaluate on fresh state
      }
      metrics.c.stateDiffBytes += data.length;
      this.#state = applyDiff(state, diff);
      return this.#committed(batches, flushedParts);
    }
  }

  #committed(batches: readonly Batch[], flushedParts: number): CompareAndAppendResult {
    for (const b of batches) b.markConsumed();
    return { kind: 'ok', parts: countParts(batches.flatMap((b) => b.parts)), flushedParts };
  }

  #validate(batches: readonly Batch[], expectedUpper: Time, newUpper: Time): void {
    requireInteger(expectedUpper, 0, 'expectedUpper', 'invalid-append');
    requireInteger(newUpper, 0, 'newUpper', 'invalid-append');
    if (newUpper <= expectedUpper) {
      throw new SbkitError('invalid-append', `newUpper ${newUpper} must be greater than expectedUpper ${expectedUpper}`);
    }
    const seen = new Set<Batch>();
    for (const b of batches) {
      if (seen.has(b)) throw new SbkitError('invalid-append', `batch [${b.lower}, ${b.upper}) passed twice`);
      seen.add(b);
      if (!b.appendable) {
        throw new SbkitError('batch-consumed', `cannot append batch [${b.lower}, ${b.upper}): it was ${b.status === 'owned' ? 'being deleted' : b.status}`);
      }
      if (b.lower !== expectedUpper || b.upper !== newUpper) {
        throw new SbkitError(
          'invalid-append',
          `batch [${b.lower}, ${b.upper}) cannot be appended over [${expectedUpper}, ${newUpper})`,
        );
      }
    }
  }

  async #refresh(): Promise<void> {
    const { consensus, shardId, metrics } = this.deps;
    metrics.c.consensusHeads += 1;
    const head = await retryExternal(this.#io, 'consensus.head', () => consensus.head(shardId));
    if (head === undefined) return;
    const have = this.#state.seqNo;
    if (have !== null && head.seqNo <= have) return;
    const from = have === null ? 0 : have + 1;
    this.#state = applyVersions(this.#state, await retryExternal(this.#io, 'consensus.scan', () => consensus.scan(shardId, from)));
  }
}
