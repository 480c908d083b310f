/**
 * SystemView: a plain-data projection of one run, the only thing properties look at.
 *
 * It is derivable from the model's state (`viewOf` in model/view.ts) and from an event trace alone
 * (`viewFromTrace` here), so the conformance suite checks the very same properties on an implementation
 * run. What a trace cannot show (blob contents, consensus bytes) is not in the view.
 *
 * Invariants (both derivations must agree on every prefix of an accepted trace):
 * - `appends` in the order the append events happened; `batches` of each sorted by worker;
 * - `builders` sorted by (replica, process, sharedId, instance); `updates` ascending;
 * - `batches.written` = own batches + shared batches returned by a finish + batches closed for nobody.
 */
import type {
  AppendResult,
  PartsSummary,
  Route,
  SharedId,
  Time,
  TraceEvent,
  UpdateId,
  Variant,
} from '../vocab/index.ts';

/** The parts of the model config a view needs (model/config.ts's ModelConfig satisfies it). */
export interface ViewConfig {
  readonly variant: Variant;
  readonly replicas: number;
  readonly processes: number;
  readonly workersPerProcess: number;
  readonly intervals: number;
  readonly updates: readonly { readonly id: UpdateId; readonly time: Time; readonly worker: number }[];
}

export interface HandedBatchView {
  readonly worker: number;
  readonly process: number;
  /** 'shared': a shared batch its finish returned; 'own': its own (fallback or unshared) batch. */
  readonly route: 'shared' | 'own';
  readonly updates: readonly UpdateId[];
  readonly parts: PartsSummary;
  /** Payload bytes of each part, in cut order. */
  readonly partBytes: readonly number[];
}

export interface AppendView {
  readonly replica: number;
  /** Which start of the replica appended it (0, then one more per restart): a restarted mint numbers
   * its descriptions from 0 again, so a batch id names a builder only with the incarnation. */
  readonly incarnation: number;
  readonly sharedId: SharedId;
  readonly lower: Time;
  readonly upper: Time;
  /** The knob as read at mint for this description. */
  readonly maxBytes: number;
  /** The barrier flag as read at mint for this description. */
  readonly barrier: boolean;
  /** Each worker's route for the description (null if it never staged). */
  readonly routes: readonly (Route | null)[];
  readonly batches: readonly HandedBatchView[];
  readonly updates: readonly UpdateId[];
  /** After inline backpressure. */
  readonly parts: PartsSummary;
  readonly result: AppendResult;
  /** The shard's upper when the compare-and-set ran (after any bump), as the events before it tell. */
  readonly shardUpper: Time;
  /** Batches deleted after a mismatch; null until (unless) the delete happens. */
  readonly deleted: number | null;
}

export interface BuilderView {
  readonly replica: number;
  /** Which start of the replica built it (0, then one more per restart). */
  readonly incarnation: number;
  readonly process: number;
  readonly sharedId: SharedId;
  /** 0 for the first builder state of (process, sharedId), 1 for a second one (best-effort), … */
  readonly instance: number;
  readonly handles: number;
  /** Finishes that returned this instance's batch. */
  readonly receivers: number;
  readonly updates: readonly UpdateId[];
  /** Closed (by a sweep release or a dropped handle) with data and no receiver: its parts leak. */
  readonly deliveredToNobody: boolean;
}

export interface SystemView {
  readonly config: {
    readonly variant: Variant;
    readonly replicas: number;
    readonly processes: number;
    readonly workersPerProcess: number;
    readonly intervals: number;
  };
  /** The desired collection: ids and times (the same on every replica). */
  readonly desired: readonly { readonly id: UpdateId; readonly time: Time }[];
  readonly appends: readonly AppendView[];
  readonly builders: readonly BuilderView[];
  /** The shard's upper: 0, then after every successful append. */
  readonly shardUppers: readonly Time[];
  /** `abandoned`: begun by an incarnation that was aborted before they returned. */
  readonly finishes: { readonly begun: number; readonly ended: number; readonly abandoned: number };
  /** `abandoned`: written by an incarnation that was aborted before it appended or deleted them. */
  readonly batches: { readonly written: number; readonly appended: number; readonly deleted: number; readonly abandoned: number };
  /** The fault world, as far as the protocol saw it. */
  readonly faults: { readonly aborts: number; readonly restarts: number; readonly indeterminateCommits: number };
  /** What the blob store and shard state say (abstract in the model, measured in an implementation);
   * absent when nobody looked. Blob-level properties judge these. */
  readonly storage?: StorageFacts;
  /** The run can take no further step (model: no enabled action; trace: the run ended). */
  readonly final: boolean;
}

