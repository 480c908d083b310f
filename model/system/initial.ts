/** Initial state. */
import { validateConfig, workersPerReplica, type ModelConfig } from '../config.ts';
import { mint } from '../mint.ts';
import type { ReplicaState, SystemState } from '../state.ts';
import { sweep } from '../sweep.ts';
import { worker } from '../worker.ts';

export function initialState(cfg: ModelConfig): SystemState {
  validateConfig(cfg);
  const replica = freshReplica(cfg, cfg.asOf ?? 0, 0);
  return {
    shard: { upper: 0, inlineBytes: 0 },
    replicas: Array.from({ length: cfg.replicas }, () => replica),
    history: {
      appends: [],
      shardUppers: [0],
      finishesBegun: 0,
      finishesEnded: 0,
      ownBatches: 0,
      deleted: 0,
      faults: {
        aborts: 0,
        indeterminate: 0,
        retiredBuilders: [],
        pendingCleanups: 0,
        finalCleanup: false,
        leakingByReplica: Array.from({ length: cfg.replicas }, () => 0),
        leaksExpired: 0,
        leaksCollected: 0,
        referencedDeleted: 0,
        finishesAbandoned: 0,
        batchesAbandoned: 0,
      },
    },
  };
}

/** A replica incarnation as it starts: its sink at `start` (0, or the shard's upper after a restart). */
export function freshReplica(cfg: ModelConfig, start: number, incarnation: number): ReplicaState {
  const workers = workersPerReplica(cfg);
  const m = mint.start({ intervals: cfg.intervals, workers, start });
  return {
    up: true,
    incarnation,
    mint: mint.fire(m, { type: 'RESUME' }) ?? m,
    append: null,
    superseded: null,
    workers: Array.from({ length: workers }, () => worker.start(undefined)),
    handles: Array.from({ length: workers }, () => null),
    registries: Array.from({ length: cfg.processes }, () => ({
      sweep: sweep.start({ upgradeRace: cfg.bugs?.sweepUpgradeRace === true, shared: cfg.sharedRegistry === true }),
      builders: [],
    })),
  };
}
