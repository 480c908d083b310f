/**
 * Production mode of `sbkit compare` (explore/production.ts): real stores, the pass-through scheduler,
 * a fresh shard per case, the trace in the shard's order on the model and the spec, the audit of what
 * is stored through fresh clients, and compare-and-append latency in wall-clock ms.
 *
 * The done criterion: for the same seed, `off` and `barrier` give the same parts and PUT counts
 * as the in-memory backend (they do not depend on timing); for best-effort the model predicts every
 * append of the real run exactly. On files alone (in-memory consensus) this runs everywhere; on
 * PostgreSQL + files when a server is there (the skip prints why otherwise). Canaries show the audit,
 * the spec and the model failing on broken implementations.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Variant } from '../vocab/index.ts';
import { dropTables, pgTargetOrSkip, uniqueTable, withOption } from '../test-support/pg-target.ts';
import { main } from './cli.ts';
import { VARIANTS as REGISTERED } from './variants/index.ts';
import { runComparison } from './compare.ts';
import { captureIo } from './io.ts';
import { freshShardId, runProductionComparison, stopwatchScheduler } from './production.ts';
import type { Comparison, Figures, Setup } from './types.ts';

const target = pgTargetOrSkip('explore/production.test.ts');
const scratch = mkdtempSync(path.join(os.tmpdir(), 'sbkit-prod-'));
const tables: string[] = [];
afterAll(async () => {
  rmSync(scratch, { recursive: true, force: true });
  if (target.url !== undefined) await dropTables(target.url, tables);
});

const SETUP: Setup = { replicas: 1, processes: 1, workers: 4, intervals: 12, rows: 200, rowBytes: 100, threshold: 1 << 20, seed: 3 };
const VARIANTS: readonly Variant[] = ['off', 'best-effort', 'barrier'];

async function run(argv: readonly string[]) {
  const io = captureIo();
  const code = await main(argv, io);
  return { code, out: io.stdout(), err: io.stderr() };
}

const row = (c: Comparison, v: Variant): Figures => {
  const r = c.rows.find((x) => x.variant === v);
  if (r === undefined) throw new Error(`no ${v} row`);
  return r;
};

/** What must hold for every row of a production comparison. */
function expectClean(c: Comparison): void {
  for (const r of c.rows) {
    expect(r, `${r.variant}`).toMatchObject({ lost: 0, duplicated: 0, leakedBlobs: 0, updatesAppended: SETUP.intervals * SETUP.rows });
    expect(r.modelAgrees, `${r.variant}: ${r.modelDetail}`).toBe(true);
    expect(r.real?.propertyFailures, r.variant).toEqual([]);
    expect(r.real?.propertiesHold).toBe(true);
    expect(r.real?.reopened).toBe(true);
    // One latency sample per compare-and-append the sink made (ok or refused).
    expect(r.real?.appendSamples).toBeGreaterThanOrEqual(r.appends);
    expect(r.real?.appendP50Ms).toBeGreaterThan(0);
    expect(r.real?.appendP99Ms).toBeGreaterThanOrEqual(r.real?.appendP50Ms ?? 0);
  }
}

/** The done criterion against the in-memory run of the same seed. */
async function expectSameCountsAsInMemory(c: Comparison, setup: Setup = SETUP): Promise<void> {
  const mem = await runComparison('steady', setup, VARIANTS);
  for (const v of ['off', 'barrier'] as const) {
    const [real, virtual] = [row(c, v), row(mem, v)];
    for (const field of ['appends', 'partsPerAppend', 'batchesPerAppend', 'blobPuts', 'hollowParts', 'inlineParts', 'blobBytes'] as const) {
      expect(real[field], `${v}.${field}`).toBe(virtual[field]);
    }
  }
  console.log(
    `[seed ${setup.seed}] ${c.backends?.consensus} + ${c.backends?.blob}: ` +
      c.rows.map((r) => `${r.variant} ${r.partsPerAppend.toFixed(2)} parts/append, ${r.blobPuts} PUTs, c&a p50 ${r.real?.appendP50Ms.toFixed(2)} ms p99 ${r.real?.appendP99Ms.toFixed(2)} ms`).join('; '),
  );
}

