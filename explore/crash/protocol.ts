/**
 * What the crash test's supervisor and its replica processes say to each other (IPC messages over
 * `child_process.fork`'s channel) and what a replica process writes to its trace file.
 *
 * Trace file: one JSON line per line, written with one synchronous `write` each as it happens, so a
 * SIGKILLed process leaves a whole prefix (the page cache survives the process):
 * - `{"start": {...}}` first, once the incarnation claimed its writer id;
 * - `{"t": ms, "e": TraceEvent}` per protocol event, `t` wall-clock ms since the epoch with fractions
 *   (`performance.timeOrigin + performance.now()`, comparable across processes of one machine: it
 *   orders the joined trace before it is linearized, nothing else);
 * - `{"end": {...}}` once every task ended and the writer was retired; `{"error": "..."}` on a failure.
 */
import type { BugName, TraceEvent, Variant } from '../../vocab/index.ts';

/** What every replica process of a crash test runs: the workload, its pace and the bugs switched on. */
export interface Workload {
  readonly variant: Variant;
  readonly replicas: number;
  readonly processes: number;
  readonly workersPerProcess: number;
  readonly intervals: number;
  readonly rows: number;
  readonly rowBytes: number;
  readonly threshold: number;
  readonly seed: number;
  /** The input advances the frontier at most once per this many ms (a batch interval). */
  readonly intervalMs: number;
  /** Gallery bugs switched on in every replica process (canaries: the crash test must fail). */
  readonly bugs: readonly BugName[];
}

/** Everything a replica process needs, passed as JSON in the environment (SBKIT_CRASH_CHILD). */
export interface ChildConfig extends Workload {
  /** A consensus URL (postgres://…, with its table), password included: the environment only. */
  readonly consensus: string;
  readonly blobDir: string;
  readonly shardId: string;
  readonly replica: number;
  /** 0 for a replica's first incarnation; its restarts count up. */
  readonly incarnation: number;
  /** pg's application_name of every connection: how the supervisor sees this process's sessions. */
  readonly applicationName: string;
  readonly traceFile: string;
  /** A test's hold (supervisor.ts `Hold`): this process freezes at that point until it is killed. */
  readonly hold?: HoldPoint;
}

/**
 * Where a held replica process freezes (tests only): `load`, a standby before it says it loaded;
 * `commit`, right after the compare-and-set that moved the shard to `upper` committed and before its
 * append reaches the trace file — the state a SIGKILL at that moment leaves. It says `held` first.
 */
export type HoldPoint = { readonly at: 'load' } | { readonly at: 'commit'; readonly upper: number };

export const CHILD_ENV = 'SBKIT_CRASH_CHILD';

/** Replica process → supervisor. */
export type ChildMessage =
  /** Modules loaded, stores open, workload generated: a standby, waiting for `claim`. */
  | { readonly type: 'loaded' }
  /** The writer id is claimed; a first incarnation now waits for `start`. */
  | { readonly type: 'claimed'; readonly writer: string }
  /** The sink's tasks run, from `upper`. */
  | { readonly type: 'started'; readonly upper: number }
  /** The shard's upper this replica last saw move (after each of its ok appends). */
  | { readonly type: 'upper'; readonly upper: number }
  /** This incarnation's lower reached K: it appends nothing more. */
  | { readonly type: 'sealed' }
  | { readonly type: 'done' }
  | { readonly type: 'error'; readonly message: string }
  /** A test's hold was reached (HoldPoint): the process is frozen from now on. */
  | { readonly type: 'held'; readonly what: string };

/**
 * Supervisor → replica process. `claim`: become the replica's incarnation now (claim a writer id; a
 * restart then reads the upper and starts at once). `start`: a first incarnation's gate — every first
 * incarnation claimed its writer, so none has appended: read the upper (0) and start.
 */
export type ParentMessage = { readonly type: 'claim' } | { readonly type: 'start' };

export type TraceLine =
  | { readonly start: { readonly writer: string; readonly pid: number; readonly replica: number; readonly incarnation: number } }
  | { readonly t: number; readonly e: TraceEvent }
  | { readonly end: { readonly appends: number; readonly blobPuts: number; readonly mismatches: number } }
  | { readonly error: string };

/** Wall-clock ms since the epoch, with fractions, comparable across processes of one machine. */
export const wallMs = (): number => performance.timeOrigin + performance.now();