/**
 * Storage facts: what a trace cannot show. The model counts leak units (batches and builder instances
 * in the making) abstractly; an implementation run's audit counts blobs.
 */
export interface StorageFacts {
  /** Leaked by incarnations that were aborted (teardown, crash): expected until cleanup collects them. */
  readonly leakedFromAborted: number;
  /** Leaked by incarnations that were not aborted (or by nobody the registry knows): always a bug. */
  readonly leakedFromLive: number;
  /** Still leaked after the last cleanup (null: no cleanup ran). */
  readonly leakedAfterCleanup: number | null;
  /** Blobs deleted although shard state references them (state points at missing blobs). */
  readonly referencedDeleted: number;
  /** Desired updates missing from the shard, and updates in it more often than desired. */
  readonly lost: number;
  readonly duplicated: number;
}

/** Ids in ascending order (a copy). */
export const ascending = (ids: readonly UpdateId[]): UpdateId[] => [...ids].sort((a, b) => a - b);

const builderView = (b: BuilderView): BuilderView => ({
  replica: b.replica,
  incarnation: b.incarnation,
  process: b.process,
  sharedId: b.sharedId,
  instance: b.instance,
  handles: b.handles,
  receivers: b.receivers,
  updates: ascending(b.updates),
  deliveredToNobody: b.deliveredToNobody,
});

const byBuilder = (a: BuilderView, b: BuilderView): number =>
  a.replica - b.replica || a.incarnation - b.incarnation || a.process - b.process || a.sharedId - b.sharedId || a.instance - b.instance;

/**
 * Where both derivations (`viewOf`, `viewFromTrace`) end: `config` and `desired` come from the config;
 * builders are normalized (updates ascending, sorted by replica, process, sharedId, instance).
 */
export function assembleView(cfg: ViewConfig, run: Omit<SystemView, 'config' | 'desired'>): SystemView {
  return {
    config: {
      variant: cfg.variant,
      replicas: cfg.replicas,
      processes: cfg.processes,
      workersPerProcess: cfg.workersPerProcess,
      intervals: cfg.intervals,
    },
    desired: [...cfg.updates].sort((a, b) => a.id - b.id).map((u) => ({ id: u.id, time: u.time })),
    appends: run.appends,
    builders: run.builders.map(builderView).sort(byBuilder),
    shardUppers: run.shardUppers,
    finishes: run.finishes,
    batches: run.batches,
    faults: run.faults,
    final: run.final,
    ...(run.storage === undefined ? {} : { storage: run.storage }),
  };
}

/** A builder instance as the trace shows it so far (a mutable BuilderView). */
type TraceInstance = { -readonly [K in keyof BuilderView]: K extends 'updates' ? UpdateId[] : BuilderView[K] };

interface TraceReplica {
  desc: { sharedId: SharedId; maxBytes: number; barrier: boolean; lower: Time; upper: Time } | null;
  routes: (Route | null)[];
  hands: (HandedBatchView[] | null)[];
  /** Index in `appends` of this replica's last append (a delete refers to it). */
  lastAppend: number | null;
  /** Index in `appends` of the live description's append that committed through an indeterminate
   * compare-and-set the replica has not learned of yet. */
  committed: number | null;
  /** A bump's compare-and-set applied unanswered: the shard upper moved already; its `bump` step only learns it. */
  bumpedUnanswered: boolean;
  /** Inline backpressure flushed the live description's inline parts to blob. */
  flushed: boolean;
  /** Restarts so far: which incarnation the replica's events belong to. */
  incarnation: number;
  /** This incarnation's finishes begun and not returned, and batches written and not yet appended or
   * deleted (what an abort abandons). */
  open: { finishes: number; batches: number };
}

/**
 * Derives the view from a trace alone. Tolerant: events the model would reject (a buggy implementation's)
 * are folded in as literally as possible, so properties can still judge the run.
 */
