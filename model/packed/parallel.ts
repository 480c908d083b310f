/**
 * The packed search spread over worker threads (`sbkit model --check --jobs N`): the same breadth-first
 * search as `searchPacked`, with every state owned by one thread (a hash of its content) and the levels
 * kept in step, so that it visits the same states, reaches the same verdicts and finds counterexamples of
 * the same (shortest) length. parallel-worker.ts holds a thread's side: its own engine, memo, symmetry
 * and store, and the hand-over of successors between threads.
 *
 * The coordinator (this thread) only starts levels, settles properties at the first level where some
 * thread settled them (the lowest thread's first such state; a thread's level is in the same order in
 * every run, so the traces are too), and at the
 * end rebuilds each trace by asking the threads for parents, events and symmetries; every trace is then
 * replayed with system.ts `step` and re-judged (`verifiedTrace`), as the single-threaded search does.
 *
 * Limits: max-states counts every thread's states together (shared memory) and, as in `searchPacked`,
 * stops storing but keeps expanding what is stored; memory and time stop a level where they are hit.
 * A stopped search says how far it got, as the single-threaded one does. The memory is the process's
 * RSS and the clock `Date.now()` (`checkPacked`'s `memory` and `now` hooks do not reach the threads).
 */
import { MessageChannel, Worker, type MessagePort, type TransferListItem } from 'node:worker_threads';
import type { TraceEvent } from '../../vocab/index.ts';
import type { Property } from '../../spec/properties.ts';
import type { ModelConfig } from '../config.ts';
import { VerdictMasks, verifiedTrace, type PackedSearchResult, type PackedViolation, type StopReason } from './search.ts';
import { Loads, Renamer, unpermuteWith, type Sym } from './symmetry.ts';
import type { Find, LevelDone, Request, WorkerInit } from './parallel-worker.ts';

export interface ParallelSearchOptions {
  readonly jobs: number;
  readonly properties: readonly Property[];
  readonly maxStates: number;
  readonly maxBytes?: number;
  /** Wall-clock budget in ms (from the start of the search). */
  readonly maxMillis?: number;
  readonly symmetry: boolean;
  readonly por: boolean;
  readonly until?: readonly string[];
  /** Stop after the level where some always/eventually property is first violated. */
  readonly stopAtFirstViolation?: boolean;
  readonly onProgress?: (expanded: number, states: number) => void;
}

interface Stats {
  readonly states: number;
  readonly unreduced: number | null;
  readonly frontier: number;
  readonly storeBytes: number;
  readonly memoBytes: number;
  readonly memo: PackedSearchResult['memo'];
  readonly reduced: number;
  readonly description: string | undefined;
}

/** One worker thread and its one outstanding request. */
class Job {
  readonly worker: Worker;
  private waiting: { resolve: (v: unknown) => void; reject: (e: Error) => void } | null = null;
  private failed: Error | null = null;

  constructor(readonly index: number) {
    this.worker = new Worker(new URL('./parallel-worker.mjs', import.meta.url));
    this.worker.on('message', (m: unknown) => {
      const w = this.waiting;
      this.waiting = null;
      w?.resolve(m);
    });
    const fail = (e: Error) => {
      this.failed = e;
      const w = this.waiting;
      this.waiting = null;
      w?.reject(e);
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => {
      if (code !== 0) fail(new Error(`parallel search: thread ${index} exited with code ${code}`));
    });
  }

  ask<T>(m: Request | WorkerInit, transfer: readonly TransferListItem[] = []): Promise<T> {
    if (this.failed !== null) return Promise.reject(this.failed);
    if (this.waiting !== null) throw new Error(`parallel search: thread ${this.index} already has a request outstanding`);
    return new Promise<T>((resolve, reject) => {
      this.waiting = { resolve: resolve as (v: unknown) => void, reject };
      this.worker.postMessage(m, transfer as TransferListItem[]);
    });
  }
}

