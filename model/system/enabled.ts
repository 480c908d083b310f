/** Enabled actions. */
import type { TraceEvent } from '../../vocab/index.ts';
import { mintChoices, processOf, workersPerReplica, type ModelConfig } from '../config.ts';
import { isIn, pathOf, type Local } from '../local.ts';
import type { ReplicaState, SystemState } from '../state.ts';
import type { WorkerContext } from '../worker.ts';
import { barrierTimesOut } from './sites.ts';
import { allSealed } from './fault-events.ts';
import { predict } from './predict.ts';

/**
 * Who proposes events. In the fault world (cfg.faults) first each replica's faults (abort a running
 * replica, restart a down one, let the append's compare-and-set apply and answer with an error) and the
 * cleanup; then, replica by replica, the mint (frontier, mint), each worker, the append operator (append,
 * delete) and each process's registry (sweep). `candidates` asks them in this order; a down replica's
 * sink proposes nothing. The packed search (model/packed/) memoizes each actor's proposals by what it
 * reads. Faults that are retried and change nothing are not explored (they are stuttering steps);
 * `predict` enforces the config's bounds.
 */
export type Actor =
  | { readonly kind: 'faults'; readonly replica: number }
  | { readonly kind: 'cleanup'; readonly replica: number }
  | { readonly kind: 'mint'; readonly replica: number }
  | { readonly kind: 'worker'; readonly replica: number; readonly worker: number }
  | { readonly kind: 'append'; readonly replica: number };

/** Every actor of the configuration, in the order `candidates` asks them. */
export function actorsOf(cfg: ModelConfig): Actor[] {
  const out: Actor[] = [];
  if (cfg.faults !== undefined) {
    for (let replica = 0; replica < cfg.replicas; replica++) out.push({ kind: 'faults', replica });
    out.push({ kind: 'cleanup', replica: 0 });
  }
  for (let replica = 0; replica < cfg.replicas; replica++) {
    out.push({ kind: 'mint', replica });
    for (let worker = 0; worker < workersPerReplica(cfg); worker++) out.push({ kind: 'worker', replica, worker });
    out.push({ kind: 'append', replica });
  }
  return out;
}

/** One candidate per choice of this actor; predicted fields are placeholders (predict ignores them). */
export function actorCandidates(cfg: ModelConfig, s: SystemState, actor: Actor): TraceEvent[] {
  const r = actor.replica;
  const rep = s.replicas[r] as ReplicaState;
  if (actor.kind === 'faults') {
    if (!rep.up) return [{ kind: 'restart', replica: r, lower: 0 }];
    const out: TraceEvent[] = [{ kind: 'abort', replica: r, reason: 'explored' }];
    if (rep.append !== null && isIn(rep.append, 'ready')) out.push({ kind: 'fault', replica: r, op: 'consensus.cas', fault: 'indeterminate-applied' });
    return out;
  }
  if (actor.kind === 'cleanup') return [{ kind: 'cleanup', replica: 0, deleted: 0 }];
  if (!rep.up) return [];
  switch (actor.kind) {
    case 'mint': {
      const desc = rep.mint.context.live;
      const out: TraceEvent[] = [{ kind: 'frontier', replica: r, upper: 0 }];
      // With a description live, a mint is a supersede: only with another replica to move the shard.
      if (desc !== null && (rep.superseded !== null || cfg.replicas < 2)) return out;
      if (cfg.knobs !== undefined) {
        // The workload's knobs decide what the mint reads: one candidate, its values computed.
        out.push({ kind: 'mint', replica: r, desc: { lower: 0, upper: 0, appendWorker: 0, sharedId: 0, maxBytes: 0, barrier: false } });
        return out;
      }
      const choices = mintChoices(cfg);
      for (const maxBytes of choices.maxBytes) {
        for (const barrier of choices.barrier) {
          out.push({ kind: 'mint', replica: r, desc: { lower: 0, upper: 0, appendWorker: 0, sharedId: 0, maxBytes, barrier } });
        }
      }
      return out;
    }
    case 'worker': {
      const own = workerCandidates(cfg, rep, r, actor.worker);
      // A barrier's timer has no actor of its own (as the registry's sweep has none): the first worker
      // of its process proposes it.
      if (actor.worker % cfg.workersPerProcess !== 0 || !barrierTimesOut(cfg)) return own;
      return [...own, ...timerCandidates(rep, r, processOf(cfg, actor.worker))];
    }
    case 'append': {
      const stale: TraceEvent[] = rep.superseded === null ? [] : [{ kind: 'delete', replica: r, lower: 0, batches: 0, reason: 'stale' }];
      if (rep.mint.context.live === null || rep.append === null) return stale;
      if (isIn(rep.append, 'ready') || isIn(rep.append, 'committed')) {
        const none = { hollow: 0, inline: 0 };
        return [
          ...stale,
          { kind: 'append', replica: r, lower: 0, upper: 0, batches: 0, parts: none, runs: 0, updates: [], result: { ok: true } },
          { kind: 'backpressure', replica: r, lower: 0, inlineBytes: 0, adding: 0, flushed: 0 },
          { kind: 'bump', replica: r, from: 0, to: 0 },
        ];
      }
      if (isIn(rep.append, 'mismatched')) return [...stale, { kind: 'delete', replica: r, lower: 0, batches: 0, reason: 'mismatch' }];
      return stale;
    }
  }
}

