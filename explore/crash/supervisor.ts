/**
 * The crash test's supervisor: R replica processes (child.ts) on one shard, SIGKILLed at seeded moments
 * and restarted as new incarnations, with leaked-blob cleanup after every restart and once at the end.
 *
 * - Start: every replica's first incarnation claims its writer id, then waits; once all have, they
 *   read the shard's upper (0: nobody appended yet) and start — the model's initial state.
 * - Kills (plan.ts): kill i waits until the shard's upper reaches its seeded `atUpper`, then its seeded
 *   delay (up to two batch intervals, so kills land anywhere in an interval: a PUT, a compare-and-set,
 *   a barrier wait), then SIGKILLs the seeded replica's running incarnation (or the next running one).
 *   Only incarnations whose sink runs and has not sealed are killed; the plan's uppers stay a margin
 *   below K (a replica seals only when the shard reaches K).
 * - Restart, after a kill: the process exited; then its database sessions ended (pg_stat_activity by
 *   application_name: a compare-and-set it had in flight has committed or rolled back — the fence that
 *   makes the next incarnation's read of the upper final, fence.ts); then the next incarnation starts
 *   (its claim expires the killed one), and once it runs, a cleanup collects what the killed one leaked.
 *   The next incarnation is a standby process started while its predecessor ran (loaded, stores open,
 *   waiting for `claim`), so a restart takes the fence and a claim, not a node start-up (~1–2 s here);
 *   a kill that comes before the standby loaded waits for it.
 * - Bounds: `seconds` (wall clock for the whole run: every process is killed and the run is incomplete)
 *   and `kills` (the plan's length). An incarnation the stop kills while it runs is marked `stoppedAt`
 *   (the join resolves a commit it had in flight, as for a planned kill).
 * - Every path ends: every process the supervisor started (incarnations, standbys, one started after the
 *   stop) is killed when the run ends, and `run()` returns only after each exited, after the restarts
 *   and cleanups in flight ended. A process that finished its work but does not exit is killed after a
 *   grace period, and one that outlives its SIGKILL is let go; both are noted in the report.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { BugName, TraceEvent, Variant } from '../../vocab/index.ts';
import { MetricsRecorder } from '../../impl/metrics.ts';
import { BlobClient } from '../../impl/persist/blob-client.ts';
import type { Blob } from '../../impl/persist/blob.ts';
import type { Consensus } from '../../impl/persist/consensus.ts';
import { collectLeakedBlobs, type Collected } from '../../impl/persist/gc.ts';
import { BugSwitches } from '../../impl/bugs.ts';
import { Trace } from '../../impl/runtime/trace.ts';
import { passThroughScheduler } from '../../impl/seams.ts';
import type { KillPlan } from './plan.ts';
import type { SessionFence } from './fence.ts';
import { CHILD_ENV, wallMs, type ChildConfig, type ChildMessage, type HoldPoint, type Workload } from './protocol.ts';
import { readTraceFile, type TimedEvent } from './trace-file.ts';
import { seals } from './child.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const CHILD = path.join(ROOT, 'explore', 'crash', 'child.ts');
const TSX = pathToFileURL(path.join(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;

export type { Workload };

export interface SupervisorConfig {
  readonly workload: Workload;
  readonly plan: KillPlan;
  readonly seconds: number;
  /** The consensus URL the replicas open (with its table option). */
  readonly consensusUrl: string;
  readonly shardId: string;
  /** The run's directory: blobs in `blob/`, trace files in `traces/`. */
  readonly runDir: string;
  /** The supervisor's own stores on the same shard (for cleanup). */
  readonly consensus: Consensus;
  readonly blob: Blob;
  readonly fence: SessionFence;
  /** One line of progress (stderr). */
  readonly progress?: (line: string) => void;
  /** Tests only: one replica process freezes at a point (protocol.ts HoldPoint) until it is killed. */
  readonly hold?: Hold;
  /** Tests only: stop the run as at the time bound once a progress line satisfies this. */
  readonly stopWhen?: (line: string) => boolean;
}

/** A test's hold: which incarnation of which replica freezes, and where. */
export interface Hold {
  readonly replica: number;
  readonly incarnation: number;
  readonly point: HoldPoint;
}

/** A process that said it finished gets this long to exit before it is killed. */
export const EXIT_GRACE_MS = 10_000;
/** A killed process gets this long to be reaped before it is let go (noted in the report). */
export const REAP_MS = 10_000;