export async function searchParallel(cfg: ModelConfig, opts: ParallelSearchOptions): Promise<PackedSearchResult> {
  const J = opts.jobs;
  if (!Number.isInteger(J) || J < 2) throw new RangeError(`searchParallel: jobs must be an integer ≥ 2, got ${J}`);
  const properties = opts.properties;
  if (properties.length > 30) throw new RangeError(`the packed search judges at most 30 properties, got ${properties.length}`);
  const jobs: Job[] = [];
  try {
    for (let i = 0; i < J; i++) jobs.push(new Job(i));
    // a channel per pair of threads
    const ports: (MessagePort | null)[][] = Array.from({ length: J }, () => new Array<MessagePort | null>(J).fill(null));
    for (let a = 0; a < J; a++) {
      for (let b = a + 1; b < J; b++) {
        const ch = new MessageChannel();
        (ports[a] as (MessagePort | null)[])[b] = ch.port1;
        (ports[b] as (MessagePort | null)[])[a] = ch.port2;
      }
    }
    const deadline = opts.maxMillis === undefined ? null : Date.now() + opts.maxMillis;
    // the states of every thread together, against maxStates
    const stored = new SharedArrayBuffer(4);
    await Promise.all(
      jobs.map((job, i) => {
        const mine = ports[i] as (MessagePort | null)[];
        const init: WorkerInit = {
          type: 'init',
          cfg,
          properties: properties.map((p) => p.name),
          symmetry: opts.symmetry,
          por: opts.por,
          jobs: J,
          index: i,
          ports: mine,
          maxStates: opts.maxStates,
          stored,
          maxBytes: opts.maxBytes ?? null,
          deadline,
        };
        return job.ask(init, mine.filter((p): p is MessagePort => p !== null));
      }),
    );

    let unsettled = new VerdictMasks(properties).all;
    const untilMask = (opts.until ?? []).reduce((m, name) => {
      const k = properties.findIndex((p) => p.name === name);
      if (k < 0) throw new RangeError(`until: no property named ${name}`);
      return m | (1 << k);
    }, 0);
    const settledAt: Find[] = [];
    const settled = new Set<number>();
    let finals = 0;
    let transitions = 0;
    let expanded = 0;
    let states = 1;
    let dropped = 0;
    let depth = 0;
    let stopped: StopReason | null = null;
    let full = false;
    for (;;) {
      const done = await Promise.all(jobs.map((job) => job.ask<LevelDone>({ type: 'level', unsettled })));
      let added = 0;
      states = 0;
      dropped = 0;
      for (const d of done) {
        finals += d.finals;
        transitions += d.transitions;
        expanded += d.expanded;
        added += d.added;
        states += d.states;
        dropped += d.dropped;
        stopped ??= d.stopped;
      }
      // per property, the lowest thread's find at this level (all are at the same depth; a thread
      // reports only what settles a property: a violation, or a witness)
      for (const d of done) {
        for (const f of d.finds) {
          if ((unsettled & (1 << f.property)) === 0) continue;
          unsettled &= ~(1 << f.property);
          settled.add(f.property);
          settledAt.push(f);
        }
      }
      opts.onProgress?.(expanded, states);
      if (stopped !== null) break;
      if (opts.stopAtFirstViolation === true && settledAt.some((f) => !f.ok && properties[f.property]?.kind !== 'sometimes')) {
        stopped = 'violation';
        break;
      }
      // (max-states stores nothing new but, as searchPacked does, still expands every stored state)
      if (dropped > 0) full = true;
      if (untilMask !== 0 && (unsettled & untilMask) === 0) {
        stopped = 'settled';
        break;
      }
      if (added === 0) break;
      depth += 1;
    }
    if (full) stopped ??= 'max-states';

    // traces: parents, events and symmetries from the threads that hold them
    const renamer = new Renamer(cfg, new Loads(cfg));
    const traceTo = async (gid: number): Promise<TraceEvent[]> => {
      const events: TraceEvent[] = [];
      const syms: Sym[] = [];
      for (let at = gid; ; ) {
        const owner = jobs[at % J] as Job;
        const rec = await owner.ask<{ parent: number; edge: number; sym: number }>({ type: 'record', local: Math.floor(at / J) });
        // the symmetry (and the event) are the expanding thread's: the owner's own for the initial state
        const expander = jobs[rec.edge < 0 ? at % J : rec.edge % J] as Job;
        syms.push(await expander.ask<Sym>({ type: 'sym', id: rec.sym }));
        if (rec.parent < 0) break;
        events.push(await expander.ask<TraceEvent>({ type: 'event', outcome: Math.floor(rec.edge / J) }));
        at = rec.parent;
      }
      events.reverse();
      syms.reverse();
      return unpermuteWith(renamer, events, syms);
    };
    const violations: PackedViolation[] = [];
    const witnesses: { property: string; trace: readonly TraceEvent[] }[] = [];
    for (const f of settledAt) {
      const prop = properties[f.property] as Property;
      if (prop.kind === 'sometimes') {
        witnesses.push({ property: prop.name, trace: verifiedTrace(cfg, await traceTo(f.gid), prop, true).trace });
      } else {
        const v = verifiedTrace(cfg, await traceTo(f.gid), prop, false);
        violations.push({ property: prop.name, kind: prop.kind, why: v.why, trace: v.trace });
      }
    }

    const stats: Stats[] = [];
    for (const job of jobs) stats.push(await job.ask<Stats>({ type: 'stats' }));
    const sum = (pick: (s: Stats) => number) => stats.reduce((n, s) => n + pick(s), 0);
    const reduced = sum((s) => s.reduced);
    const description = stats[0]?.description;
    return {
      states: sum((s) => s.states),
      unreduced: stats.some((s) => s.unreduced === null) ? null : sum((s) => s.unreduced as number),
      finals,
      transitions,
      complete: stopped === null,
      stopped,
      depth,
      frontier: sum((s) => s.frontier),
      dropped,
      violations,
      witnesses,
      unreached: properties.filter((p, k) => p.kind === 'sometimes' && !settled.has(k)).map((p) => p.name),
      storeBytes: sum((s) => s.storeBytes),
      memoBytes: sum((s) => s.memoBytes),
      memo: {
        candidates: sum((s) => s.memo.candidates),
        outcomes: sum((s) => s.memo.outcomes),
        views: sum((s) => s.memo.views),
        components: sum((s) => s.memo.components),
        diamonds: sum((s) => s.memo.diamonds),
      },
      reduction:
        [description, opts.por ? `partial order: ${reduced} states expanded only a persistent subset` : undefined, `${J} threads`]
          .filter((x) => x !== undefined)
          .join('; '),
      porStates: opts.por ? reduced : null,
    };
  } finally {
    await Promise.all(jobs.map((j) => j.worker.terminate()));
  }
}