/** A worker's own candidates: the next step of its description (in a builder() call: its open, and the
 * sweep the call may owe). */
function workerCandidates(cfg: ModelConfig, rep: ReplicaState, r: number, w: number): TraceEvent[] {
  const sup = rep.superseded;
  const lagging = sup !== null && sup.append.context.handed[w] === null;
  const desc = lagging ? sup.desc : rep.mint.context.live;
  if (desc === null) return [];
  const ref = { replica: r, process: processOf(cfg, w), worker: w, sharedId: desc.sharedId };
  const path = pathOf((rep.workers[w] as Local<WorkerContext>).value);
  const h = rep.handles[w];
  if (path === 'idle') return [lagging ? { kind: 'superseded', ...ref } : { kind: 'stage', ...ref, updates: [], bytes: 0, route: 'none' }];
  if (path === 'shared.opening') {
    // The builder() call: its lookup, or first the sweep it owes (with the bug: visit by visit).
    const at = { replica: r, process: ref.process, worker: w };
    const open: TraceEvent[] = [{ kind: 'open', ...ref, created: false, participants: null }, { kind: 'sweep', ...at, removed: [] }];
    if (cfg.bugs?.sweepUpgradeRace !== true) return open;
    return [...open, { kind: 'sweep-hold', ...at, sharedId: 0 }, { kind: 'sweep-release', ...at, sharedId: 0, closed: false }];
  }
  if (path === 'shared.holdingHandle' && h !== null && h !== undefined) {
    const rest = h.context.staged.slice(h.context.pushed, h.context.pushed + (cfg.pushChunkUpdates ?? h.context.staged.length));
    if (isIn(h, 'finishing')) return [{ kind: 'finish-end', ...ref, received: null }];
    if (rest.length > 0) return [{ kind: 'push', ...ref, updates: rest }];
    return [{ kind: 'finish-begin', ...ref, last: false }];
  }
  if (path.endsWith('reportingSkip')) return [{ kind: 'skip', ...ref, early: false }];
  if (path === 'fallback.writing') {
    return [{ kind: 'own-batch', ...ref, batch: { updates: [], parts: { hollow: 0, inline: 0 }, partBytes: [] } }];
  }
  if (path === 'handing') return [{ kind: 'hand', ...ref, batches: [] }];
  return [];
}

/** The timers of a process's barriers, for the live and the superseded description (an older one's
 * barrier completed: every worker handed it); predict decides whether one may fire now. */
function timerCandidates(rep: ReplicaState, r: number, process: number): TraceEvent[] {
  const out: TraceEvent[] = [];
  for (const desc of [rep.mint.context.live, rep.superseded?.desc ?? null]) {
    if (desc !== null && desc.barrier) out.push({ kind: 'timeout', replica: r, process, sharedId: desc.sharedId, completes: false });
  }
  return out;
}

/** One candidate per actor and choice, actor by actor (`actorsOf`). */
function candidates(cfg: ModelConfig, s: SystemState): TraceEvent[] {
  const out: TraceEvent[] = [];
  for (const actor of actorsOf(cfg)) out.push(...actorCandidates(cfg, s, actor));
  return out;
}

export interface Successor {
  readonly event: TraceEvent;
  readonly next: SystemState;
}

/** Every enabled action with the state it leads to (exploration: one push per shared worker). */
export function successors(cfg: ModelConfig, state: SystemState): Successor[] {
  const out: Successor[] = [];
  for (const c of candidates(cfg, state)) {
    const p = predict(cfg, state, c);
    if (p.ok) out.push({ event: p.expected, next: p.next });
  }
  return out;
}

export function enabledActions(cfg: ModelConfig, state: SystemState): TraceEvent[] {
  return successors(cfg, state).map((x) => x.event);
}

/** Final: no action is enabled — the run is over (in the clean model: every interval sealed). */
export function isFinal(cfg: ModelConfig, state: SystemState): boolean {
  return successors(cfg, state).length === 0;
}

/** Every replica (up, after any restart) sealed all K intervals and nothing is in flight. */
export function isSealed(state: SystemState): boolean {
  return allSealed(state);
}

/**
 * Canonical serialization. SUBTLE: relies on every object of the state being built by fixed code paths
 * (object literals, XState's `assign` merging into the previous context), so equal states list their
 * keys in the same order; system.test.ts checks this against a key-sorting serializer.
 */
export function serialize(state: SystemState): string {
  return JSON.stringify(state);
}