describe('production compare on files (in-memory consensus)', () => {
  it('off and barrier count what the in-memory run counts; the model predicts every best-effort append; each case wrote its own sub-directory', async () => {
    const dir = mkdtempSync(path.join(scratch, 'files-'));
    const c = await runProductionComparison('steady', SETUP, VARIANTS, { consensus: 'mem', blob: `file:${dir}` });
    expectClean(c);
    await expectSameCountsAsInMemory(c);
    const subdirs = readdirSync(dir).sort();
    expect(subdirs).toHaveLength(VARIANTS.length);
    expect(subdirs.every((d) => /^compare-s3-(off|best-effort|barrier|barrier-timeout)-/.test(d))).toBe(true);
    expect(c.rows.map((r) => r.real?.blobDir).sort()).toEqual(subdirs.map((d) => path.join(dir, d)));
    // The files hold exactly the blobs the shard references: PUTs minus deletes, nothing leaked.
    for (const r of c.rows) expect(readdirSync(r.real?.blobDir ?? '').filter((n) => !n.startsWith('.')).length).toBe(r.hollowParts);
  });

  it('prints the table with compare-and-append latency in wall-clock ms, the spec column, and where each case wrote', async () => {
    const dir = mkdtempSync(path.join(scratch, 'table-'));
    const r = await run(['compare', '--workers', '4', '--intervals', '4', '--rows', '100', '--blob', `file:${dir}`]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/^production: consensus mem, blob file:/m);
    expect(r.out).toContain('the only wall time compare reports');
    expect(r.out).toMatch(/c&a p50 +c&a p99 .* spec +model/);
    expect(r.out).not.toContain('latency p50');
    expect(r.out.match(/ holds +agrees$/gm)).toHaveLength(REGISTERED.length);
    expect(r.out).toMatch(/^off: shard compare-s1-off-.*, blobs in /m);
  });

  it('a fresh shard id per run, and the stopwatch notes when each replica\'s append began', async () => {
    expect(freshShardId(1, 'off')).not.toBe(freshShardId(1, 'off'));
    let t = 10;
    const s = stopwatchScheduler(() => t);
    await s.point({ label: 'append', replica: 1 });
    t = 20;
    await s.point({ label: 'write.stage', replica: 1 });
    await s.point({ label: 'append', replica: 0 });
    expect([...s.appendStarted]).toEqual([[1, 10], [0, 20]]);
  });

  it('bad input exits 2 naming the flag; virtual-time features are refused with real stores', async () => {
    const dir = mkdtempSync(path.join(scratch, 'bad-'));
    const cases: [readonly string[], RegExp][] = [
      [['--consensus', 'mysql://db/x'], /sbkit compare: --consensus: must be mem or a postgres:\/\/ URL/],
      [['--consensus', 'postgres://u:secret@127.0.0.1:5432/db?tabel=x'], /--consensus: .*unknown option "tabel"/],
      [['--blob', 'file:'], /sbkit compare: --blob: must be mem or file:DIR/],
      [['--blob', 's3://bucket'], /--blob: must be mem or file:DIR/],
      [['--blob', `file:${path.join(dir, 'missing')}`], /sbkit compare: --blob: .*missing/],
      [['--blob', `file:${dir}`, '--faults'], /--faults: a virtual-time feature.*sbkit crash-test/],
      [['--blob', `file:${dir}`, '--stragglers', '5%'], /--stragglers: a virtual-time feature/],
      [['--blob', `file:${dir}`, '--sweep', 'workers=1,2'], /--sweep: a virtual-time feature/],
      // Refused at once, and the password never printed.
      [['--consensus', 'postgres://u:secret@127.0.0.1:1/db'], /sbkit compare: --consensus: /],
    ];
    for (const [argv, message] of cases) {
      const r = await run(['compare', '--intervals', '2', '--rows', '10', ...argv]);
      expect(r.code, `${argv.join(' ')}: ${r.err}`).toBe(2);
      expect(r.err).toMatch(message);
      expect(r.err).not.toContain('secret');
    }
  });
});

