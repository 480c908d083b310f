import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../vocab/index.ts';
import { properties, propertyByName } from '../spec/properties.ts';
import { MODEL_VARIANT_NAMES, policyOf } from '../model/variants/index.ts';
import { main } from './cli.ts';
import { captureIo } from './io.ts';
import { evaluateCriteria } from './criteria.ts';
import { DEFAULT_MODEL_CHECK, checkConfig, checkUpdates, formatTrace, formatTraceEvent, runModelCheck } from './model-check.ts';
import { renderReport } from './report/index.ts';
import type { Comparison, Figures } from './types.ts';

async function run(argv: readonly string[]) {
  const io = captureIo();
  const code = await main(argv, io);
  return { code, out: io.stdout(), err: io.stderr() };
}

/** Pinned, Stateright-style: a change to the model or the check's workload changes these. Without
 * reductions (and for the plain search) every reachable state; by default, the representatives the
 * packed search visits with symmetry and partial-order reduction. */
const PINNED = { off: 53, 'best-effort': 215, barrier: 134, 'barrier-timeout': 288 } as const;
const PINNED_REDUCED = { off: 26, 'best-effort': 109, barrier: 85, 'barrier-timeout': 166 } as const;
const N = Object.keys(PINNED).length;
const total = (p: Readonly<Record<string, number>>): string => Object.values(p).reduce((a, b) => a + b, 0).toLocaleString('en-US');
const judged = properties.filter((p) => p.kind !== 'sometimes');
const sometimes = properties.filter((p) => p.kind === 'sometimes');

describe('the check workload', () => {
  it('gives every worker one update per interval, alternating the two sizes', () => {
    expect(checkUpdates({ workers: 2, processes: 1, replicas: 1, intervals: 2 })).toEqual([
      { id: 0, time: 0, worker: 0, size: 10 },
      { id: 1, time: 0, worker: 1, size: 100 },
      { id: 2, time: 1, worker: 0, size: 100 },
      { id: 3, time: 1, worker: 1, size: 10 },
    ]);
    const cfg = checkConfig('barrier', { workers: 1, processes: 2, replicas: 2, intervals: 1, modelBug: 'sweep-upgrade-race' });
    expect(cfg).toMatchObject({ variant: 'barrier', workersPerProcess: 1, processes: 2, replicas: 2, maxBytesChoices: [0, 50, 1000], bugs: { sweepUpgradeRace: true } });
    expect(cfg.updates.map((u) => u.worker)).toEqual([0, 1]);
    expect(checkConfig('off', DEFAULT_MODEL_CHECK).bugs).toBeUndefined();
  });
});