/** One start of a replica's process. */
export interface Incarnation {
  readonly replica: number;
  readonly index: number;
  readonly applicationName: string;
  readonly traceFile: string;
  /** Set when the supervisor killed it by the plan: wall-clock ms (as in trace files) of the SIGKILL. */
  killedAt?: number;
  /** Set when the run's stop (the time bound) killed it while it ran: wall-clock ms of the SIGKILL. */
  stoppedAt?: number;
  /** How the process ended. */
  exit?: { readonly code: number | null; readonly signal: NodeJS.Signals | null };
  writer?: string;
}

export interface Kill {
  readonly index: number;
  readonly replica: number;
  readonly incarnation: number;
  /** The shard's upper as the supervisor last heard it, when it killed. */
  readonly upper: number;
  /** From the SIGKILL to the next incarnation running (process exit, fence, start). */
  restartMs?: number;
}

export interface SupervisedRun {
  readonly shardId: string;
  readonly blobDir: string;
  readonly incarnations: readonly Incarnation[];
  readonly kills: readonly Kill[];
  /** The supervisor's events (cleanups), timed like the replicas'. */
  readonly events: readonly TimedEvent[];
  /** Blobs each cleanup deleted, in order; the last is the final cleanup. */
  readonly cleanups: readonly (readonly Collected[])[];
  /** What went wrong while running (empty: every process did what it should). */
  readonly failures: readonly string[];
  /** Kills of the plan that could not be made (every replica had sealed): the run is incomplete. */
  readonly shortfall: readonly string[];
  /** The run was stopped before it ended: the time bound (`stop` says why). */
  readonly timedOut: boolean;
  readonly stop?: string;
  /** What the harness had to do to end (a process killed after it finished, one let go): not failures. */
  readonly notes: readonly string[];
  /** Every process started, and how it ended (code or signal; undefined: let go, still running). */
  readonly processes: readonly { readonly replica: number; readonly index: number; readonly pid: number | undefined; readonly exit: Incarnation['exit'] }[];
  readonly wallMs: number;
}

class Live {
  status: 'loading' | 'loaded' | 'claimed' | 'running' | 'exited' = 'loading';
  sealed = false;
  /** A standby never activated, ended with the run. */
  dismissed = false;
  /** It said `done`: its exit is expected within EXIT_GRACE_MS. */
  grace: ReturnType<typeof setTimeout> | undefined;
  stderr = '';
  readonly exited: Promise<void>;
  constructor(
    readonly inc: Incarnation,
    readonly child: ChildProcess,
  ) {
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
  }
}

/** Thrown by waits once the run was stopped (time bound, or a failure): unwinds the supervisor. */
class TimeBound extends Error {}

const describe = (e: unknown): string => (e instanceof Error ? `${e.name}: ${e.message}` : String(e));

export class CrashSupervisor {
  readonly #cfg: SupervisorConfig;
  readonly #incarnations: Incarnation[] = [];
  readonly #current: Live[] = [];
  /** Per replica, a standby process for its next incarnation (loaded, waiting for `claim`). */
  readonly #standby: (Live | undefined)[] = [];
  readonly #kills: Kill[] = [];
  readonly #events: TimedEvent[] = [];
  readonly #cleanups: Collected[][] = [];
  readonly #failures: string[] = [];
  readonly #shortfall: string[] = [];
  readonly #notes: string[] = [];
  /** Every process ever started: all are killed when the run ends, whatever state they were in. */
  readonly #all = new Set<Live>();
  readonly #restarts: Promise<void>[] = [];
  #stopWhy: string | undefined;
  #upper = 0;
  #waiters: (() => void)[] = [];
  #cleanupChain: Promise<void> = Promise.resolve();
  #stopped = false;
  #timedOut = false;
  readonly #started = performance.now();
  readonly #blobDir: string;
  readonly #traceDir: string;
  readonly #metrics = new MetricsRecorder();
  readonly #trace: Trace;

