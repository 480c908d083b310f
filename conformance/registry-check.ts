/**
 * The process-level registry checker: what the per-sink models cannot see once several MV sinks share
 * each process's SharedBatches (vocab/PROTOCOL.md "Several MV sinks", "Sweep"). Each sink's events replay
 * on its own one-sink model (multi-sink.ts); another sink's sweep is an environment step there. This
 * machine follows every sink's entries of every registry of a run, from the trace alone, and checks:
 * - **trigger**: a builder() call sweeps (its first hold, or the sweep event, then its open) exactly when
 *   the map's length — every sink's entries, live or dead — exceeds 2 × its length after the last sweep
 *   at the call's start; a call that did not sweep opens with the length at most that;
 * - **lock**: from a call's first sweep step to its open no other open, skip or sweep of the process
 *   happens (the registry's one mutex); a settled run leaves no call half done;
 * - **scope**: a sweep reports every sink the registry serves (the sinks of the replica's current
 *   incarnation) and removes exactly the dead entries of each of them, in ascending id order;
 * - **joins**: a handle that did not create its entry joins one the registry holds for its own sink.
 * It computes liveness itself from opens, finishes, drops and the sweep's holds (best-effort: a finish
 * drops its reference when it begins; barrier: when it ends), and never takes a claim of the trace for
 * granted. It also says, for the reach counters, which sink's open started each sweep and what that
 * sweep did to the other sinks.
 */
import type { SharedId, TraceEvent } from '../vocab/index.ts';

export interface RegistryShape {
  readonly replicas: number;
  readonly processes: number;
  readonly sinks: number;
}

/** One sweep as the checker saw it. */
export interface SweepSeen {
  readonly replica: number;
  readonly process: number;
  /** The sink whose worker's builder() call ran it. */
  readonly startedBy: number;
  /** Sinks with an entry it removed. */
  readonly removedFrom: readonly number[];
  /** Sinks whose best-effort entry the sweep's release left with no reference (`closed`: every finish had begun
   * while it held the entry, so none was last and the batch went to nobody — the review race). */
  readonly orphanedOf: readonly number[];
}

export type RegistryVerdict =
  | { readonly ok: true; readonly sweeps: readonly SweepSeen[] }
  | { readonly ok: false; readonly at: number; readonly why: string; readonly sweeps: readonly SweepSeen[] };

interface Entry {
  refs: number;
  readonly barrier: boolean;
}

interface ProcessState {
  /** Keyed `${sink}/${id}`. */
  readonly entries: Map<string, Entry>;
  retained: number;
  /** The builder() call between its first sweep step and its open (the registry's lock), or null. */
  lock: { readonly sink: number; readonly worker: number; swept: boolean } | null;
  /** The entry the sweep holds (bug only), and what it has done so far. */
  holding: string | null;
  orphaned: Set<number>;
}

const fresh = (): ProcessState => ({ entries: new Map(), retained: 0, lock: null, holding: null, orphaned: new Set() });