describe('sbkit model --check', () => {
  it('by default searches every variant completely, lists every property, and exits 0', async () => {
    const r = await run(['model', '--check']);
    expect(r.code).toBe(0);
    expect(r.err).toBe('');
    expect(r.out).toContain('packed search (symmetry, partial order); limit 100,000,000 states or 4.00 GiB RSS per variant');
    for (const [variant, states] of Object.entries(PINNED_REDUCED)) {
      expect(r.out).toMatch(new RegExp(`^${variant}: ${states} states explored, \\d+ final, complete, [\\d.]+ m?s$`, 'm'));
    }
    expect(r.out).toMatch(/^ {2}symmetry: none applies; partial order: \d+ states expanded only a persistent subset; [\d,]+ transitions; [\d,.]+ B\/state stored; [\d,]+ states\/s; peak RSS /m);
    // each property once per variant that is judged by it (a barrier with a deadline: by its group's property)
    const judgedBy = (name: string): number => MODEL_VARIANT_NAMES.filter((variant) => policyOf({ variant }).properties(properties).some((q) => q.name === name)).length;
    for (const p of properties) expect(r.out.split(`  ${p.name} `).length - 1, p.name).toBe(judgedBy(p.name));
    expect(r.out.split('  barrier-one-shared-batch-per-group ').length - 1).toBe(judgedBy('barrier-one-shared-batch-per-group'));
    expect(propertyByName('barrier-one-shared-batch-per-group')).toBeDefined();
    // each judged property holds, or holds vacuously where the configuration gives it nothing to judge (vacuity.ts)
    for (const p of judged) expect(r.out).toMatch(new RegExp(`^  ${p.kind} +${p.name} +(holds|vacuous \\(needs [^)]+\\))$`, 'm'));
    expect(r.out.match(/ vacuous \(needs /g)).toHaveLength(19); // off 6, best-effort 5, barrier 4, barrier-timeout 4
    expect(r.out).toMatch(/^ {2}sometimes +sometimes-interval-sealed-with-data +witnessed \(\d+-event example\)$/m);
    expect(r.out).toMatch(/sometimes-refused-append +NOT witnessed \(needs --replicas 2\)/);
    expect(r.out).not.toContain('VIOLATED');
    expect(r.out.trimEnd().split('\n').at(-1)).toBe(`sbkit model --check: ok (${N} variants, ${total(PINNED_REDUCED)} states; every always/eventually property holds, 19 of them vacuously)`);
  });

  it.each([
    [['--symmetry', 'off', '--por', 'off'], 'packed search (no reductions)'],
    [['--search', 'plain'], 'plain search (model/search.ts, no reductions); limit 200,000 states per variant'],
  ])('%j visits every reachable state: the pinned counts', async (flags, header) => {
    const r = await run(['model', '--check', ...flags]);
    expect(r.code).toBe(0);
    expect(r.out).toContain(header);
    for (const [variant, states] of Object.entries(PINNED)) {
      expect(r.out).toMatch(new RegExp(`^${variant}: ${states} states explored, \\d+ final, complete, [\\d.]+ m?s$`, 'm'));
    }
    expect(r.out.trimEnd().split('\n').at(-1)).toBe(`sbkit model --check: ok (${N} variants, ${total(PINNED)} states; every always/eventually property holds, 19 of them vacuously)`);
  });

  it('with the review bug on best-effort: no-loss VIOLATED with a short trace, exit 1', async () => {
    const r = await run(['model', '--check', '--variant', 'best-effort', '--model-bug', 'sweep-upgrade-race']);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^ {2}- violation: best-effort: always no-loss-no-duplication VIOLATED in \d+ events: replica 0 appended .* \(--model-bug sweep-upgrade-race switched the bug on\)$/m);
    const m = /^ {2}always +no-loss-no-duplication +VIOLATED \((\d+) events\)$/m.exec(r.out);
    expect(m).not.toBeNull();
    const events = Number(m?.[1]);
    // another worker's builder() call sweeps while this worker finishes (model/CONTEXT.md: 18 events)
    expect(events).toBe(18);
    // the trace follows, one numbered event per line, ending in the append that sealed the interval short.
    const after = r.out.slice((m?.index ?? 0) + (m?.[0].length ?? 0)).split('\n').slice(1);
    expect(after[0]).toMatch(/^ {6}replica 0 appended \[0, 1\) with updates \[.*\], desired \[0, 1\]$/);
    const trace = after.slice(1, 1 + events);
    expect(trace.map((l) => /^ {6}(?:>>| {2}) +(\d+) {2}r0 /.exec(l)?.[1])).toEqual(Array.from({ length: events }, (_, i) => String(i + 1)));
    expect(trace.some((l) => l.includes('sweep-hold'))).toBe(true);
    expect(trace.at(-1)).toMatch(/^ {6}>> +\d+ {2}r0 append \[0, 1\) .* → ok$/);
    expect(r.out).toContain('sbkit model --check: FAILED (1 variant, ');
    expect(r.out).toMatch(/best-effort: no-loss-no-duplication, .*VIOLATED/);
  });

  it('--first-violation stops at the first violated property, whose trace is as short as the whole check\'s', async () => {
    const flags = ['model', '--check', '--workers', '3', '--variant', 'best-effort', '--model-bug', 'sweep-upgrade-race'];
    const whole = await run(flags);
    const first = await run([...flags, '--first-violation']);
    expect(first.code).toBe(1);
    const violated = [...first.out.matchAll(/^ {2}\w+ +([\w-]+) +VIOLATED \((\d+) events\)$/gm)];
    expect(violated).toHaveLength(1);
    const [, name, events] = violated[0] as RegExpExecArray;
    expect(whole.out).toMatch(new RegExp(`^ {2}\\w+ +${name} +VIOLATED \\(${events} events\\)$`, 'm'));
    expect(first.out).toMatch(/UNKNOWN \(no violation in the states explored; search incomplete\)/);
    expect(first.out).toContain('search incomplete (stopped at the first violation (--first-violation): ');
    expect(Number(/FAILED \(1 variant, ([\d,]+) states\)/.exec(first.out)?.[1]?.replace(/,/g, ''))).toBeLessThan(Number(/FAILED \(1 variant, ([\d,]+) states\)/.exec(whole.out)?.[1]?.replace(/,/g, '')));
  });

  it('--faults explores aborts, restarts, indeterminate commits and cleanup: every property holds, the fault world is witnessed', async () => {
    const r = await run(['model', '--check', '--faults']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('fault world: ≤ 1 abort, ≤ 1 indeterminate compare-and-set, cleanup');
    // with the reductions (symmetry, partial order) and the fault history as its summary
    // (model/packed/history-summary.ts); the plain search visits every state
    expect(r.out).toMatch(/^off: 267 states explored/m);
    expect(r.out).toMatch(/^best-effort: 2,437 states explored/m);
    expect(r.out).toMatch(/^barrier: 1,162 states explored/m);
    expect(r.out).toMatch(/^barrier-timeout: 3,703 states explored/m);
    // every state of the fault world, with the plain search: model-check.deep.test.ts
    expect(r.out.match(/sometimes-replica-restarted +witnessed/g)).toHaveLength(N);
    expect(r.out.match(/sometimes-indeterminate-commit +witnessed/g)).toHaveLength(N);
    expect(r.out).not.toContain('VIOLATED');
    const plain = await run(['model', '--check', '--variant', 'off']);
    expect(plain.out).toMatch(/sometimes-replica-restarted +NOT witnessed \(needs --faults\)/);
  });

  it('the indeterminate-as-mismatch model bug (it implies --faults): the shortest counterexample deletes what the shard took', async () => {
    const r = await run(['model', '--check', '--variant', 'off', '--model-bug', 'indeterminate-cas-deletes-batches']);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/^ {2}always +no-referenced-blob-deleted +VIOLATED \(11 events\)$/m);
    expect(r.out).toContain('r0 fault consensus.cas → indeterminate-applied');
    expect(r.out).toMatch(/>> 11 {2}r0 delete lower=0 → 2 batches \(mismatch\)/);
  });

  it('the barrier and off are immune to the review bug', async () => {
    const r = await run(['model', '--check', '--variant', 'barrier', '--model-bug', 'sweep-upgrade-race']);
    expect(r.code).toBe(0);
    expect(r.out).not.toContain('VIOLATED');
  });

  it('reports a search cut short by --max-states as incomplete, never ok: exit 4, the reason naming the flag', async () => {
    const r = await run(['model', '--check', '--max-states', '10']);
    expect(r.code).toBe(4);
    expect(r.err).toMatch(/^sbkit model: exit 4:\n {2}- incomplete: off: search incomplete, hit --max-states 10: .* \(raise --max-states, search a smaller shape, or split it with --shard I\/N\)$/m);
    expect(r.out).toMatch(/^off: 10 states explored, \d+ final, INCOMPLETE \(hit --max-states 10: 10 states stored, \d+ successors? beyond the limit, BFS depth \d+\)/m);
    expect(r.out).not.toMatch(/ holds$/m);
    for (const p of judged) expect(r.out).toMatch(new RegExp(`${p.name} +UNKNOWN \\(no violation in the states explored; search incomplete\\)`));
    expect(r.out).toContain('NOT witnessed (search incomplete)');
    expect(r.out).toMatch(/INCOMPLETE .*off: search incomplete \(hit --max-states 10: /);
  });

  it('reports a search stopped by --max-memory as incomplete, with how far it got', async () => {
    const { runModelCheck: check } = await import('./model-check.ts');
    let t = 0;
    const r = await check({ ...DEFAULT_MODEL_CHECK, variants: ['best-effort'], workers: 3, maxMemory: 1 << 26 }, { now: () => (t += 1), memory: () => 1 << 27 });
    expect(r.exitCode).toBe(4);
    expect(r.variants[0]).toMatchObject({ complete: false, figures: { stopped: 'max-memory' } });
    const text = (await import('./model-check.ts')).renderModelCheck(r);
    expect(text).toMatch(/^best-effort: 1 state explored, 0 final, INCOMPLETE \(hit --max-memory 64\.0 MiB: 1 state stored, 1 not yet expanded, BFS depth 0\)/m);
    expect(text).not.toMatch(/ holds$/m);
    expect(text).toMatch(/INCOMPLETE .*best-effort: search incomplete \(hit --max-memory 64\.0 MiB/);
  });

  // --jobs 2 (every variant's search on two threads, against one thread): model-check.deep.test.ts

  it('prints one JSON object with --json', async () => {
    const r = await run(['model', '--check', '--variant', 'best-effort', '--model-bug', 'sweep-upgrade-race', '--json']);
    expect(r.code).toBe(1);
    const parsed = JSON.parse(r.out) as {
      exitCode: number;
      config: Record<string, unknown>;
      variants: { variant: string; states: number; complete: boolean; properties: { name: string; kind: string; verdict: string; trace?: TraceEvent[]; text?: string[]; events?: number }[] }[];
    };
    expect(parsed.exitCode).toBe(1);
    expect(parsed.config).toMatchObject({
      workers: 2, processes: 1, replicas: 1, intervals: 1, maxStates: 100_000_000, modelBug: 'sweep-upgrade-race', variants: ['best-effort'],
      search: 'packed', symmetry: true, por: true, maxMemory: 4 * 1024 ** 3, shard: null, jobs: 1, core: null,
    });
    const v = parsed.variants[0];
    expect(v?.complete).toBe(true);
    expect(v?.properties.map((p) => p.name)).toEqual(properties.map((p) => p.name));
    const noLoss = v?.properties.find((p) => p.name === 'no-loss-no-duplication');
    expect(noLoss?.verdict).toBe('violated');
    expect(noLoss?.trace?.at(-1)?.kind).toBe('append');
    expect(noLoss?.text).toHaveLength(noLoss?.events ?? -1);
    const clean = JSON.parse((await run(['model', '--check', '--variant', 'off', '--json'])).out) as typeof parsed;
    expect(clean.exitCode).toBe(0);
    expect(clean.variants[0]?.states).toBe(PINNED_REDUCED.off);
    expect((clean.variants[0] as unknown as { figures: Record<string, unknown> }).figures).toMatchObject({ search: 'packed', stopped: null, configs: 1 });
  });

  it.each([
    [['--check', '--workers', '0'], '--workers: expected an integer from 1 to 16, got "0"'],
    [['--check', '--max-states', '0'], '--max-states: expected an integer from 1'],
    [['--check', '--variant', 'both'], '--variant: expected one of off, best-effort, barrier, barrier-timeout, all, got "both"'],
    [['--check', '--model-bug', 'nope'], '--model-bug: expected one of sweep-upgrade-race, indeterminate-cas-deletes-batches, got "nope"'],
    [['--check', '--list'], '--check: cannot be combined with --list'],
    [['--check', '--machine', 'mint'], '--check: cannot be combined with --machine'],
    [['--check', '--mermaid'], '--check: cannot be combined with --mermaid'],
    [['--workers', '2'], '--workers: only with --check'],
    [['--mermaid', '--model-bug', 'sweep-upgrade-race'], '--model-bug: only with --check'],
    [['--json'], '--json: only with --check'],
    [['--check', '--search', 'plain', '--symmetry', 'off'], '--symmetry: only with --search packed'],
    [['--check', '--search', 'plain', '--shard', '1/2'], '--shard: only with --search packed'],
    [['--check', '--shard', '0/2'], '--shard: expected I/N with 1 ≤ I ≤ N ≤ 4096 (e.g. 2/4: the second of four shards), got "0/2"'],
    [['--check', '--shard', '3/2'], '--shard: expected I/N'],
    [['--check', '--por', 'maybe'], '--por: expected one of on, off, got "maybe"'],
    [['--check', '--max-memory', '1MiB'], '--max-memory: must be at least 67108864 bytes'],
    [['--check', '--parts', '2'], '--parts: only with --core'],
    [['--check', '--core', '--processes', '2'], '--core: the SPIN anchor has 1 process'],
    [['--check', '--core', '--parts', '10'], '--parts: expected an integer from 1 to 9'],
    [['--shard', '1/2'], '--shard: only with --check'],
    [['--check', '--jobs', '0'], '--jobs: expected an integer from 1 to 64, got "0"'],
    [['--check', '--jobs', '2', '--shard', '1/2'], '--jobs: not with --shard'],
    [['--check', '--jobs', '1', '--shard', '1/2'], '--jobs: not with --shard'],
    [['--check', '--core', '--jobs', '2'], '--jobs: not with --core'],
    [['--check', '--search', 'plain', '--jobs', '2'], '--jobs: only with --search packed'],
    [['--jobs', '2'], '--jobs: only with --check'],
    [['--check', '--combine', 'a.json'], '--check: cannot be combined with --combine'],
    [['--combine', 'a.json', '--workers', '3'], '--workers: not with --combine'],
    [['--combine', 'no-such-file.json'], '--combine: cannot read no-such-file.json (ENOENT)'],
  ])('model %j exits 2 naming the flag', async (argv, message) => {
    const r = await run(['model', ...argv]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`sbkit model: ${message}`);
    expect(r.out).toBe('');
  });

  it('documents the workload and the review-bug example in its help', async () => {
    const r = await run(['model', '--help']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('--check');
    expect(r.out).toContain('updates: one per worker per interval, 10 B or 100 B');
    expect(r.out).toContain('{0, 50, 1000} B');
    expect(r.out).toContain('sbkit model --check --variant best-effort --model-bug sweep-upgrade-race');
  });
});

describe('trace formatting', () => {
  const w = { replica: 0, process: 0, worker: 1, sharedId: 2 };
  const b = { updates: [3, 4], parts: { hollow: 1, inline: 1 }, partBytes: [] };
  it.each<[TraceEvent, string]>([
    [{ kind: 'frontier', replica: 1, upper: 3 }, 'r1 frontier: desired upper 3'],
    [{ kind: 'mint', replica: 0, desc: { lower: 0, upper: 1, appendWorker: 1, sharedId: 0, maxBytes: 50, barrier: false } }, 'r0 mint id=0 [0, 1) append-worker=w1 knob=50 B'],
    [{ kind: 'stage', ...w, updates: [3], bytes: 10, route: 'shared' }, 'r0 w1 stage id=2 updates=[3] (10 B) → shared'],
    [{ kind: 'open', ...w, created: true, participants: null }, 'r0 w1 open id=2 → new builder'],
    [{ kind: 'open', ...w, created: false, participants: null }, 'r0 w1 open id=2 → joins the live builder'],
    [{ kind: 'push', ...w, updates: [3, 4] }, 'r0 w1 push id=2 updates=[3, 4]'],
    [{ kind: 'finish-begin', ...w, last: true }, 'r0 w1 finish-begin id=2 → last=true'],
    [{ kind: 'finish-end', ...w, received: b }, 'r0 w1 finish-end id=2 → receives [3, 4] (1 hollow + 1 inline)'],
    [{ kind: 'finish-end', ...w, received: null }, 'r0 w1 finish-end id=2 → no batch'],
    [{ kind: 'skip', ...w, early: true }, 'r0 w1 skip id=2 → early'],
    [{ kind: 'skip', ...w, early: false }, 'r0 w1 skip id=2'],
    [{ kind: 'own-batch', ...w, batch: b }, 'r0 w1 own-batch id=2 → [3, 4] (1 hollow + 1 inline)'],
    [{ kind: 'hand', ...w, batches: [b] }, 'r0 w1 hand id=2 → [3, 4] (1 hollow + 1 inline)'],
    [{ kind: 'hand', ...w, batches: [] }, 'r0 w1 hand id=2 → no batch'],
    [{ kind: 'append', replica: 0, lower: 0, upper: 1, batches: 2, parts: { hollow: 2, inline: 0 }, runs: 2, updates: [0, 1], result: { ok: true } }, 'r0 append [0, 1) 2 batches, 2 hollow + 0 inline, updates=[0, 1] → ok'],
    [{ kind: 'append', replica: 1, lower: 0, upper: 1, batches: 1, parts: { hollow: 0, inline: 1 }, runs: 1, updates: [0], result: { ok: false, current: 1 } }, 'r1 append [0, 1) 1 batch, 0 hollow + 1 inline, updates=[0] → upper mismatch (shard at 1)'],
    [{ kind: 'delete', replica: 1, lower: 0, batches: 1, reason: 'mismatch' }, 'r1 delete lower=0 → 1 batch (mismatch)'],
    [{ kind: 'sweep', replica: 0, process: 1, worker: 2, removed: [0] }, 'r0 w2 sweep → removed [0]'],
    [{ kind: 'sweep', replica: 0, process: 1, removed: [0] }, 'r0 p1 sweep → removed [0]'],
    [{ kind: 'sweep-hold', replica: 0, process: 0, sharedId: 0 }, 'r0 p0 sweep-hold id=0'],
    [{ kind: 'sweep-release', replica: 0, process: 0, sharedId: 0, closed: true }, 'r0 p0 sweep-release id=0 → closed=true'],
    [{ kind: 'drop', ...w, closed: false }, 'r0 w1 drop id=2 → closed=false'],
  ])('%j', (e, text) => {
    expect(formatTraceEvent(e)).toBe(text);
  });

  it('numbers a trace from 1 and marks its last event', () => {
    const e: TraceEvent = { kind: 'frontier', replica: 0, upper: 1 };
    expect(formatTrace(Array.from({ length: 10 }, () => e), '  ')).toEqual([
      ...Array.from({ length: 9 }, (_, i) => `      ${i + 1}  r0 frontier: desired upper 1`),
      '  >> 10  r0 frontier: desired upper 1',
    ]);
  });
});

describe('the model check in the report', () => {
  const fig = (variant: Figures['variant'], ppa: number): Figures => ({
    variant, threshold: 1 << 20, appends: 1, partsPerAppend: ppa, batchesPerAppend: ppa, blobPuts: ppa, blobBytes: 1, consensusCommands: 1,
    stateDiffBytes: 1, inlineParts: 0, hollowParts: ppa, updatesWritten: 2, updatesAppended: 2, lost: 0, duplicated: 0, leakedBlobs: 0, faultsInjected: 0, retries: 0, aborts: 0, restarts: 0, leakedByAborts: 0, collected: 0,
    simulatedMs: 1, meanAppendLatencyMs: 1, maxBuilderShare: 1, modelAgrees: true, modelDetail: '1/1 appends predicted exactly',
    latencyP50Ms: 1, latencyP99Ms: 1, latencyMaxMs: 1, writeP50Ms: 1, writeP99Ms: 1, writeMaxMs: 1, shardParts: ppa,
  });
  const comparison: Comparison = {
    scenario: 'steady',
    setup: { replicas: 1, processes: 1, workers: 2, intervals: 1, rows: 2, rowBytes: 100, threshold: 1 << 20, seed: 1 },
    variants: ['off', 'best-effort', 'barrier'],
    rows: [fig('off', 2), fig('best-effort', 1.5), fig('barrier', 1)],
  };
  const report = async (modelBug?: 'sweep-upgrade-race') => {
    let t = 0;
    const result = await runModelCheck({ ...DEFAULT_MODEL_CHECK, modelBug }, { now: () => (t += 1000) });
    const html = renderReport({
      command: 'test', comparison, criteria: evaluateCriteria(comparison), sweeps: [], hydration: undefined,
      check: { kind: 'skipped', reason: 'test' }, modelCheck: { kind: 'ran', result }, diagrams: { kind: 'unavailable', reason: 'test' },
    });
    return { result, html };
  };

  it('shows per-variant state counts and every verdict, without wall time', async () => {
    const { result, html } = await report();
    expect(result.variants.map((v) => v.ms)).toEqual(Array.from({ length: N }, () => 1000));
    expect(html).toContain('<a href="#model-check">Model check</a>');
    expect(html).toContain('<h2 id="model-check">Model check (exhaustive)</h2>');
    expect(html).toContain(`<td class="l">distinct states explored</td><td class="r">${PINNED_REDUCED.off}</td><td class="r">${PINNED_REDUCED['best-effort']}</td><td class="r">${PINNED_REDUCED.barrier}</td><td class="r">${PINNED_REDUCED['barrier-timeout']}</td>`);
    const { vacuousBecause } = await import('./vacuity.ts');
    for (const p of judged) {
      const cells = (Object.keys(PINNED) as (keyof typeof PINNED)[]).map((variant) => {
        if (!policyOf({ variant }).properties(properties).some((q) => q.name === p.name)) return '<td class="l muted">not judged</td>';
        const needs = vacuousBecause(p.name, { variant, replicas: 1, faults: false });
        return needs === undefined ? '<td class="l zero">holds</td>' : `<td class="l muted wrap">vacuous <span class="note">(${needs.replace(/'/g, '&#39;')})</span></td>`;
      });
      expect(html).toContain(`<td class="l">${p.name}</td>${cells.join('')}`);
    }
    for (const p of sometimes) expect(html).toContain(`<td class="l">${p.name}</td>`);
    expect(html).toContain(`Model check (exhaustive): ok (${N} variants, ${total(PINNED_REDUCED)} states; every always/eventually property holds, 19 of them vacuously).`);
    expect(html).not.toContain('1.00 s'); // the fake clock: 1000 ms per variant
  });

  it('shows a violation with its trace and marks the findings missed', async () => {
    const { result, html } = await report('sweep-upgrade-race');
    expect(result.exitCode).toBe(1);
    expect(html).toContain('<div class="findings missed">');
    expect(html).toMatch(/<td class="l bad">VIOLATED \(\d+ events\)<\/td>/);
    expect(html).toContain('<details><summary>best-effort: no-loss-no-duplication');
    expect(html).toContain('sweep-hold id=0');
    expect(html).toContain('npx sbkit model --check --model-bug sweep-upgrade-race');
  });
});