  constructor(cfg: SupervisorConfig) {
    this.#cfg = cfg;
    this.#blobDir = path.join(cfg.runDir, 'blob');
    this.#traceDir = path.join(cfg.runDir, 'traces');
    mkdirSync(this.#traceDir, { recursive: true });
    this.#trace = new Trace({ event: (e: TraceEvent) => this.#events.push({ t: wallMs(), e }) });
  }

  get blobDir(): string {
    return this.#blobDir;
  }

  async run(): Promise<SupervisedRun> {
    const { workload, seconds } = this.#cfg;
    const ticker = setInterval(() => this.#report(), 1000);
    const deadline = setTimeout(() => this.stopAtBound(`the time bound of ${seconds} s was reached`), seconds * 1000);
    try {
      const first = Array.from({ length: workload.replicas }, (_, r) => this.#spawn(r, 0));
      // The standbys load meanwhile, so that even an early kill finds its successor ready.
      for (const l of first) this.#standby[l.inc.replica] = this.#spawn(l.inc.replica, 1);
      await this.#until(() => first.every((l) => l.status === 'loaded'));
      for (const l of first) this.#activate(l);
      await this.#until(() => first.every((l) => l.status === 'claimed'));
      for (const l of first) l.child.send({ type: 'start' });
      await this.#until(() => first.every((l) => l.status === 'running'));
      await this.#kill();
      await this.#until(() => this.#current.every((l) => l.status === 'exited'));
      await this.#cleanupChain;
      if (this.#failures.length === 0) await this.#cleanup(0);
    } catch (e) {
      if (!(e instanceof TimeBound)) this.#fail(`the supervisor failed: ${describe(e)}`);
    } finally {
      clearInterval(ticker);
      clearTimeout(deadline);
      await this.#end();
    }
    this.#report();
    return {
      shardId: this.#cfg.shardId,
      blobDir: this.#blobDir,
      incarnations: this.#incarnations,
      kills: this.#kills,
      events: this.#events,
      cleanups: this.#cleanups,
      failures: this.#failures,
      shortfall: this.#shortfall,
      timedOut: this.#timedOut,
      ...(this.#stopWhy === undefined ? {} : { stop: this.#stopWhy }),
      notes: this.#notes,
      processes: [...this.#all].map((l) => ({ replica: l.inc.replica, index: l.inc.index, pid: l.child.pid, exit: l.inc.exit })),
      wallMs: performance.now() - this.#started,
    };
  }

  /** Stops the run as the time bound does: every process killed, the run incomplete (`why` in the report). */
  stopAtBound(why: string): void {
    if (this.#stopped) return;
    this.#timedOut = true;
    this.#stopWhy = why;
    this.#stop(why);
  }

  /**
   * Ends every process the supervisor started and waits for what is still in flight: the restarts (each
   * throws TimeBound at its next wait once stopped) and the cleanups. A process not reaped within
   * REAP_MS of its SIGKILL is let go (its handles unreferenced, so this process can exit), and noted.
   */
  async #end(): Promise<void> {
    this.#stopped = true;
    this.#wake();
    for (const l of this.#standby) if (l !== undefined) l.dismissed = true;
    for (const l of this.#all) this.#killIfAlive(l);
    await Promise.allSettled(this.#restarts);
    await this.#cleanupChain;
    // A restart that ran until its wait may have started a process meanwhile: #spawn kills it at once.
    for (const l of this.#all) this.#killIfAlive(l);
    const reaped = await Promise.all(
      [...this.#all].map(async (l) => {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const ok = await Promise.race([l.exited.then(() => true), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), REAP_MS)))]);
        clearTimeout(timer);
        return { l, ok };
      }),
    );
    for (const { l, ok } of reaped) {
      if (l.grace !== undefined) clearTimeout(l.grace);
      if (ok) continue;
      this.#notes.push(`replica ${l.inc.replica} incarnation ${l.inc.index} (pid ${l.child.pid}) had not exited ${REAP_MS / 1000} s after its SIGKILL: let go`);
      l.child.stderr?.destroy();
      l.child.channel?.unref();
      l.child.unref();
    }
  }

  #killIfAlive(l: Live): void {
    if (l.status !== 'exited' && l.child.exitCode === null && l.child.signalCode === null) l.child.kill('SIGKILL');
  }

  /** Carries out the kill plan. */
  async #kill(): Promise<void> {
    const { plan, workload } = this.#cfg;
    const restarts: Promise<void>[] = [];
    for (const [index, k] of plan.kills.entries()) {
      await this.#until(() => this.#upper >= k.atUpper || this.#allSealed());
      await this.#sleep(k.delayMs);
      await this.#until(() => this.#victim(k.replica) !== undefined || this.#allSealed());
      const victim = this.#victim(k.replica);
      // The margin below K is the plan's: a victim is never one known to have sealed, and one that
      // sealed a moment ago (its message not here yet) is caught at its restart (#restart).
      if (victim === undefined) {
        this.#shortfall.push(
          `kills ${index + 1}–${plan.kills.length} of ${plan.kills.length} did not happen: every replica had sealed the shard (at ${this.#upper} of ${workload.intervals}; more --intervals, or fewer --kills)`,
        );
        break;
      }
      victim.inc.killedAt = wallMs();
      victim.child.kill('SIGKILL');
      const kill: Kill = { index, replica: victim.inc.replica, incarnation: victim.inc.index, upper: this.#upper };
      this.#kills.push(kill);
      const restart = this.#restart(victim, kill).catch((e: unknown) => {
        if (!(e instanceof TimeBound)) this.#fail(`restarting replica ${kill.replica} failed: ${describe(e)}`);
      });
      restarts.push(restart);
      this.#restarts.push(restart);
    }
    await Promise.all(restarts);
  }

  /** The replica's running, unsealed incarnation, or the next replica's. */
  #victim(replica: number): Live | undefined {
    const n = this.#current.length;
    for (let i = 0; i < n; i++) {
      const l = this.#current[(replica + i) % n];
      if (l !== undefined && l.status === 'running' && !l.sealed && l.inc.killedAt === undefined) return l;
    }
    return undefined;
  }

  #allSealed(): boolean {
    return this.#current.every((l) => l.sealed || (l.status === 'exited' && l.inc.killedAt === undefined));
  }

  async #restart(dead: Live, kill: Kill): Promise<void> {
    const at = performance.now();
    await dead.exited;
    if (this.#stopped) throw new TimeBound();
    await this.#cfg.fence.waitGone(dead.inc.applicationName);
    if (this.#stopped) throw new TimeBound();
    const prefix = readTraceFile(dead.inc.traceFile);
    if (prefix.events.some((x) => seals(x.e, this.#cfg.workload.intervals))) {
      this.#fail(`replica ${dead.inc.replica} incarnation ${dead.inc.index} was killed after it sealed the shard (its trace cannot be joined as an abort)`);
      return;
    }
    const r = dead.inc.replica;
    const next = this.#standby[r] ?? this.#spawn(r, dead.inc.index + 1);
    this.#standby[r] = undefined;
    if (next.status === 'loading') this.#say(`replica ${r}: incarnation ${next.inc.index} waits for its standby process to load`);
    await this.#until(() => next.status !== 'loading');
    if (next.status === 'exited') return; // its exit was reported as a failure
    this.#activate(next);
    await this.#until(() => next.status === 'running' || next.status === 'exited');
    if (next.status !== 'running') return;
    kill.restartMs = performance.now() - at;
    this.#standby[r] = this.#spawn(r, next.inc.index + 1);
    // Its claim expired the killed incarnation: what that one leaked is collectable now.
    await this.#cleanup(dead.inc.replica);
  }

  /** One leaked-blob cleanup, run for `replica` (serialized: one at a time). */
  #cleanup(replica: number): Promise<void> {
    const { consensus, blob, shardId } = this.#cfg;
    const run = async (): Promise<void> => {
      if (this.#stopped) return;
      const client = new BlobClient(blob, passThroughScheduler, this.#metrics, `cleanup-r${replica}`, this.#trace, 'supervisor');
      const collected = await collectLeakedBlobs({
        shardId,
        consensus,
        blob: client,
        scheduler: passThroughScheduler,
        metrics: this.#metrics,
        trace: this.#trace,
        bugs: new BugSwitches([]),
        where: { replica },
      });
      this.#cleanups.push(collected);
    };
    const guarded = (): Promise<void> => run().catch((e: unknown) => this.#fail(`cleanup for replica ${replica} failed: ${describe(e)}`));
    this.#cleanupChain = this.#cleanupChain.then(guarded);
    return this.#cleanupChain;
  }

  #spawn(replica: number, index: number): Live {
    const { workload, consensusUrl, shardId } = this.#cfg;
    const inc: Incarnation = {
      replica,
      index,
      applicationName: `sbkit-${shardId}-r${replica}-i${index}`.slice(0, 63),
      traceFile: path.join(this.#traceDir, `r${replica}-i${index}.jsonl`),
    };
    const config: ChildConfig = {
      ...workload,
      consensus: consensusUrl,
      blobDir: this.#blobDir,
      shardId,
      replica,
      incarnation: index,
      applicationName: inc.applicationName,
      traceFile: inc.traceFile,
      ...(this.#cfg.hold !== undefined && this.#cfg.hold.replica === replica && this.#cfg.hold.incarnation === index ? { hold: this.#cfg.hold.point } : {}),
    };
    // node itself runs the child (not the tsx wrapper), so SIGKILL reaches the sink's process.
    const child = fork(CHILD, [], {
      cwd: ROOT,
      execArgv: ['--import', TSX],
      env: { ...process.env, [CHILD_ENV]: JSON.stringify(config) },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    const live = new Live(inc, child);
    this.#all.add(live);
    // A process started after the stop (a restart between its waits) is ended at once.
    if (this.#stopped) child.kill('SIGKILL');
    child.stderr?.on('data', (d: Buffer) => {
      live.stderr = (live.stderr + d.toString()).slice(-4000);
    });
    child.on('message', (m: ChildMessage) => {
      if (m.type === 'loaded') live.status = 'loaded';
      else if (m.type === 'claimed') {
        inc.writer = m.writer;
        live.status = 'claimed';
      } else if (m.type === 'started') {
        live.status = 'running';
        this.#upper = Math.max(this.#upper, m.upper);
        if (m.upper >= workload.intervals) live.sealed = true;
      } else if (m.type === 'upper') this.#upper = Math.max(this.#upper, m.upper);
      else if (m.type === 'sealed') live.sealed = true;
      else if (m.type === 'held') this.#say(m.what);
      else if (m.type === 'done') {
        live.grace = setTimeout(() => {
          if (live.status === 'exited') return;
          this.#notes.push(`replica ${replica} incarnation ${index} said it was done but had not exited ${EXIT_GRACE_MS / 1000} s later: SIGKILLed`);
          child.kill('SIGKILL');
        }, EXIT_GRACE_MS);
        live.grace.unref();
      }
      this.#wake();
    });
    child.once('exit', (code, signal) => {
      inc.exit = { code, signal };
      live.status = 'exited';
      if (live.grace !== undefined) clearTimeout(live.grace);
      if (inc.killedAt === undefined && code !== 0 && !this.#stopped && !live.dismissed) {
        const error = readTraceFile(inc.traceFile).error;
        this.#fail(`replica ${replica} incarnation ${index} exited with ${code ?? signal}: ${error ?? live.stderr.trim().split('\n').slice(-3).join(' | ')}`);
      }
      this.#wake();
    });
    return live;
  }

  /** Makes a loaded process the replica's current incarnation: it claims a writer id now. */
  #activate(live: Live): void {
    this.#incarnations.push(live.inc);
    this.#current[live.inc.replica] = live;
    live.child.send({ type: 'claim' });
  }

  #fail(why: string): void {
    this.#failures.push(why);
    this.#stop(why);
  }

  /**
   * Ends the run: every process is killed; waits in progress end with TimeBound. An incarnation it kills
   * while it runs (told to claim, not killed by the plan) is marked `stoppedAt`: its trace may end
   * before the answer to a commit, which the join then resolves from the shard.
   */
  #stop(why: string): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#say(`stopping: ${why}`);
    const at = wallMs();
    for (const l of this.#all) {
      if (l.status === 'exited') continue;
      // Told to claim (its messages may lag behind what it did): it may have committed by now.
      if (this.#current[l.inc.replica] === l && l.inc.killedAt === undefined) l.inc.stoppedAt = at;
      l.child.kill('SIGKILL');
    }
    this.#wake();
  }

  /** One progress line; a test's `stopWhen` may stop the run on it, as the time bound would. */
  #say(line: string): void {
    this.#cfg.progress?.(line);
    if (!this.#stopped && this.#cfg.stopWhen?.(line) === true) this.stopAtBound(`stopped on "${line}"`);
  }

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w();
  }

  /** Waits until `done()` holds (re-checked on every message and exit); throws TimeBound once stopped. */
  async #until(done: () => boolean): Promise<void> {
    for (;;) {
      if (this.#stopped) throw new TimeBound();
      if (done()) return;
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, ms));
  }

  #report(): void {
    const { workload, plan } = this.#cfg;
    const s = ((performance.now() - this.#started) / 1000).toFixed(1);
    const restarts = Math.max(0, this.#incarnations.length - workload.replicas);
    const collected = this.#cleanups.reduce((n, c) => n + c.length, 0);
    this.#say(
      `[${s} s] shard upper ${this.#upper}/${workload.intervals} · kills ${this.#kills.length}/${plan.kills.length} · restarts ${restarts} · cleanups ${this.#cleanups.length} (collected ${collected})`,
    );
  }
}
