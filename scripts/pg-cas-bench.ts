/**
 * Compare-and-set latency on the throwaway PostgreSQL (`npm run pg:start`, or SBKIT_PG_URL):
 *   npm run bench:pg [-- N]
 * 1. one client, N sequential compare-and-sets on one key (each commits: one INSERT … SELECT round trip);
 * 2. two clients racing on one key, N attempts each (head, then compare-and-set; about half lose).
 * Prints p50 / p99 / max in ms. Wall-clock figures: noisy while the machine is shared.
 */
import { PgConsensus } from '../impl/persist/pg-consensus.ts';
import { LatencyRecorder } from '../impl/persist/latency.ts';
import { dropTables, pgTarget, uniqueTable } from '../test-support/pg-target.ts';

const n = Number(process.argv[2] ?? 3000);
if (!Number.isSafeInteger(n) || n < 1) {
  console.error(`usage: npm run bench:pg [-- N], N a positive integer, got ${process.argv[2]}`);
  process.exit(2);
}
const target = pgTarget();
if (target.url === undefined) {
  console.error(`no PostgreSQL: ${target.skip}`);
  process.exit(2);
}
const url = target.url;
const table = uniqueTable('bench_cas');
const fmt = (r: LatencyRecorder): string => {
  const s = r.summary();
  return s === undefined ? 'no samples' : `p50 ${s.p50.toFixed(2)} ms  p99 ${s.p99.toFixed(2)} ms  max ${s.max.toFixed(2)} ms  (${s.count} CaS)`;
};

const a = await PgConsensus.open({ url, table });
const b = await PgConsensus.open({ url, table });
try {
  const version = (seqNo: number): { seqNo: number; data: Uint8Array } => ({ seqNo, data: new Uint8Array(200).fill(seqNo % 251) });

  const seq = new LatencyRecorder();
  let head: number | null = null;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const next = head === null ? 0 : head + 1;
    const started = performance.now();
    const r = await a.compareAndSet('sequential', head, version(next));
    seq.add(performance.now() - started);
    if (!r.ok) throw new Error(`sequential CaS ${next} lost: ${JSON.stringify(r)}`);
    head = next;
  }
  const seqSecs = (performance.now() - t0) / 1000;
  console.log(`sequential, 1 client:   ${fmt(seq)}  ${(n / seqSecs).toFixed(0)} CaS/s`);

  const raced = new LatencyRecorder();
  let wins = 0;
  const race = async (c: PgConsensus): Promise<void> => {
    for (let i = 0; i < n; i++) {
      const h = (await c.head('raced'))?.seqNo ?? null;
      const started = performance.now();
      const r = await c.compareAndSet('raced', h, version(h === null ? 0 : h + 1));
      raced.add(performance.now() - started);
      if (r.ok) wins += 1;
    }
  };
  await Promise.all([race(a), race(b)]);
  console.log(`racing, 2 clients:      ${fmt(raced)}  ${wins} of ${2 * n} won`);
} finally {
  await a.close();
  await b.close();
  await dropTables(url, [table]);
}
