/**
 * The supervisor of one run's replicas: it starts each replica's sink as a writer incarnation, tears an
 * incarnation down when told to (a crash, a dataflow teardown) or when a storage failure cannot be
 * retried, starts a new incarnation in its place, and runs leaked-blob cleanup.
 *
 * An incarnation is one start of a replica's sink: its own writer id (writer-registry.ts), its own
 * in-memory state (registries, descriptions, handles), its own tasks. Aborting it is what a crash or a
 * teardown does to a real process's futures: none of its tasks runs again — each stops at its next
 * scheduling point, for good — its handles are dropped without finish, and whatever it wrote and did not
 * append leaks (until cleanup collects it, once the incarnation is expired). A restart is a separate
 * step (a `replica.restart` scheduling point): it claims a new writer id, which expires every earlier
 * incarnation of the replica, reads the shard's upper, and starts the sink there — so the new
 * incarnation writes only what the shard does not hold yet.
 *
 * Invariants:
 * - at most one live incarnation per replica; an aborted one never takes another step;
 * - a restart follows every abort (up to `maxRestarts` per replica);
 * - the run is done when every replica's current incarnation finished (its lower reached K), no
 *   restart is pending and every cleanup ended;
 * - no failure of a live incarnation's task is dropped: a permanent storage failure aborts it (its
 *   sinks that are not sealed, replica-state.ts), anything else — or a failure with every sink sealed,
 *   nothing left to abort — fails the run;
 * - a cleanup deletes only blobs of retired writers (gc.ts); every blob it deletes is counted by why its
 *   writer retired, so leaks from finished writers (a bug) stay visible after they are collected.
 *
 * Several MV sinks (RunConfig.sinks, sinks.ts): an incarnation of a replica hosts every sink of the
 * replica that has not sealed its shard range, each with its own writer (claimed on its own shard), and
 * one SharedBatches per process shared by all of them. An abort is the replica's (a crash takes every
 * sink of the process down): each hosted sink that has not sealed gets its `abort`; the restart claims a
 * writer per such sink, reads its shard, emits its `restart` and hosts it in the new incarnation (a
 * sealed sink writes nothing more and stays down). Cleanups run per sink shard.
 */
import { Notify } from './runtime/notify.ts';
import type { PointLabel } from '../vocab/index.ts';
import { SbkitError, isStorageFailure } from './errors.ts';
import type { MetricsRecorder } from './metrics.ts';
import type { BatchWriter } from './persist/batch-builder.ts';
import type { Blob } from './persist/blob.ts';
import { BlobClient } from './persist/blob-client.ts';
import type { Consensus } from './persist/consensus.ts';
import { collectLeakedBlobs, type Collected } from './persist/gc.ts';
import { retryExternal, type RetryContext } from './persist/retry.ts';
import { ShardWriter } from './persist/shard-writer.ts';
import { applyVersions, EMPTY_SHARD_STATE } from './persist/state.ts';
import { claimWriter, retireWriter, type WriterRecord } from './persist/writer-registry.ts';
import { Deferred } from './runtime/deferred.ts';
import { TaskGroup } from './runtime/task-group.ts';
import type { Trace } from './runtime/trace.ts';
import { pointAt } from './runtime/where.ts';
import { sinkSettingsOf, type ResolvedRun } from './run-config.ts';
import type { RunControl, Scheduler } from './seams.ts';
import { SharedBatches } from './shared/shared-batches.ts';
import { ReplicaState } from './sink/replica-state.ts';
import { startReplica } from './sink/replica.ts';
import type { Update } from './update.ts';

/** A scheduling point that never resumes: where the tasks of an aborted incarnation stop. */
const NEVER = new Promise<never>(() => {});

/**
 * The scheduler an incarnation's tasks see: the run's, until the incarnation is aborted. Each point is
 * tagged with its owner; a scheduler that honours owners never resumes a dead one. SUBTLE: for one that
 * does not, the resumed point is checked again — a point reached before the abort may still be resumed.
 */
function lifeScheduler(inner: Scheduler, life: { alive: boolean }): Scheduler {
  if (inner.honorsOwners === true) {
    return {
      point: (site) => {
        if (!life.alive) return NEVER;
        (site as { owner?: { alive: boolean } }).owner = life;
        return inner.point(site);
      },
    };
  }
  return {
    point: (site) => (life.alive ? inner.point(site).then(() => (life.alive ? undefined : NEVER)) : NEVER),
  };
}

interface Incarnation {
  readonly replica: number;
  /** Per hosted sink, its writer (claimed on that sink's shard). */
  readonly writers: ReadonlyMap<number, WriterRecord>;
  readonly life: { alive: boolean };
  /** Per hosted sink, its state, once started. */
  readonly sinks: Map<number, ReplicaState>;
  /** Every task ended. */
  finished: boolean;
}

