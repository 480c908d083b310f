/**
 * Deep: `sbkit model --check` where it searches long. The fault world without reductions visits every
 * state (tens of thousands per variant, each a JSON string in the plain search), and `--jobs 2` starts
 * two threads for each variant's search and runs every search twice (one thread, two).
 * model-check.test.ts holds the rest of the command in `npm test`, the fault world with its reductions too.
 */
import { describe, expect, it } from 'vitest';
import { main } from './cli.ts';
import { captureIo } from './io.ts';

async function run(argv: readonly string[]) {
  const io = captureIo();
  const code = await main(argv, io);
  return { code, out: io.stdout(), err: io.stderr() };
}

describe('sbkit model --check, deep', () => {
  it('--faults --search plain visits every state of the fault world: the pinned counts, every property holds', async () => {
    const all = await run(['model', '--check', '--faults', '--search', 'plain']);
    expect(all.code).toBe(0);
    expect(all.out).toMatch(/^off: 871 states explored/m);
    expect(all.out).toMatch(/^best-effort: 25,484 states explored/m);
    expect(all.out).toMatch(/^barrier: 9,614 states explored/m);
    expect(all.out).not.toContain('VIOLATED');
  });

  it('--jobs 2 spreads each search over two threads: the same states, verdicts and counterexample lengths', async () => {
    const argv = ['model', '--check', '--workers', '3', '--model-bug', 'sweep-upgrade-race', '--json'];
    type Out = { config: { jobs: number }; variants: { variant: string; states: number; finals: number; properties: { name: string; verdict: string; events?: number }[] }[] };
    const one = JSON.parse((await run(argv)).out) as Out;
    const two = JSON.parse((await run([...argv, '--jobs', '2'])).out) as Out;
    expect(two.config.jobs).toBe(2);
    // the threads really ran (their reduction line says so), and one thread's does not
    const reduction = (o: Out) => (o.variants[0] as unknown as { figures: { reduction: string } }).figures.reduction;
    expect(reduction(two)).toMatch(/; 2 threads$/);
    expect(reduction(one)).not.toMatch(/threads/);
    const brief = (o: Out) => o.variants.map((v) => ({ variant: v.variant, states: v.states, finals: v.finals, properties: v.properties.map((p) => [p.name, p.verdict, p.events]) }));
    expect(brief(two)).toEqual(brief(one));
    expect(two.variants.find((v) => v.variant === 'best-effort')?.properties.find((p) => p.name === 'no-loss-no-duplication')?.verdict).toBe('violated');
  });
});
