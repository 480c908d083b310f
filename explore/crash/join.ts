/**
 * Joins the crash test's traces — every incarnation of every replica, and the supervisor's cleanups —
 * into one trace the model can replay (before it is put in the shard's order: impl/linearize.ts).
 *
 * Per replica, its incarnations in order. A killed incarnation's trace is the prefix its process
 * left, then a synthetic `abort` (reason `SIGKILL`) at the moment of the kill; its successor's trace
 * starts with the `restart` it emitted at the upper it read. A compare-and-set the killed incarnation
 * had in flight is resolved from the shard after the fact: every state diff names the writer that
 * committed it (impl/persist/state.ts `writers`, the idempotency token persist keeps per writer), so a
 * diff of the killed writer that its trace has no ok append for is a commit whose answer the process
 * never read. It is entered as the model expects an answer that was lost (vocab/PROTOCOL.md "Faults"):
 * `fault` consensus.cas `indeterminate-applied` before the abort; the shard took the append at that
 * step. An incarnation the run's stop (the time bound) killed while it ran is joined the same way —
 * its trace ends where the stop caught it, an in-flight commit resolved from the shard, then an `abort`
 * (reason `stopped`) — and the join says so in `tails`: a trace cut short by the harness is not a
 * failure of the implementation. The supervisor's cleanups join their replica's sequence by time. Then every event is ordered
 * by its wall-clock time (per replica that is the order above): the linearization fixes what the
 * clocks of different processes cannot.
 */
import type { TraceEvent } from '../../vocab/index.ts';
import type { StateDiff } from '../../impl/persist/state.ts';
import type { SupervisedRun } from './supervisor.ts';
import { readTraceFile, type TimedEvent } from './trace-file.ts';

export interface JoinedTrace {
  readonly trace: readonly TraceEvent[];
  /** Kills whose in-flight compare-and-set had applied (entered as indeterminate-applied). */
  readonly inflightApplied: number;
  /** Trace lines cut short by a kill (not expected: each line is one write). */
  readonly torn: number;
  /** Incarnations the stop caught while they ran: where each trace ends, and the commit it never answered. */
  readonly tails: readonly string[];
}

export type Join = ({ readonly ok: true } & JoinedTrace) | { readonly ok: false; readonly why: string };

/** A committed range of the shard: [lower, upper) by `writer`. */
interface Commit {
  readonly writer: string;
  readonly lower: number;
  readonly upper: number;
}

/** The ranges the shard's versions committed, in order (a diff without a batch only moved the upper). */
export function commitsOf(diffs: readonly StateDiff[]): Commit[] {
  let upper = 0;
  return diffs.map((d) => {
    const c = { writer: d.writer, lower: d.batch?.lower ?? upper, upper: d.upper };
    upper = d.upper;
    return c;
  });
}

export function joinTraces(run: SupervisedRun, diffs: readonly StateDiff[]): Join {
  const commits = commitsOf(diffs);
  const all: TimedEvent[] = [];
  let inflightApplied = 0;
  let torn = 0;
  const tails: string[] = [];
  for (const inc of run.incarnations) {
    const file = readTraceFile(inc.traceFile);
    torn += file.torn;
    const events = [...file.events];
    const writer = file.start?.writer;
    const endedAt = inc.killedAt ?? inc.stoppedAt;
    if (writer === undefined) {
      // The stop can catch an incarnation told to claim before its claim returned: it wrote nothing.
      if (inc.killedAt === undefined && inc.stoppedAt !== undefined && events.length === 0) {
        tails.push(`replica ${inc.replica} incarnation ${inc.index} was stopped before its start line (its writer claim had not returned): nothing of it to join`);
        continue;
      }
      if (endedAt !== undefined || events.length > 0) return { ok: false, why: `replica ${inc.replica} incarnation ${inc.index} left no start line` };
      continue;
    }
    const mine = commits.filter((c) => c.writer === writer);
    const appended = new Set(events.flatMap(({ e }) => (e.kind === 'append' && e.result.ok ? [`${e.lower}/${e.upper}`] : [])));
    const unseen = mine.filter((c) => !appended.has(`${c.lower}/${c.upper}`));
    const where = `replica ${inc.replica} incarnation ${inc.index} (writer ${writer})`;
    if (endedAt === undefined) {
      if (unseen.length > 0) return { ok: false, why: `${where} was not killed, yet the shard has its commit of [${unseen[0]?.lower}, ${unseen[0]?.upper}) and its trace no append of it` };
    } else {
      if (unseen.length > 1) return { ok: false, why: `${where}: ${unseen.length} commits without an append in its trace; at most one can have been in flight` };
      const last = events.at(-1)?.t ?? endedAt;
      const c = unseen[0];
      if (c !== undefined) {
        const mint = events.findLast(({ e }) => e.kind === 'mint')?.e;
        if (mint?.kind !== 'mint' || mint.desc.lower !== c.lower || mint.desc.upper !== c.upper) {
          return { ok: false, why: `${where}: the shard has its commit of [${c.lower}, ${c.upper}), which is not the description it was appending` };
        }
        events.push({ t: last, e: { kind: 'fault', replica: inc.replica, op: 'consensus.cas', fault: 'indeterminate-applied' } });
        inflightApplied += 1;
      }
      if (inc.killedAt === undefined) {
        tails.push(
          `${where} was stopped while it ran; its trace ends after ${events.length === 0 ? 'its start' : `event ${file.events.length}`}` +
            (c === undefined ? '' : `, with its commit of [${c.lower}, ${c.upper}) in flight (the shard has it, the trace no answer: joined as indeterminate-applied)`) +
            ', then an abort',
        );
      }
      events.push({ t: Math.max(last, endedAt), e: { kind: 'abort', replica: inc.replica, reason: inc.killedAt === undefined ? 'stopped' : 'SIGKILL' } });
    }
    all.push(...events);
  }
  all.push(...run.events);
  // A stable sort: per replica the times are already ascending, so each replica's own order stays.
  all.sort((a, b) => a.t - b.t);
  return { ok: true, trace: all.map((x) => x.e), inflightApplied, torn, tails };
}
