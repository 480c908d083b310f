/**
 * The process-level registry checker: what the per-sink models cannot see once several MV sinks share
 * each process's SharedBatches (vocab/PROTOCOL.md "Several MV sinks"). Each sink's events replay on its
 * own one-sink model (multi-sink.ts); a sweep is an environment step there. This machine follows every
 * sink's entries of every registry of a run, from the trace alone, and checks:
 * - **trigger**: a sweep (its first hold, or the sweep event) happens only after an entry creation made
 *   the map's size — every sink's entries — exceed 2 × retained while no sweep was pending; and a sweep
 *   so started does happen before the run ends (unless its replica went down);
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
  /** The sink whose entry creation started it. */
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
  /** The sink whose creation started the pending sweep, or null. */
  pendingBy: number | null;
  /** The entry the pending sweep holds (bug only), and what it has done so far. */
  holding: string | null;
  orphaned: Set<number>;
}

const fresh = (): ProcessState => ({ entries: new Map(), retained: 0, pendingBy: null, holding: null, orphaned: new Set() });

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

  for (const [at, e] of trace.entries()) {
    const sink = e.sink ?? 0;
    switch (e.kind) {
      case 'open': {
        const p = proc(e.replica, e.process);
        const key = `${sink}/${e.sharedId}`;
        if (e.created) {
          p.entries.set(key, { refs: 1, barrier: e.participants !== null });
          if (p.pendingBy === null && p.entries.size > 2 * p.retained) p.pendingBy = sink;
        } else {
          const entry = p.entries.get(key);
          if (entry === undefined) {
            return fail(at, `sink ${sink}'s handle on ${e.sharedId} (r${e.replica} p${e.process}) joined an entry the registry does not hold for sink ${sink}`);
          }
          entry.refs += 1;
        }
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
        if (p.pendingBy === null) return fail(at, `a sweep of r${e.replica} p${e.process} began (a hold) that no entry creation started`);
        const key = `${sink}/${e.sharedId}`;
        const entry = p.entries.get(key);
        if (entry === undefined || entry.refs === 0) return fail(at, `the sweep of r${e.replica} p${e.process} held sink ${sink}'s entry ${e.sharedId}, which is not live`);
        entry.refs += 1;
        p.holding = key;
        break;
      }
      case 'sweep-release': {
        const p = proc(e.replica, e.process);
        const entry = p.entries.get(`${sink}/${e.sharedId}`);
        if (entry !== undefined) {
          entry.refs -= 1;
          if (entry.refs === 0 && !entry.barrier) p.orphaned.add(sink); // a barrier delivers whatever the count
        }
        p.holding = null;
        break;
      }
      case 'sweep': {
        const p = proc(e.replica, e.process);
        if (p.pendingBy === null) {
          return fail(at, `a sweep of r${e.replica} p${e.process} ran that no entry creation started (size ${p.entries.size}, retained ${p.retained})`);
        }
        const serves = [...hostedBy(e.replica)].sort((a, b) => a - b);
        const reported = e.sinks ?? [{ sink: 0, removed: e.removed }];
        if (reported.map((r) => r.sink).join(',') !== serves.join(',')) {
          return fail(at, `the sweep of r${e.replica} p${e.process} reported sinks [${reported.map((r) => r.sink).join(', ')}]; the registry serves [${serves.join(', ')}]`);
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
            return fail(at, `the sweep of r${e.replica} p${e.process} removed [${got.join(', ')}] of sink ${s}; its dead entries are [${dead.join(', ')}]`);
          }
          for (const id of dead) p.entries.delete(`${s}/${id}`);
          if (dead.length > 0) removedFrom.push(s);
        }
        sweeps.push({ replica: e.replica, process: e.process, startedBy: p.pendingBy, removedFrom, orphanedOf: [...p.orphaned].sort((a, b) => a - b) });
        p.retained = p.entries.size;
        p.pendingBy = null;
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
      if (p.pendingBy !== null) return fail(trace.length, `a sweep of ${k.replace(/^(\d+)\/(\d+)$/, 'r$1 p$2')} was started by sink ${p.pendingBy}'s entry creation and never ran`);
    }
  }
  return { ok: true, sweeps };
}