export function viewFromTrace(cfg: ViewConfig, events: readonly TraceEvent[], opts: { final: boolean; storage?: StorageFacts }): SystemView {
  const workers = cfg.processes * cfg.workersPerProcess;
  const replicas = new Map<number, TraceReplica>();
  const instances: TraceInstance[] = [];
  /** The current instance of each registry entry, and the instance each worker's handle joined. */
  const currentInstance = new Map<string, TraceInstance>();
  const handleInstance = new Map<string, TraceInstance>();
  const appends: AppendView[] = [];
  const shardUppers: Time[] = [0];
  const finishes = { begun: 0, ended: 0, abandoned: 0 };
  const batches = { written: 0, appended: 0, deleted: 0, abandoned: 0 };
  const faults = { aborts: 0, restarts: 0, indeterminateCommits: 0 };
  const entryKey = (e: { replica: number; process: number; sharedId: SharedId }) => `${e.replica}.${replicaOf(e.replica).incarnation}/${e.process}/${e.sharedId}`;
  const instanceKey = (i: TraceInstance) => `${i.replica}.${i.incarnation}/${i.process}/${i.sharedId}`;
  const handleKey = (e: { replica: number; worker: number }) => `${e.replica}/${e.worker}`;
  const replicaOf = (r: number): TraceReplica => {
    let rep = replicas.get(r);
    if (rep === undefined) {
      rep = { desc: null, routes: [], hands: [], lastAppend: null, committed: null, bumpedUnanswered: false, flushed: false, incarnation: 0, open: { finishes: 0, batches: 0 } };
      replicas.set(r, rep);
    }
    return rep;
  };
  const closeToNobody = (inst: TraceInstance | undefined) => {
    if (inst !== undefined && inst.receivers === 0 && inst.updates.length > 0 && !inst.deliveredToNobody) {
      inst.deliveredToNobody = true;
      batches.written += 1;
    }
  };

  for (const e of events) {
    switch (e.kind) {
      case 'mint': {
        const rep = replicaOf(e.replica);
        rep.desc = { sharedId: e.desc.sharedId, maxBytes: e.desc.maxBytes, barrier: e.desc.barrier, lower: e.desc.lower, upper: e.desc.upper };
        rep.committed = null;
        rep.flushed = false;
        rep.routes = Array.from({ length: workers }, () => null);
        rep.hands = Array.from({ length: workers }, () => null);
        break;
      }
      case 'stage':
        replicaOf(e.replica).routes[e.worker] = e.route;
        break;
      case 'open': {
        let inst = currentInstance.get(entryKey(e));
        if (e.created || inst === undefined) {
          const instance = instances.filter((i) => instanceKey(i) === entryKey(e)).length;
          const incarnation = replicaOf(e.replica).incarnation;
          inst = { replica: e.replica, incarnation, process: e.process, sharedId: e.sharedId, instance, handles: 0, receivers: 0, updates: [], deliveredToNobody: false };
          instances.push(inst);
          currentInstance.set(entryKey(e), inst);
        }
        inst.handles += 1;
        handleInstance.set(handleKey(e), inst);
        break;
      }
      case 'push':
        handleInstance.get(handleKey(e))?.updates.push(...e.updates);
        break;
      case 'finish-begin':
        finishes.begun += 1;
        replicaOf(e.replica).open.finishes += 1;
        break;
      case 'finish-end': {
        finishes.ended += 1;
        replicaOf(e.replica).open.finishes -= 1;
        if (e.received !== null) {
          batches.written += 1;
          replicaOf(e.replica).open.batches += 1;
          const inst = handleInstance.get(handleKey(e));
          if (inst !== undefined) inst.receivers += 1;
        }
        break;
      }
      case 'own-batch':
        batches.written += 1;
        replicaOf(e.replica).open.batches += 1;
        break;
      case 'hand': {
        const rep = replicaOf(e.replica);
        // A hand for a superseded description (the worker had not handed it when a newer one was
        // minted) goes to that description's append, which deletes it: no append record shows it.
        if (rep.desc !== null && e.sharedId !== rep.desc.sharedId) break;
        // An `empty` worker (no data, policy finish) hands what its finish returned: a shared batch.
        const seen = rep.routes[e.worker];
        const route = seen === 'shared' || seen === 'empty' ? 'shared' : 'own';
        rep.hands[e.worker] = e.batches.map((b) => ({
          worker: e.worker,
          process: e.process,
          route,
          updates: b.updates,
          parts: b.parts,
          partBytes: b.partBytes,
        }));
        break;
      }
      case 'append': {
        const rep = replicaOf(e.replica);
        const committed = rep.committed === null ? undefined : appends[rep.committed];
        if (committed !== undefined && rep.committed !== null && e.result.ok) {
          // The replica learned that its unanswered compare-and-set applied: the parts as committed.
          appends[rep.committed] = { ...committed, parts: e.parts };
          rep.lastAppend = rep.committed;
          rep.committed = null;
          break;
        }
        rep.committed = null;
        rep.lastAppend = appends.length;
        appends.push({
          replica: e.replica,
          incarnation: rep.incarnation,
          sharedId: rep.desc?.sharedId ?? -1,
          lower: e.lower,
          upper: e.upper,
          maxBytes: rep.desc?.maxBytes ?? 0,
          barrier: rep.desc?.barrier ?? false,
          routes: [...rep.routes],
          batches: rep.hands.flatMap((h) => h ?? []),
          updates: e.updates,
          parts: e.parts,
          result: e.result,
          shardUpper: shardUppers.at(-1) ?? 0,
          deleted: null,
        });
        if (e.result.ok) {
          shardUppers.push(e.upper);
          batches.appended += e.batches;
          rep.open.batches -= e.batches;
        }
        break;
      }
      case 'bump': {
        const rep = replicaOf(e.replica);
        if (!rep.bumpedUnanswered) shardUppers.push(e.to);
        rep.bumpedUnanswered = false;
        break;
      }
      case 'backpressure':
        replicaOf(e.replica).flushed = true;
        break;
      case 'delete': {
        batches.deleted += e.batches;
        replicaOf(e.replica).open.batches -= e.batches;
        if (e.reason === 'stale') break; // a superseded description's: it has no append record
        const at = replicaOf(e.replica).lastAppend;
        const last = at === null ? undefined : appends[at];
        if (at !== null && last !== undefined) appends[at] = { ...last, deleted: (last.deleted ?? 0) + e.batches };
        break;
      }
      case 'sweep-release':
        if (e.closed) closeToNobody(currentInstance.get(entryKey(e)));
        break;
      case 'drop':
        if (e.closed) closeToNobody(handleInstance.get(handleKey(e)));
        break;
      case 'fault': {
        const rep = replicaOf(e.replica);
        const desc = rep.desc;
        // The append's compare-and-set applied though it answered with an error: the shard took it now.
        const appendPending = desc !== null && rep.hands.length > 0 && rep.hands.every((h) => h !== null) && rep.committed === null;
        if (e.op !== 'consensus.cas' || e.fault !== 'indeterminate-applied' || !appendPending) break;
        const upper = shardUppers.at(-1) ?? 0;
        if (upper < desc.lower) {
          // The bump's empty compare-and-append applied (its `bump` step will learn it).
          shardUppers.push(desc.lower);
          rep.bumpedUnanswered = true;
          break;
        }
        if (upper !== desc.lower) break;
        const handed = rep.hands.flatMap((h) => h ?? []);
        rep.committed = appends.length;
        appends.push({
          replica: e.replica,
          incarnation: rep.incarnation,
          sharedId: desc.sharedId,
          lower: desc.lower,
          upper: desc.upper,
          maxBytes: desc.maxBytes,
          barrier: desc.barrier,
          routes: [...rep.routes],
          batches: handed,
          updates: ascending(handed.flatMap((b) => b.updates)),
          parts: handed.reduce(
            (p, b) => (rep.flushed ? { hollow: p.hollow + b.parts.hollow + b.parts.inline, inline: 0 } : { hollow: p.hollow + b.parts.hollow, inline: p.inline + b.parts.inline }),
            { hollow: 0, inline: 0 },
          ),
          result: { ok: true },
          shardUpper: upper,
          deleted: null,
        });
        shardUppers.push(desc.upper);
        batches.appended += handed.length;
        rep.open.batches -= handed.length;
        faults.indeterminateCommits += 1;
        break;
      }
      case 'abort': {
        const rep = replicaOf(e.replica);
        finishes.abandoned += rep.open.finishes;
        batches.abandoned += rep.open.batches;
        rep.open = { finishes: 0, batches: 0 };
        rep.incarnation += 1;
        faults.aborts += 1;
        rep.desc = null;
        rep.committed = null;
        break;
      }
      case 'restart':
        faults.restarts += 1;
        replicaOf(e.replica).bumpedUnanswered = false;
        break;
      case 'frontier':
      case 'superseded':
      case 'skip':
      case 'timeout':
      case 'sweep':
      case 'sweep-hold':
      case 'cleanup':
        break;
    }
  }

  return assembleView(cfg, {
    appends,
    builders: instances,
    shardUppers,
    finishes,
    batches,
    faults,
    final: opts.final,
    ...(opts.storage === undefined ? {} : { storage: opts.storage }),
  });
}
