/** Registry events: sweep, and with the review bug sweep-hold / sweep-release. */
import type { SweepBy, TraceEvent } from '../../vocab/index.ts';
import { builder, isEntry, isLive } from '../builder.ts';
import type { ModelConfig } from '../config.ts';
import { isIn, pathOf } from '../local.ts';
import type { Registry, SystemState } from '../state.ts';
import { ENVIRONMENT, sweep } from '../sweep.ts';
import { type Prediction, fail, ok } from './prediction.ts';
import { withReplica, withRegistry, withBuilder } from './helpers.ts';
import { type ReplicaSite, replicaSite, workerSite, workerPhase, ids, countIds } from './sites.ts';
import { lockHeld } from './worker-events.ts';

interface RegistrySite extends ReplicaSite {
  readonly p: number;
  readonly reg: Registry;
  /** The worker whose builder() call sweeps (ENVIRONMENT: another sink's, sharedRegistry only). */
  readonly by: number;
}

/**
 * Where a sweep event happens: the registry of `e.process`, and the worker whose builder() call it is
 * (about to open its handle). Without `worker` the sweep is another sink's (sharedRegistry only).
 */
function registrySite(cfg: ModelConfig, s: SystemState, e: SweepBy): RegistrySite | string {
  if (e.worker === undefined) {
    if (cfg.sharedRegistry !== true) return `a sweep names the worker whose builder() call ran it`;
    const site = replicaSite(cfg, s, e.replica);
    if (typeof site === 'string') return site;
    const reg = Number.isInteger(e.process) ? site.rep.registries[e.process] : undefined;
    if (reg === undefined) return `replica ${e.replica} has no process ${e.process}`;
    return { rep: site.rep, r: site.r, p: e.process, reg, by: ENVIRONMENT };
  }
  const site = workerSite(cfg, s, { replica: e.replica, process: e.process, worker: e.worker });
  if (typeof site === 'string') return site;
  if (!isIn(site.wk, 'shared.opening')) return `${workerPhase(site)}: it is in no builder() call that could sweep`;
  return { rep: site.rep, r: site.r, p: site.p, reg: site.reg, by: site.w };
}

const sweepBy = (site: RegistrySite): { worker?: number } => (site.by === ENVIRONMENT ? {} : { worker: site.by });

export function sweepEvent(cfg: ModelConfig, s: SystemState, e: Extract<TraceEvent, { kind: 'sweep' }>): Prediction {
  const site = registrySite(cfg, s, e);
  if (typeof site === 'string') return fail(site);
  const { reg } = site;
  const removed = ids(reg, (path) => path === 'notLive.dead');
  const liveIds = ids(reg, isLive);
  const size = countIds(reg, isEntry);
  const sw = sweep.fire(reg.sweep, { type: 'SWEEP', by: site.by, size, left: size - removed.length, liveIds });
  if (sw === null) {
    const { lock, retained, visited } = reg.sweep.context;
    if (lock !== null && lock !== site.by) return fail(lockHeld(site.p, lock));
    if (lock === null && !cfg.sharedRegistry && size <= 2 * retained) {
      return fail(`process ${site.p}'s registry holds ${size} entries, not more than 2 × ${retained}: no sweep is due`);
    }
    if (isIn(reg.sweep, 'swept')) return fail(`worker ${site.by}'s builder() call already swept; it looks its id up next`);
    return fail(`the sweep must first visit live entries ${liveIds.filter((id) => id > visited).join(', ')}`);
  }
  const builders = reg.builders.map((b) => (b !== null && pathOf(b.value) === 'notLive.dead' ? builder.fire(b, { type: 'SWEEP' }) : b));
  return ok(
    { kind: 'sweep', replica: e.replica, process: e.process, ...sweepBy(site), removed },
    withReplica(s, e.replica, withRegistry(site.rep, site.p, { sweep: sw, builders })),
  );
}

export function sweepHold(cfg: ModelConfig, s: SystemState, e: Extract<TraceEvent, { kind: 'sweep-hold' }>): Prediction {
  if (cfg.bugs?.sweepUpgradeRace !== true) {
    return fail('sweep-hold happens only with the sweep-upgrade-race bug (bugs.sweepUpgradeRace)');
  }
  const site = registrySite(cfg, s, e);
  if (typeof site === 'string') return fail(site);
  const { reg } = site;
  const liveIds = ids(reg, isLive);
  // The visit is predicted: the next live entry above the last one visited.
  const next = liveIds.find((id) => id > reg.sweep.context.visited);
  const sw = next === undefined ? null : sweep.fire(reg.sweep, { type: 'SWEEP_HOLD', by: site.by, sharedId: next, size: countIds(reg, isEntry), liveIds });
  const before = next === undefined ? undefined : reg.builders[next];
  const b = sw === null || before === null || before === undefined ? null : builder.fire(before, { type: 'SWEEP_HOLD' });
  if (sw === null || b === null || next === undefined) {
    const { lock } = reg.sweep.context;
    if (lock !== null && lock !== site.by) return fail(lockHeld(site.p, lock));
    return fail(next === undefined ? `process ${site.p}'s sweep has no live entry left to visit` : `process ${site.p}'s registry owes no sweep that could visit entry ${next} now`);
  }
  return ok(
    { kind: 'sweep-hold', replica: e.replica, process: e.process, ...sweepBy(site), sharedId: next },
    withReplica(s, e.replica, withRegistry(site.rep, site.p, { ...withBuilder(reg, next, b), sweep: sw })),
  );
}

export function sweepRelease(cfg: ModelConfig, s: SystemState, e: Extract<TraceEvent, { kind: 'sweep-release' }>): Prediction {
  const site = registrySite(cfg, s, e);
  if (typeof site === 'string') return fail(site);
  const { reg } = site;
  const held = reg.sweep.context.holding;
  const before = held === null ? undefined : reg.builders[held];
  if (held === null || reg.sweep.context.lock !== site.by || before === null || before === undefined) {
    return fail(`${site.by === ENVIRONMENT ? "another sink's sweep" : `worker ${site.by}'s sweep`} holds no entry of process ${site.p}`);
  }
  const sw = sweep.fire(reg.sweep, { type: 'SWEEP_RELEASE' }) ?? reg.sweep;
  const b = builder.fire(before, { type: 'SWEEP_RELEASE' }) ?? before;
  return ok(
    {
      kind: 'sweep-release',
      replica: e.replica,
      process: e.process,
      ...sweepBy(site),
      sharedId: held,
      closed: pathOf(b.value) === 'notLive.dead',
    },
    withReplica(s, e.replica, withRegistry(site.rep, site.p, { ...withBuilder(reg, held, b), sweep: sw })),
  );
}