describe.skipIf(target.skip !== undefined)('production compare on PostgreSQL + files', () => {
  const url = target.url ?? '';
  const table = uniqueTable('t_prod');
  tables.push(table);
  // Collected even when skipped: without a server there is no URL to put the option on.
  const consensus = url === '' ? '' : withOption(url, 'table', table);

  it('off and barrier count what the in-memory run counts; the model predicts every best-effort append; the audit reads the database back', async () => {
    const dir = mkdtempSync(path.join(scratch, 'pg-'));
    const c = await runProductionComparison('steady', SETUP, VARIANTS, { consensus, blob: `file:${dir}` });
    expectClean(c);
    await expectSameCountsAsInMemory(c);
    expect(c.backends?.consensus).toMatch(new RegExp(`\\(table ${table}\\)$`));
    expect(c.backends?.consensus).not.toContain(':sbkit@');
  });

  it('two replicas racing on one shard: every variant predicted by the model, its trace put in the shard\'s order', async () => {
    const dir = mkdtempSync(path.join(scratch, 'pg2-'));
    const setup = { ...SETUP, replicas: 2, seed: 4 };
    const c = await runProductionComparison('steady', setup, VARIANTS, { consensus, blob: `file:${dir}` });
    for (const r of c.rows) {
      expect(r, r.variant).toMatchObject({ lost: 0, duplicated: 0, leakedBlobs: 0 });
      expect(r.modelAgrees, `${r.variant}: ${r.modelDetail}`).toBe(true);
      expect(r.real?.propertyFailures).toEqual([]);
    }
    console.log(`[seed 4] two replicas: ${c.rows.map((r) => `${r.variant} ${r.real?.moved} events moved, c&a p50 ${r.real?.appendP50Ms.toFixed(2)} ms p99 ${r.real?.appendP99Ms.toFixed(2)} ms`).join('; ')}`);
  });

  it('--json carries the stores (password redacted) and each case\'s real figures; virtual-time figures are null', async () => {
    const dir = mkdtempSync(path.join(scratch, 'json-'));
    const r = await run(['compare', '--workers', '4', '--intervals', '4', '--rows', '100', '--variants', 'barrier', '--consensus', consensus, '--blob', `file:${dir}`, '--json']);
    expect(r.code, r.err).toBe(0);
    const json = JSON.parse(r.out) as { config: { backends: { consensus: string } }; variants: (Omit<Figures, 'latencyP50Ms'> & { latencyP50Ms: null })[] };
    expect(json.config.backends.consensus).toContain('***');
    const v = json.variants[0];
    expect(v?.latencyP50Ms).toBeNull();
    expect(v?.real).toMatchObject({ propertiesHold: true, reopened: true, appendSamples: 4, faults: 0 });
    expect(v?.real?.shardId).toMatch(/^compare-s1-barrier-/);
  });

  it('the canaries: leaked blobs fail the audit and the spec; a dropped handle fails the model', async () => {
    const dir = mkdtempSync(path.join(scratch, 'canary-'));
    const setup = { ...SETUP, replicas: 2, intervals: 8 };
    const leaky = await runProductionComparison('steady', { ...setup, bug: 'append-keeps-batches-on-mismatch' }, ['off'], { consensus, blob: `file:${dir}` });
    const off = row(leaky, 'off');
    expect(off.leakedBlobs, 'two racing replicas: refused appends keep their batches').toBeGreaterThan(0);
    expect(off.real?.propertiesHold).toBe(false);
    expect(off.real?.propertyFailures.join('\n')).toMatch(/leaks-only-from-aborts/);
    const dropped = await runProductionComparison('steady', { ...SETUP, bug: 'drop-without-finish' }, ['best-effort'], { consensus, blob: `file:${dir}` });
    expect(row(dropped, 'best-effort').modelAgrees).toBe(false);
    expect(row(dropped, 'best-effort').modelDetail).toMatch(/drop/);
  });
});