/** Checks `trace` (the whole run's, every sink's events) against the process-level registry rules. */
export function checkRegistry(trace: readonly TraceEvent[], shape: RegistryShape, opts: { settled: boolean } = { settled: true }): RegistryVerdict {
  const all = (): Set<number> => new Set(Array.from({ length: shape.sinks }, (_, s) => s));
  const procs = new Map<string, ProcessState>();
  const hosted = new Map<number, Set<number>>();
  const sweeps: SweepSeen[] = [];
  const proc = (replica: number, process: number): ProcessState => {
    const k = `${replica}/${process}`;
    let p = procs.get(k);
    if (p === undefined) {
      p = fresh();
      procs.set(k, p);
    }
    return p;
  };
  const hostedBy = (replica: number): Set<number> => {
    let h = hosted.get(replica);
    if (h === undefined) {
      h = all();
      hosted.set(replica, h);
    }
    return h;
  };
  const fail = (at: number, why: string): RegistryVerdict => ({ ok: false, at, why, sweeps });

  const where = (e: { replica: number; process: number }): string => `r${e.replica} p${e.process}`;
  const caller = (sink: number, worker: number | undefined): string => `worker ${worker ?? '?'} of sink ${sink}`;
  /** A sweep step of (sink, worker)'s builder() call: its first one takes the lock, if the call owes a sweep. */
  const sweepStep = (p: ProcessState, e: { replica: number; process: number; worker?: number }, sink: number): string | null => {
    if (p.lock === null) {
      if (p.entries.size <= 2 * p.retained) {
        return `${caller(sink, e.worker)}'s builder() call swept ${where(e)}, whose registry held ${p.entries.size} entries, not more than 2 × ${p.retained}`;
      }
      p.lock = { sink, worker: e.worker ?? -1, swept: false };
      return null;
    }
    if (p.lock.sink !== sink || p.lock.worker !== (e.worker ?? -1) || p.lock.swept) {
      return `${caller(sink, e.worker)} swept ${where(e)} during ${caller(p.lock.sink, p.lock.worker)}'s builder() call, which holds the registry's lock`;
    }
    return null;
  };

  for (const [at, e] of trace.entries()) {
    const sink = e.sink ?? 0;
    switch (e.kind) {
      case 'open': {
        const p = proc(e.replica, e.process);
        if (p.lock === null) {
          if (p.entries.size > 2 * p.retained) {
            return fail(at, `${caller(sink, e.worker)}'s builder() call on ${where(e)} found ${p.entries.size} entries, more than 2 × ${p.retained}, and did not sweep`);
          }
        } else if (p.lock.sink === sink && p.lock.worker === e.worker && p.lock.swept) {
          p.lock = null;
        } else {
          return fail(at, `${caller(sink, e.worker)} opened on ${where(e)} during ${caller(p.lock.sink, p.lock.worker)}'s builder() call, which holds the registry's lock${p.lock.sink === sink && p.lock.worker === e.worker ? ' (its sweep had not ended)' : ''}`);
        }
        const key = `${sink}/${e.sharedId}`;
        if (e.created) {
          p.entries.set(key, { refs: 1, barrier: e.participants !== null });
        } else {
          const entry = p.entries.get(key);
          if (entry === undefined) {
            return fail(at, `sink ${sink}'s handle on ${e.sharedId} (${where(e)}) joined an entry the registry does not hold for sink ${sink}`);
          }
          entry.refs += 1;
        }
        break;
      }
      case 'skip': {
        const p = proc(e.replica, e.process);
        if (p.lock !== null) return fail(at, `${caller(sink, e.worker)} noted a skip on ${where(e)} during ${caller(p.lock.sink, p.lock.worker)}'s builder() call, which holds the registry's lock`);
        break;
      }
      case 'finish-begin':
      case 'finish-end':
      case 'drop': {
        const p = proc(e.replica, e.process);
        const key = `${sink}/${e.sharedId}`;
        const entry = p.entries.get(key);
        if (entry === undefined) break; // a joined foreign entry was already refused above
        if (e.kind === 'drop' || (e.kind === 'finish-begin') !== entry.barrier) entry.refs -= 1;
        break;
      }
      case 'sweep-hold': {
        const p = proc(e.replica, e.process);
        const why = sweepStep(p, e, sink);
        if (why !== null) return fail(at, why);
        const owner = e.entrySink ?? sink;
        const key = `${owner}/${e.sharedId}`;
        const entry = p.entries.get(key);
        if (entry === undefined || entry.refs === 0) return fail(at, `the sweep of ${where(e)} held sink ${owner}'s entry ${e.sharedId}, which is not live`);
        entry.refs += 1;
        p.holding = key;
        break;
      }
      case 'sweep-release': {
        const p = proc(e.replica, e.process);
        const owner = e.entrySink ?? sink;
        const entry = p.entries.get(`${owner}/${e.sharedId}`);
        if (entry !== undefined) {
          entry.refs -= 1;
          if (entry.refs === 0 && !entry.barrier) p.orphaned.add(owner); // a barrier delivers whatever the count
        }
        p.holding = null;
        break;
      }
      case 'sweep': {
        const p = proc(e.replica, e.process);
        const why = sweepStep(p, e, sink);
        if (why !== null) return fail(at, why);
        const serves = [...hostedBy(e.replica)].sort((a, b) => a - b);
        const reported = e.sinks ?? [{ sink: 0, removed: e.removed }];
        if (reported.map((r) => r.sink).join(',') !== serves.join(',')) {
          return fail(at, `the sweep of ${where(e)} reported sinks [${reported.map((r) => r.sink).join(', ')}]; the registry serves [${serves.join(', ')}]`);
        }
        const removedFrom: number[] = [];
        for (const s of serves) {
          const dead: SharedId[] = [];
          for (const [key, entry] of p.entries) {
            const [ks, id] = key.split('/').map(Number) as [number, number];
            if (ks === s && entry.refs === 0) dead.push(id);
          }
          dead.sort((a, b) => a - b);
          const got = reported.find((r) => r.sink === s)?.removed ?? [];
          if (got.join(',') !== dead.join(',')) {
            return fail(at, `the sweep of ${where(e)} removed [${got.join(', ')}] of sink ${s}; its dead entries are [${dead.join(', ')}]`);
          }
          for (const id of dead) p.entries.delete(`${s}/${id}`);
          if (dead.length > 0) removedFrom.push(s);
        }
        sweeps.push({ replica: e.replica, process: e.process, startedBy: sink, removedFrom, orphanedOf: [...p.orphaned].sort((a, b) => a - b) });
        p.retained = p.entries.size;
        (p.lock as { swept: boolean }).swept = true;
        p.orphaned = new Set();
        break;
      }
      case 'abort': {
        // The replica's incarnation is gone, and its registries with it; the restart names who it hosts.
        for (let process = 0; process < shape.processes; process++) procs.set(`${e.replica}/${process}`, fresh());
        hosted.set(e.replica, new Set());
        break;
      }
      case 'restart':
        hostedBy(e.replica).add(sink);
        break;
      default:
        break;
    }
  }
  if (opts.settled) {
    for (const [k, p] of procs) {
      if (p.lock !== null) return fail(trace.length, `${caller(p.lock.sink, p.lock.worker)}'s builder() call on ${k.replace(/^(\d+)\/(\d+)$/, 'r$1 p$2')} swept and never opened`);
    }
  }
  return { ok: true, sweeps };
}
