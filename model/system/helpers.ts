/** Small immutable helpers. */
import type { SharedId } from '../../vocab/index.ts';
import type { BuilderContext } from '../builder.ts';
import { sizeIndex, type ModelConfig } from '../config.ts';
import type { Local } from '../local.ts';
import type { History, Registry, ReplicaState, SystemState } from '../state.ts';

export const set = <T>(xs: readonly T[], i: number, x: T): readonly T[] => {
  // A copy with one slot replaced (not `map`: a closure call per element, for every event).
  const next = xs.slice();
  if (i >= 0 && i < next.length) next[i] = x;
  return next;
};

export function withReplica(s: SystemState, r: number, change: Partial<ReplicaState>, history?: Partial<History>): SystemState {
  const rep = s.replicas[r] as ReplicaState;
  // Fields spelled out (an object spread costs ~50 ns; this runs for every event), in ReplicaState's
  // and History's declaration order, so serialization stays canonical.
  const next: ReplicaState = {
    up: change.up ?? rep.up,
    incarnation: change.incarnation ?? rep.incarnation,
    mint: change.mint ?? rep.mint,
    append: change.append !== undefined ? change.append : rep.append,
    superseded: change.superseded !== undefined ? change.superseded : rep.superseded,
    workers: change.workers ?? rep.workers,
    handles: change.handles ?? rep.handles,
    registries: change.registries ?? rep.registries,
  };
  const h = s.history;
  return {
    shard: s.shard,
    replicas: set(s.replicas, r, next),
    history:
      history === undefined
        ? h
        : {
            appends: history.appends ?? h.appends,
            shardUppers: history.shardUppers ?? h.shardUppers,
            finishesBegun: history.finishesBegun ?? h.finishesBegun,
            finishesEnded: history.finishesEnded ?? h.finishesEnded,
            ownBatches: history.ownBatches ?? h.ownBatches,
            deleted: history.deleted ?? h.deleted,
            faults: history.faults ?? h.faults,
          },
  };
}

export const withRegistry = (rep: ReplicaState, p: number, reg: Registry): Partial<ReplicaState> => ({
  registries: set(rep.registries, p, reg),
});

export function withBuilder(reg: Registry, id: SharedId, b: Local<BuilderContext>): Registry {
  const builders = [...reg.builders];
  while (builders.length <= id) builders.push(null);
  builders[id] = b;
  return { sweep: reg.sweep, builders };
}

/**
 * What a step derives from its config alone, computed once for the config in use. One entry (the last
 * config), not a WeakMap: a replay uses one config for all its events, and V8 keeps a WeakMap's entries
 * through every minor GC (only a full one clears them), so a cache per run's config promoted each run's
 * config and indexes to the old generation (a conformance check replays a fresh config per run).
 */
interface Derived {
  readonly cfg: ModelConfig;
  sizes?: ReadonlyMap<number, number>;
  byWorker?: ReadonlyMap<string, readonly ModelConfig['updates'][number][]>;
}
let derived: Derived | undefined;
function derivedOf(cfg: ModelConfig): Derived {
  if (derived === undefined || derived.cfg !== cfg) derived = { cfg };
  return derived;
}

/** Update sizes by id, computed once per config (the model's only lookup into the workload). */
export function sizesOf(cfg: ModelConfig): ReadonlyMap<number, number> {
  const d = derivedOf(cfg);
  d.sizes ??= sizeIndex(cfg);
  return d.sizes;
}

/** Each worker's updates by time, computed once per config (staging reads only its own interval). */
export function updatesAt(cfg: ModelConfig, worker: number, time: number): readonly ModelConfig['updates'][number][] {
  const d = derivedOf(cfg);
  let index = d.byWorker;
  if (index === undefined) {
    const built = new Map<string, ModelConfig['updates'][number][]>();
    for (const u of cfg.updates) {
      const key = `${u.worker}/${u.time}`;
      const list = built.get(key);
      if (list === undefined) built.set(key, [u]);
      else list.push(u);
    }
    index = built;
    d.byWorker = index;
  }
  return index.get(`${worker}/${time}`) ?? [];
}