/** What one MV sink of the run writes with (sinks.ts): its shard, its view of the blob store, its
 * trace, its updates per worker. */
export interface SinkEnv {
  readonly sink: number;
  readonly shardId: string;
  /** The run's blob store as this sink sees it (with faults, when the run has a fault plan). */
  readonly blob: Blob;
  readonly trace: Trace;
  /** Per worker of a replica, its updates ascending by (time, id). */
  readonly byWorker: readonly (readonly Update[])[];
}

/** Blobs cleanup deleted, by why their writer could no longer append. */
export interface CollectedBlobs {
  readonly expired: number;
  readonly finished: number;
  /** Deleted although their writer was live (only a cleanup bug does that). */
  readonly live: number;
}

export interface SupervisorDeps {
  readonly run: ResolvedRun;
  readonly metrics: MetricsRecorder;
  /** The run's trace: what no one sink owns (a sweep of a registry that serves several sinks). */
  readonly trace: Trace;
  /** The consensus the replicas use (with faults, when the run has a fault plan). */
  readonly consensus: Consensus;
  /** The run's MV sinks (index = sink). */
  readonly sinks: readonly SinkEnv[];
}

export class Supervisor implements RunControl {
  readonly #current: (Incarnation | undefined)[];
  readonly #restarts: number[];
  /** Restarts, cleanups and retirements: the supervisor's own tasks. */
  readonly #tasks = new TaskGroup();
  /** Every in-process writer's append or bump notifies it: the persist frontier the mints follow. */
  readonly #shardMoved0 = new Notify();
  /** Supervisor tasks not ended yet. */
  #running = 0;
  #pendingRestarts = 0;
  readonly #done = new Deferred<void>();
  #failed = false;
  /** Blobs cleanup deleted, over every sink, and per sink. */
  readonly collected = { expired: 0, finished: 0, live: 0 };
  readonly collectedBySink: { expired: number; finished: number; live: number }[];
  /** Every writer this run claimed, in order. */
  readonly writers: WriterRecord[] = [];

  constructor(private readonly deps: SupervisorDeps) {
    this.#current = Array.from({ length: deps.run.replicas }, () => undefined);
    this.#restarts = Array.from({ length: deps.run.replicas }, () => 0);
    this.collectedBySink = deps.sinks.map(() => ({ expired: 0, finished: 0, live: 0 }));
  }

  /**
   * Starts every replica's first incarnation. The claims and the shard read happen before any task
   * exists (they decide no interleaving and pass no point); then all sinks start in one step.
   */
  async startAll(): Promise<void> {
    const { run, consensus, metrics, sinks } = this.deps;
    const writers = Array.from({ length: run.replicas }, () => new Map<number, WriterRecord>());
    const uppers = new Map<number, number>();
    for (const { sink, shardId } of sinks) {
      for (let replica = 0; replica < run.replicas; replica++) writers[replica]?.set(sink, await claimWriter(consensus, shardId, replica, metrics));
      // A sink starts at its as-of or the shard's upper, whichever is later (as-of ahead of the shard:
      // its first append bumps the shard).
      uppers.set(sink, Math.max(run.asOf, applyVersions(EMPTY_SHARD_STATE, await consensus.scan(shardId, 0)).upper));
    }
    writers.forEach((w, replica) => this.#launch(replica, w, uppers, false));
  }

  /** Resolves when the run is over (see the invariants); rejects if a task failed for another reason. */
  whenDone(): Promise<void> {
    this.#check();
    return this.#done.promise;
  }

  abort(replica: number, reason: string): boolean {
    const inc = this.#current[replica];
    if (inc === undefined || !inc.life.alive || inc.finished) return false;
    // A sealed sink (replica-state.ts) has nothing left to write: what is left (the input catching up, a
    // sweep) touches no storage, so there is nothing to tear down — as the model says (a sealed replica).
    // A sink whose lower reached K while a refused append's delete or a superseded description's stale
    // delete is still running is not sealed: that delete can fail, and the sink goes down with it.
    const down = [...inc.sinks].filter(([, sink]) => !sink.sealed).map(([s]) => s);
    if (down.length === 0) return false;
    inc.life.alive = false;
    this.deps.metrics.c.aborts += 1;
    for (const s of down) this.#env(s).trace.emit({ kind: 'abort', replica, reason });
    this.#pendingRestarts += 1;
    this.#spawn(`restart r${replica}`, () => this.#restart(replica, down));
    return true;
  }

  /** The environment of sink `sink` (every sink index the supervisor uses is one of the run's). */
  #env(sink: number): SinkEnv {
    return this.deps.sinks[sink] as SinkEnv;
  }

