/**
 * The finding on `persist_batch_max_runs` (#37591's review: the shared builder passes a hard-coded
 * `None` for `max_runs`), as data a report section can show: for each configured value, the runs and
 * parts per append of own batches (every worker's with sharing off, the fallback above
 * shared_batch_max_bytes) beside a shared batch's, measured on the implementation (vocab/PROTOCOL.md
 * "Runs: persist_batch_max_runs").
 *
 * What a user of the real code sees: at the default (1) both paths write one run per part. Raised to
 * m ≥ 2, own batches are built with at most m runs (compacting as they are written costs part
 * rewrites), while a shared batch keeps one run per part — the setting silently stops applying to MV
 * sink batches once sharing is on.
 */
import { runSink } from '../impl/run.ts';
import { barrierByDefault, sharesAtAll, VARIANTS } from '../impl/variants/index.ts';
import type { Variant } from '../vocab/index.ts';
import { UNLIMITED } from './args.ts';
import { generateUpdates } from './workload.ts';

export interface MaxRunsOptions {
  /** persist_batch_max_runs values to compare (default 1, 2, 4). */
  readonly maxRuns?: readonly number[];
  readonly workers?: number;
  readonly intervals?: number;
  /** Updates per interval, each about `rowBytes` encoded bytes. */
  readonly rows?: number;
  readonly rowBytes?: number;
  /** Small enough that one worker's interval makes several parts (persist's default is 128 MiB). */
  readonly blobTargetSize?: number;
  readonly seed?: number;
}

/** One way batches are built: every worker its own (off), the fallback above the threshold, or shared. */
export interface MaxRunsCase {
  readonly name: 'own (off)' | 'own (fallback above the threshold)' | 'shared (unlimited threshold)';
  readonly variant: Variant;
  readonly maxBytes: number;
}

export interface MaxRunsRow {
  readonly maxRuns: number;
  readonly case: MaxRunsCase['name'];
  readonly appends: number;
  readonly partsPerAppend: number;
  readonly runsPerAppend: number;
  /** Part writes that compacting runs cost while the batches were built (none when nothing compacts). */
  readonly compactionRewrites: number;
  readonly lost: number;
}

export interface MaxRunsFinding {
  readonly shape: Required<Omit<MaxRunsOptions, 'maxRuns'>>;
  readonly rows: readonly MaxRunsRow[];
}

const DEFAULTS: Required<MaxRunsOptions> = { maxRuns: [1, 2, 4], workers: 8, intervals: 3, rows: 4000, rowBytes: 1000, blobTargetSize: 64 * 1024, seed: 1 };

/** The first registered variant with a sharing policy (impl/variants/). */
function variantWhere(what: string, p: (v: Variant) => boolean): Variant {
  const v = VARIANTS.find(p);
  if (v === undefined) throw new Error(`max-runs: no registered variant ${what}`);
  return v;
}

const CASES: readonly MaxRunsCase[] = [
  { name: 'own (off)', variant: variantWhere('that never shares', (v) => !sharesAtAll(v)), maxBytes: 0 },
  // 1 byte: every worker's staged bytes are at or above it, so every worker falls back to its own batch
  { name: 'own (fallback above the threshold)', variant: variantWhere('that shares without a barrier', (v) => sharesAtAll(v) && !barrierByDefault(v)), maxBytes: 1 },
  { name: 'shared (unlimited threshold)', variant: variantWhere('that shares behind a barrier', (v) => barrierByDefault(v)), maxBytes: UNLIMITED },
];

/** Runs the implementation (in memory, pass-through scheduler: deterministic) for every value and case. */
export async function maxRunsFinding(opts: MaxRunsOptions = {}): Promise<MaxRunsFinding> {
  const o = { ...DEFAULTS, ...opts };
  const updates = generateUpdates({ intervals: o.intervals, rows: o.rows, rowBytes: o.rowBytes, seed: o.seed });
  const rows: MaxRunsRow[] = [];
  for (const maxRuns of o.maxRuns) {
    for (const c of CASES) {
      const r = await runSink({
        variant: c.variant,
        replicas: 1,
        processes: 1,
        workersPerProcess: o.workers,
        intervals: o.intervals,
        updates,
        maxBytes: c.maxBytes,
        persist: { blobTargetSize: o.blobTargetSize, maxRuns },
      });
      const m = r.metrics;
      rows.push({
        maxRuns,
        case: c.name,
        appends: m.appends,
        partsPerAppend: m.partsPerAppend,
        runsPerAppend: m.appends === 0 ? 0 : m.runsAppended / m.appends,
        compactionRewrites: m.compactionRewrites,
        lost: r.audit.lost,
      });
    }
  }
  const { maxRuns: _values, ...shape } = o;
  return { shape, rows };
}

/** The finding as a plain-text table. */
export function renderMaxRunsFinding(f: MaxRunsFinding): string {
  const s = f.shape;
  const head = ['persist_batch_max_runs', 'batches', 'parts/append', 'runs/append', 'compaction rewrites'];
  const body = f.rows.map((r) => [String(r.maxRuns), r.case, r.partsPerAppend.toFixed(2), r.runsPerAppend.toFixed(2), String(r.compactionRewrites)]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((row) => (row[i] as string).length)));
  const line = (cells: readonly string[]): string => cells.map((c, i) => (i === 1 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number))).join('  ');
  return [
    `persist_batch_max_runs: ${s.workers} workers, ${s.intervals} intervals × ${s.rows} updates of ~${s.rowBytes} B, blob target ${s.blobTargetSize} B, seed ${s.seed}`,
    line(head),
    line(widths.map((w) => '-'.repeat(w))),
    ...body.map(line),
  ].join('\n');
}
