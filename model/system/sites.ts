/** Where an event happens. */
import { match } from 'ts-pattern';
import type { Description, SharedId, WorkerRef } from '../../vocab/index.ts';
import { builder, type BuilderContext } from '../builder.ts';
import { processOf, type ModelConfig } from '../config.ts';
import { policyOf } from '../variants/index.ts';
import { pathOf, type Local } from '../local.ts';
import type { Registry, ReplicaState, SystemState } from '../state.ts';
import type { WorkerContext } from '../worker.ts';

export interface ReplicaSite {
  readonly rep: ReplicaState;
  readonly r: number;
}

/** A replica whatever its state (fault-world events); `replicaSite` requires it to be up. */
export function anyReplicaSite(cfg: ModelConfig, s: SystemState, r: number): ReplicaSite | string {
  const rep = Number.isInteger(r) ? s.replicas[r] : undefined;
  if (rep === undefined) return `there is no replica ${r} (replicas: ${cfg.replicas})`;
  return { rep, r };
}

export function replicaSite(cfg: ModelConfig, s: SystemState, r: number): ReplicaSite | string {
  const site = anyReplicaSite(cfg, s, r);
  if (typeof site !== 'string' && !site.rep.up) return `replica ${r} is down (aborted, not restarted yet)`;
  return site;
}

export interface WorkerSite extends ReplicaSite {
  readonly w: number;
  readonly p: number;
  /** The worker's description: the superseded one while it has not handed it, else the live one. */
  readonly desc: Description;
  /** `desc` is superseded (rep.superseded's). */
  readonly lagging: boolean;
  readonly wk: Local<WorkerContext>;
  readonly reg: Registry;
}

export function workerSite(cfg: ModelConfig, s: SystemState, e: WorkerRef): WorkerSite | string {
  const site = replicaSite(cfg, s, e.replica);
  if (typeof site === 'string') return site;
  const wk = Number.isInteger(e.worker) ? site.rep.workers[e.worker] : undefined;
  if (wk === undefined) return `replica ${e.replica} has no worker ${e.worker}`;
  const p = processOf(cfg, e.worker);
  if (e.process !== p) return `worker ${e.worker} lives in process ${p}, not ${e.process}`;
  const sup = site.rep.superseded;
  const lagging = sup !== null && sup.append.context.handed[e.worker] === null;
  const desc = lagging ? sup.desc : site.rep.mint.context.live;
  if (desc === null) return `replica ${e.replica} has no live description`;
  return { rep: site.rep, r: site.r, w: e.worker, p, desc, lagging, wk, reg: site.rep.registries[p] as Registry };
}

/** What a worker does next, for messages: "worker 1 has not staged", "… expects push". */
export function workerPhase(site: WorkerSite): string {
  const path = pathOf(site.wk.value);
  const next = match(path)
    .with('idle', () => 'has not staged')
    .with('shared.opening', () => 'must open its handle next')
    .with('shared.holdingHandle', () => `holds an open handle (${pathOf(site.rep.handles[site.w]?.value ?? 'none')})`)
    .with('fallback.reportingSkip', 'noData.reportingSkip', () => 'must report a skip next')
    .with('fallback.writing', () => 'must write its own batch next')
    .with('handing', () => 'must hand its batches next')
    .otherwise(() => 'is done with the description');
  return `worker ${site.w} ${next}`;
}

/** The participants a barrier of `cfg`'s variant waits for. */
export const barrierParticipants = (cfg: ModelConfig): number => policyOf(cfg).barrier(cfg.workersPerProcess).participants;

/** Whether a barrier of `cfg`'s variant has a deadline (a finite one: it may time out). */
export function barrierTimesOut(cfg: ModelConfig): boolean {
  const deadline = policyOf(cfg).barrier(cfg.workersPerProcess).deadline;
  return deadline !== undefined && Number.isFinite(deadline);
}

/** The registry entry for a description: the live or dead one, or a fresh one in the description's mode. */
export function builderOf(cfg: ModelConfig, reg: Registry, desc: Description): Local<BuilderContext> {
  return (
    reg.builders[desc.sharedId] ??
    builder.start({ barrier: desc.barrier, participants: barrierParticipants(cfg), timesOut: desc.barrier && barrierTimesOut(cfg), blobTargetSize: cfg.persist.blobTargetSize })
  );
}

/** The entry waits at a barrier that has not completed at its deadline (a late worker's is best-effort). */
export const atBarrier = (b: Local<BuilderContext>): boolean => b.context.barrier && !b.context.late;

export const ids = (reg: Registry, keep: (path: string) => boolean): readonly SharedId[] =>
  reg.builders.flatMap((b, id) => (b !== null && keep(pathOf(b.value)) ? [id] : []));

/** `ids(reg, keep).length` without building the list (every open that creates an entry counts them). */
export function countIds(reg: Registry, keep: (path: string) => boolean): number {
  let n = 0;
  for (const b of reg.builders) if (b !== null && keep(pathOf(b.value))) n += 1;
  return n;
}