  #io(replica: number, sink = 0): RetryContext {
    const { run, metrics } = this.deps;
    return { scheduler: run.scheduler, where: { replica }, trace: this.#env(sink).trace, metrics, by: 'supervisor' };
  }

  #spawn(name: string, task: () => Promise<unknown>): void {
    this.#running += 1;
    this.#tasks.spawn(name, async () => {
      try {
        await task();
      } catch (e) {
        this.#fail(e);
      } finally {
        this.#running -= 1;
        this.#check();
      }
    });
  }

  async #restart(replica: number, sinks: readonly number[]): Promise<void> {
    const { run, consensus, metrics } = this.deps;
    if (this.#restarts[replica] === run.maxRestarts) {
      throw new SbkitError('replica-gave-up', `replica ${replica} was aborted ${run.maxRestarts + 1} times; maxRestarts is ${run.maxRestarts}`);
    }
    this.#restarts[replica] = (this.#restarts[replica] ?? 0) + 1;
    const writers = new Map<number, WriterRecord>();
    const uppers = new Map<number, number>();
    for (let attempt = 0; ; attempt++) {
      await pointAt(run.scheduler, 'replica.restart', { replica });
      try {
        for (const s of sinks) {
          if (writers.has(s)) continue;
          const { shardId, trace } = this.#env(s);
          const io = this.#io(replica, s);
          const writer = await claimWriter(consensus, shardId, replica, metrics, io);
          const versions = await retryExternal(io, 'consensus.scan', () => consensus.scan(shardId, 0));
          const upper = Math.max(run.asOf, applyVersions(EMPTY_SHARD_STATE, versions).upper);
          // SUBTLE: each sink's restart is announced in the step of its read — the upper it resumes at
          // is its shard's now (the next sink's claim and read pass points, and another replica may
          // append meanwhile) — and stands: a later sink's failure retries only the sinks not restarted.
          writers.set(s, writer);
          uppers.set(s, upper);
          trace.emit({ kind: 'restart', replica, lower: upper });
        }
        metrics.c.restarts += 1;
        this.#pendingRestarts -= 1;
        this.#launch(replica, writers, uppers, true);
        if (run.cleanup) this.#spawn(`cleanup after restart r${replica}`, () => this.cleanup(replica, sinks));
        return;
      } catch (e) {
        // A permanent failure while starting: the new incarnation went down before it began; try again,
        // as often as the replica may be restarted (storage that stays broken fails the run, not spins).
        if (!(isStorageFailure(e) && e.code === 'storage-permanent')) throw e;
        if (attempt >= run.maxRestarts) {
          throw new SbkitError('replica-gave-up', `replica ${replica} could not be restarted: its start failed ${attempt + 1} times; maxRestarts is ${run.maxRestarts}: ${e.message}`, { cause: e });
        }
      }
    }
  }

  /** Starts an incarnation of `replica` hosting the sinks `writers` names, each at its `uppers` entry
   * (the shard's upper it read). */
  #launch(replica: number, writers: ReadonlyMap<number, WriterRecord>, uppers: ReadonlyMap<number, number>, restarted: boolean): void {
    const { run, metrics, consensus } = this.deps;
    const life = { alive: true };
    const inc: Incarnation = { replica, writers, life, sinks: new Map(), finished: false };
    this.#current[replica] = inc;
    this.writers.push(...writers.values());
    const scheduler = lifeScheduler(run.scheduler, life);
    const tasks = new TaskGroup();
    const where = { replica };
    const hosted = [...writers].map(([s, writer]) => {
      const { shardId, trace } = this.#env(s);
      const blob = new BlobClient(this.#env(s).blob, scheduler, metrics, writer.id, trace);
      const shard = new ShardWriter({ shardId, consensus, blob, scheduler, metrics, config: run.persist, where, trace, bugs: run.bugs });
      return { s, trace, shard, writer: { config: run.persist, blob, metrics, shardId } satisfies BatchWriter };
    });
    // One registry per process, shared by every sink this incarnation hosts (none: each sink its own,
    // as a one-sink run always had).
    const registries = run.sinks === 1 ? undefined : this.#registries(replica, hosted, scheduler, tasks.spawn);
    for (const { s, trace, shard, writer } of hosted) {
      const state = new ReplicaState(
        sinkSettingsOf(run, replica, uppers.get(s) as number, restarted),
        { scheduler, trace, bugs: run.bugs, metrics, spawn: tasks.spawn, shard, writer, shardMoved: this.#shardMoved(s), ...(registries === undefined ? {} : { registries, sink: s }) },
        this.#env(s).byWorker,
      );
      inc.sinks.set(s, state);
      startReplica(state);
    }
    tasks.whenAllDone().then(
      () => {
        if (!life.alive) return;
        inc.finished = true;
        // Retirement lets cleanup collect what this writer leaked; without cleanup nobody reads it.
        if (!run.cleanup) {
          this.#check();
          return;
        }
        for (const [s, writer] of writers) {
          const { shardId } = this.#env(s);
          this.#spawn(`retire ${writer.id}${s === 0 ? '' : ` s${s}`}`, () =>
            this.#persistently(replica, 'writer.retire', () => retireWriter(consensus, shardId, writer, 'finished', metrics, this.#io(replica, s))),
          );
        }
      },
      (e: unknown) => {
        if (!life.alive) return; // a dead incarnation's leftovers do not matter
        if (!(isStorageFailure(e) && e.code === 'storage-permanent')) {
          this.#fail(e);
          return;
        }
        if (this.abort(replica, `permanent storage failure: ${e.message}`)) return;
        // Refused: every sink the incarnation hosts has sealed, so there is nothing to abort, yet a task
        // failed. Dropping the failure would leave an incarnation that neither finishes nor restarts (a
        // run that never settles); the run fails instead, saying so.
        this.#fail(
          new SbkitError('incarnation-failed', `replica ${replica}'s incarnation failed after every sink it hosts had sealed (nothing left to abort): ${e.message}`, { cause: e }),
        );
      },
    );
  }

  /** The registries of one incarnation that hosts several sinks: one per process. */
  #registries(
    replica: number,
    hosted: readonly { s: number; trace: Trace; writer: BatchWriter; shard: ShardWriter }[],
    scheduler: Scheduler,
    spawn: TaskGroup['spawn'],
  ): SharedBatches[] {
    const { run, trace } = this.deps;
    // An incarnation hosts at least one sink: an abort with none left to host is refused.
    const first = hosted[0] as { writer: BatchWriter; shard: ShardWriter };
    const sinks = hosted.map((h) => h.s);
    return Array.from(
      { length: run.processes },
      (_, process) => new SharedBatches({ replica, process, writer: first.writer, scheduler, trace, bugs: run.bugs, spawn, sinks, shard: first.shard.shardId }),
    );
  }

  /** The notification a sink's mints follow: every in-process writer of that sink's shard notifies it. */
  #shardMoved(sink: number): Notify {
    let n = this.#shardMovedBySink.get(sink);
    if (n === undefined) {
      n = sink === 0 ? this.#shardMoved0 : new Notify();
      this.#shardMovedBySink.set(sink, n);
    }
    return n;
  }

  readonly #shardMovedBySink = new Map<number, Notify>();

  /** One leaked-blob cleanup per sink shard (`sinks`, default every sink), run by a writer of `replica`. */
  async cleanup(replica: number, sinks: readonly number[] = this.deps.sinks.map((e) => e.sink)): Promise<readonly Collected[]> {
    const { run, metrics, consensus } = this.deps;
    const all: Collected[] = [];
    for (const s of sinks) {
      const { shardId, trace } = this.#env(s);
      const blob = new BlobClient(this.#env(s).blob, run.scheduler, metrics, `cleanup-r${replica}`, trace, 'supervisor');
      const collected = await this.#persistently(replica, 'cleanup.retry', () =>
        collectLeakedBlobs({ shardId, consensus, blob, scheduler: run.scheduler, metrics, trace, bugs: run.bugs, where: { replica } }),
      );
      for (const c of collected) {
        this.collected[c.writer ?? 'live'] += 1;
        const bySink = this.collectedBySink[s];
        if (bySink !== undefined) bySink[c.writer ?? 'live'] += 1;
      }
      all.push(...collected);
    }
    return all;
  }

  /**
   * Runs a supervisor step until it gets past permanent storage failures: each one is what a crash of
   * the process running the step would be, so the step starts over (after a scheduling point), up to
   * `maxRestarts` times. Retirements and cleanups are idempotent: starting over is safe.
   */
  async #persistently<T>(replica: number, label: PointLabel, step: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await step();
      } catch (e) {
        if (!(isStorageFailure(e) && e.code === 'storage-permanent') || attempt >= this.deps.run.maxRestarts) throw e;
        await pointAt(this.deps.run.scheduler, label, { replica });
      }
    }
  }

  #fail(e: unknown): void {
    if (this.#failed) return;
    this.#failed = true;
    this.#done.reject(e);
  }

  #check(): void {
    if (this.#failed || this.#pendingRestarts > 0 || this.#running > 0) return;
    if (this.#current.every((inc) => inc !== undefined && inc.finished)) this.#done.resolve();
  }
}

