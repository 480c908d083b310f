import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from './cli.ts';
import { captureIo } from './io.ts';
import { combineModelChecks } from './model-combine.ts';
import { coreConfigs } from './model-check.ts';

async function run(argv: readonly string[], cwd?: string) {
  const io = captureIo(cwd === undefined ? {} : { cwd });
  const code = await main(argv, io);
  return { code, out: io.stdout(), err: io.stderr() };
}

const bug = ['--variant', 'best-effort', '--workers', '3', '--model-bug', 'sweep-upgrade-race'];

describe('sbkit model --check --shard and --combine', () => {
  it('the shards together give the whole check\'s verdicts and shortest traces', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sbkit-shards-'));
    const whole = JSON.parse((await run(['model', '--check', ...bug, '--json'])).out) as { variants: { properties: { name: string; verdict: string; events?: number }[] }[] };
    const files: string[] = [];
    for (const i of [1, 2, 3]) {
      const r = await run(['model', '--check', ...bug, '--shard', `${i}/3`, '--json']);
      expect(r.code).toBe(1);
      const file = `shard-${i}.json`;
      writeFileSync(join(dir, file), r.out);
      files.push(file);
    }
    const combined = await run(['model', '--combine', files.join(','), '--json'], dir);
    expect(combined.code).toBe(1);
    const parsed = JSON.parse(combined.out) as typeof whole & { summary: string };
    const verdicts = (x: typeof whole) => x.variants[0]?.properties.map((p) => `${p.name}:${p.verdict}:${p.events ?? ''}`);
    expect(verdicts(parsed)).toEqual(verdicts(whole));
    const text = await run(['model', '--combine', files[0] as string, '--combine', `${files[1]},${files[2]}`], dir);
    expect(text.out).toMatch(/3 of 3 shards combined \(states below the split may be counted by several\)/);
    expect(text.out).toContain('no-loss-no-duplication');
  });

  it('a missing shard leaves the check incomplete (never "holds"), and exits 4 naming it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sbkit-shards-'));
    const r = await run(['model', '--check', '--variant', 'barrier', '--workers', '3', '--shard', '1/2', '--json']);
    expect(r.code).toBe(0);
    writeFileSync(join(dir, 'one.json'), r.out);
    const c = await run(['model', '--combine', 'one.json'], dir);
    expect(c.code).toBe(4);
    expect(c.err).toMatch(/^ {2}- incomplete: shards 2\/2 missing: no verdict without every shard/m);
    expect(c.out).not.toMatch(/ holds$/m);
    expect(c.out).toMatch(/UNKNOWN/);
    expect(c.out).toMatch(/\(shards 2\/2 missing\)$/m);
  });

  it('names the file that cannot be combined', () => {
    const shard = (index: number, count: number, workers = 2) =>
      JSON.stringify({ config: { workers, processes: 1, replicas: 1, intervals: 1, variants: [], shard: { index, count } }, variants: [] });
    expect(() => combineModelChecks([{ file: 'a.json', text: '{' }])).toThrow(/a\.json: not JSON/);
    expect(() => combineModelChecks([{ file: 'a.json', text: '{"config":{"shard":null},"variants":[]}' }])).toThrow(/a\.json: was not run with --shard/);
    expect(() => combineModelChecks([{ file: 'a.json', text: shard(0, 2) }, { file: 'b.json', text: shard(1, 2, 3) }])).toThrow(/b\.json: was run with a different configuration than a\.json/);
    expect(() => combineModelChecks([{ file: 'a.json', text: shard(0, 2) }, { file: 'b.json', text: shard(0, 2) }])).toThrow(/b\.json: is shard 1\/2 again \(also a\.json\)/);
    expect(() => combineModelChecks([{ file: 'a.json', text: shard(0, 2) }, { file: 'b.json', text: shard(0, 3) }])).toThrow(/b\.json: is a shard of 3/);
  });
});

describe('sbkit model --check --core (the SPIN anchor\'s configuration)', () => {
  it('lists one configuration per load vector, or one per orbit with symmetry', () => {
    expect(coreConfigs('best-effort', 3, 1, false).map((c) => c.loads.join(''))).toEqual(['000', '001', '010', '011', '100', '101', '110', '111']);
    // with symmetry, one vector per orbit (the counts ascending), each standing for its permutations
    expect(coreConfigs('best-effort', 3, 1, true).map((c) => [c.loads.join(''), c.vectors])).toEqual([['000', 1], ['001', 3], ['011', 3], ['111', 1]]);
    expect(coreConfigs('best-effort', 4, 2, true).reduce((n, c) => n + c.vectors, 0)).toBe(3 ** 4);
    const { cfg } = coreConfigs('barrier', 2, 2, true).at(-1) as ReturnType<typeof coreConfigs>[number];
    expect(cfg).toMatchObject({ processes: 1, intervals: 1, workersPerProcess: 2, maxBytesChoices: [1000], pushChunkUpdates: 1, noData: 'skip' });
    // Promela's best-effort workers with no data still join and finish empty
    expect(coreConfigs('best-effort', 2, 1, true)[0]?.cfg.noData).toBe('finish');
    expect(cfg.updates.map((u) => [u.worker, u.size])).toEqual([[0, 100], [0, 100], [1, 100], [1, 100]]);
  });

  it('checks every load vector; the review bug loses data there too, the barrier is immune', async () => {
    const be = await run(['model', '--check', '--core', '--workers', '2', '--parts', '2', '--variant', 'best-effort', '--model-bug', 'sweep-upgrade-race']);
    expect(be.code).toBe(1);
    expect(be.out).toContain('core (the SPIN anchor\'s shape): every worker holds 0..2 updates of 100 B');
    expect(be.out).toMatch(/; 6 load vectors;/);
    expect(be.out).toMatch(/no-batch-to-nobody +VIOLATED/);
    const barrier = await run(['model', '--check', '--core', '--workers', '2', '--parts', '2', '--variant', 'barrier', '--model-bug', 'sweep-upgrade-race']);
    expect(barrier.code).toBe(0);
    const off = await run(['model', '--check', '--core', '--workers', '2', '--parts', '2', '--variant', 'barrier', '--symmetry', 'off', '--por', 'off']);
    expect(off.out).toMatch(/; 9 load vectors;/);
  });

  it('says how many states the sorted load vectors stand for: every vector\'s states without the symmetry', async () => {
    const flags = ['model', '--check', '--core', '--workers', '3', '--parts', '2', '--variant', 'best-effort', '--por', 'off', '--json'];
    type Out = { variants: { states: number; unreduced: number | null }[] };
    const sym = JSON.parse((await run(flags)).out) as Out;
    const full = JSON.parse((await run([...flags, '--symmetry', 'off'])).out) as Out;
    expect(sym.variants[0]?.states).toBeLessThan(full.variants[0]?.states ?? 0);
    expect(sym.variants[0]?.unreduced).toBe(full.variants[0]?.states);
    expect(full.variants[0]?.unreduced).toBe(full.variants[0]?.states);
  });
});
