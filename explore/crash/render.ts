/** The crash test's output: what ran, then one line per finding, then the verdict naming the seed. */
import { formatBytesShort } from '../args.ts';
import { millis, plural, thousands } from '../format.ts';
import { latencyStats } from '../latency.ts';
import type { CrashReport } from './crash-test.ts';
import type { Workload } from './supervisor.ts';

export function describeCrashSetup(w: Workload, kills: number, seconds: number): string {
  return (
    `sbkit crash-test: seed ${w.seed}; ${plural(w.replicas, 'replica process', 'replica processes')} × ${plural(w.processes, 'process', 'processes')} × ${w.workersPerProcess} workers, ` +
    `${w.variant}, ${thousands(w.intervals)} intervals × ${thousands(w.rows)} updates of ~${w.rowBytes} B (${w.intervalMs === 0 ? 'unpaced' : `a frontier step at most every ${w.intervalMs} ms`}), ` +
    `threshold ${formatBytesShort(w.threshold)}; ${plural(kills, 'SIGKILL')}, at most ${seconds} s${w.bugs.length > 0 ? `; BUG ${w.bugs.join(', ')} switched on` : ''}`
  );
}

export function renderCrashReport(r: CrashReport): string {
  const { run, audit, leaks } = r;
  const lines: [string, string][] = [];
  const byReplica = new Map<number, number>();
  for (const k of run.kills) byReplica.set(k.replica, (byReplica.get(k.replica) ?? 0) + 1);
  const survived = r.failures.length === 0 ? 'survived' : 'made';
  lines.push([
    'kills',
    `${run.kills.length} of ${r.plan.kills.length} ${survived} (${[...byReplica].sort((a, b) => a[0] - b[0]).map(([rep, n]) => `replica ${rep} ×${n}`).join(', ') || 'none'}), at shard uppers ${run.kills.map((k) => k.upper).join(', ') || '—'}`,
  ]);
  if (r.join.ok) {
    for (const tail of r.join.tails) lines.push(['trace tail', tail]);
    lines.push(['in flight', `${plural(r.join.inflightApplied, 'kill')} found the killed incarnation's compare-and-set applied (its writer's token in state; joined as indeterminate-applied before the abort)`]);
  }
  const restarts = latencyStats(run.kills.flatMap((k) => (k.restartMs === undefined ? [] : [k.restartMs])));
  lines.push([
    'restarts',
    `${restarts.count}: the next incarnation ran p50 ${millis(restarts.p50)}, max ${millis(restarts.max)} after the SIGKILL (process gone, its database sessions gone, writer claimed, upper read)`,
  ]);
  lines.push([
    'audit',
    `the shard's upper ${thousands(audit.upper)} of ${thousands(r.workload.intervals)}; ${thousands(audit.foundUpdates)} of ${thousands(audit.expectedUpdates)} updates, ${audit.lost} lost, ${audit.duplicated} duplicated, ${audit.danglingKeys.length} dangling references (read back through fresh clients)`,
  ]);
  lines.push([
    'leaks',
    `${plural(leaks.fromKilled, 'blob')} left by killed incarnations, ${leaks.collected} collected by ${plural(leaks.cleanups, 'cleanup')}, ${leaks.left} left; ${leaks.fromLive} from live writers; ${plural(leaks.tornPuts, 'PUT')} torn by a kill (temp files, never keys)${run.timedOut ? ' — not judged: the stop left writers in the middle of their work' : ''}`,
  ]);
  if (r.join.ok && r.check !== undefined) {
    lines.push(['model', `joined trace of ${plural(run.incarnations.length, 'incarnation')}, ${thousands(r.join.events)} events (${thousands(r.check.moved)} moved into the shard's order): ${r.check.model.detail}`]);
    const held = r.check.propertyFailures.length === 0 ? 'every always/eventually property holds' : `${r.check.propertyFailures.length} FAILED`;
    lines.push(['properties', `${held}; witnessed: ${r.check.witnessed.map((w) => w.replace(/^sometimes-/, '')).join(', ') || 'none'}`]);
  }
  lines.push(['wall', `${millis(run.wallMs)} with processes running${run.timedOut ? ` (stopped: ${run.stop ?? 'the time bound'})` : ''}`]);
  const exited = run.processes.filter((p) => p.exit !== undefined).length;
  lines.push(['processes', `${run.processes.length} started, ${exited} exited${exited === run.processes.length ? '' : `, ${run.processes.length - exited} let go`}`]);
  for (const note of run.notes) lines.push(['note', note]);
  lines.push(['shard', `${r.shardId} in ${r.consensus}; blobs and traces in ${r.runDir}`]);
  const width = Math.max(...lines.map(([k]) => k.length));
  const body = lines.map(([k, v]) => `${k.padEnd(width)}  ${v}`).join('\n');
  const list = (xs: readonly string[]) => xs.map((f) => `\n  - ${f}`).join('');
  const verdict =
    r.failures.length > 0
      ? `verdict: FAILED — seed ${r.seed}${list(r.failures)}${list(r.incomplete)}`
      : r.incomplete.length > 0
        ? `verdict: INCOMPLETE — seed ${r.seed}: nothing it could judge failed${list(r.incomplete)}`
        : `verdict: ok — seed ${r.seed}`;
  return `\n${body}\n\n${verdict}\n`;
}

