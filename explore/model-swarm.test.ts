import { describe, expect, it } from 'vitest';
import { main } from './cli.ts';
import { captureIo } from './io.ts';

async function run(argv: readonly string[]) {
  const io = captureIo();
  const code = await main(argv, io);
  return { code, out: io.stdout(), err: io.stderr() };
}

/** The property lines of a swarm's text output. */
const verdicts = (out: string) => out.split('\n').filter((l) => /^ {2}(always|eventually|sometimes) /.test(l));

/** Two processes of four workers over two intervals: the exhaustive check of the review bug there stores
 * millions of states (its POR-reduced search alone takes minutes). */
const BIG = ['--workers', '4', '--processes', '2', '--intervals', '2', '--variant', 'best-effort', '--model-bug', 'sweep-upgrade-race'];

describe('sbkit model --check --swarm', () => {
  it('finds the review bug where the exhaustive search cannot finish quickly, with a trace and the command that replays it', async () => {
    const r = await run(['model', '--check', '--swarm', '--searches', '5', ...BIG]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/^best-effort: 5 searches, [\d,]+ states visited, .* not exhaustive: it shows violations, never that a property holds$/m);
    expect(r.out).toMatch(/no-batch-to-nobody +VIOLATED \(\d+ events: the shortest the swarm found\)/);
    const replay = /found by search (\d+); replay it alone: sbkit (model --check --swarm --seed (\d+) --searches 1 .*)$/m.exec(r.out.slice(r.out.indexOf('no-batch-to-nobody')));
    expect(replay).not.toBeNull();
    const [, search, command, seed] = replay as RegExpExecArray;
    expect(Number(seed)).toBe(1 + Number(search));
    // the command replays that search alone: the same trace
    const again = await run((command as string).split(' '));
    expect(again.code).toBe(1);
    const trace = (out: string) => {
      const lines = out.slice(out.indexOf('no-batch-to-nobody')).split('\n');
      return lines.slice(0, lines.findIndex((l) => l.includes('found by search'))).filter((l) => /^ {6}(>>| {2}) +\d+ {2}/.test(l));
    };
    expect(trace(again.out)).toEqual(trace(r.out));
    expect(verdicts(r.out).some((l) => /holds/.test(l))).toBe(false);
  });

  it('never says a property holds: what it did not find, it did not find in the states it visited', async () => {
    const r = await run(['model', '--check', '--swarm', '--searches', '3', '--workers', '3', '--variant', 'barrier']);
    // No verdict: exit 4 (incomplete), said on stderr, never 0.
    expect(r.code).toBe(4);
    expect(r.err).toMatch(/exit 4:\n {2}- incomplete: no violation found, and none shown impossible: the swarm is a bounded search/);
    expect(verdicts(r.out).length).toBeGreaterThan(10);
    expect(verdicts(r.out).some((l) => /holds/.test(l))).toBe(false);
    expect(r.out).toMatch(/no-loss-no-duplication +no violation found in the states visited \(not exhaustive\)/);
    expect(r.out.trimEnd().split('\n').at(-1)).toMatch(/^sbkit model --check --swarm: no violation found \(3 searches, [\d,]+ states visited; a bounded search: it does not show that any property holds\)$/);
  });

  it('finds the same with its searches spread over threads', async () => {
    const brief = (out: string) => out.split('\n').filter((l) => /VIOLATED|witnessed|found by search/.test(l));
    const one = await run(['model', '--check', '--swarm', '--searches', '4', '--workers', '3', '--variant', 'best-effort', '--model-bug', 'sweep-upgrade-race']);
    const two = await run(['model', '--check', '--swarm', '--searches', '4', '--jobs', '2', '--workers', '3', '--variant', 'best-effort', '--model-bug', 'sweep-upgrade-race']);
    expect(brief(one.out).length).toBeGreaterThan(0);
    expect(brief(two.out)).toEqual(brief(one.out));
  });

  it.each([
    [['--search', 'plain'], '--swarm: the swarm runs on the packed engine (drop --search plain)'],
    [['--shard', '1/2'], '--swarm: not with --shard'],
    [['--core'], '--swarm: not with --core'],
    [['--first-violation'], '--swarm: not with --first-violation'],
    [['--emit-diagram', 'x.md'], '--swarm: not with --emit-diagram'],
    [['--max-memory', '1GiB'], '--swarm: not with --max-memory'],
  ])('refuses %j where it makes no sense (exit 2, nothing run)', async (flags, message) => {
    const r = await run(['model', '--check', '--swarm', ...flags]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(message);
    expect(r.out).toBe('');
  });

  it('its flags mean nothing without it', async () => {
    for (const [flag, value] of [['--searches', '3'], ['--depth', '9']] as const) {
      const r = await run(['model', '--check', flag, value]);
      expect(r.code).toBe(2);
      expect(r.err).toContain(`${flag}: only with --swarm`);
    }
    const seed = await run(['model', '--check', '--seed', '3']);
    expect(seed.err).toContain('--seed: only with --coverage or --swarm');
  });
});
