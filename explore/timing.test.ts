import { describe, expect, it } from 'vitest';
import type { PointSite, Scheduler } from '../impl/seams.ts';
import type { PointLabel } from '../vocab/index.ts';
import { DEFAULT_TIMING, DeadlockError, type TimingModel, VirtualTimeScheduler, seededTiming, stepKind } from './timing.ts';
import { hashInts, mulberry32, unitAt } from './prng.ts';

const site = (label: PointLabel, worker?: number, bytes?: number): PointSite => ({
  label,
  replica: 0,
  ...(worker === undefined ? {} : { worker }),
  ...(bytes === undefined ? {} : { bytes }),
});

/** A timing model from a table: label → delay. */
const fixedDelays = (delays: Record<string, number>): TimingModel => ({ delay: (s) => delays[s.label] ?? 0 });

async function task(s: Scheduler, name: string, labels: readonly PointLabel[], log: string[]): Promise<void> {
  for (const label of labels) {
    await s.point(site(label));
    log.push(`${name}:${label}`);
  }
}

describe('VirtualTimeScheduler', () => {
  it('resumes points in virtual-time order, ties first come first served', async () => {
    const s = new VirtualTimeScheduler(fixedDelays({ 'blob.set': 10, 'write.stage': 1, append: 5 }));
    const log: string[] = [];
    const run = Promise.all([task(s, 'a', ['blob.set', 'write.stage'], log), task(s, 'b', ['write.stage', 'write.stage'], log), task(s, 'c', ['append'], log), task(s, 'd', ['append'], log)]);
    await s.drive(run);
    expect(log).toEqual(['b:write.stage', 'b:write.stage', 'c:append', 'd:append', 'a:blob.set', 'a:write.stage']);
    expect(s.now).toBe(11);
    expect(s.resumed).toBe(6);
  });

  it('returns the run value and rethrows its error', async () => {
    const s = new VirtualTimeScheduler(fixedDelays({}));
    await expect(s.drive((async () => (await s.point(site('mint')), 42))())).resolves.toBe(42);
    const failing = (async () => {
      await s.point(site('mint'));
      throw new Error('boom');
    })();
    await expect(s.drive(failing)).rejects.toThrow('boom');
  });

  it('throws DeadlockError when the run waits on something no point releases', async () => {
    const s = new VirtualTimeScheduler(fixedDelays({}));
    const never = new Promise<void>(() => undefined);
    const run = (async () => {
      await s.point(site('write.stage', 3));
      await never;
    })();
    const err = await s.drive(run).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DeadlockError);
    expect(String(err)).toContain('write.stage@r0w3');
  });

  it('reports every step to onStep', async () => {
    const s = new VirtualTimeScheduler(fixedDelays({}));
    const steps: number[] = [];
    await s.drive(task(s, 'a', ['mint', 'write.hand', 'append'], []), (n) => steps.push(n));
    expect(steps).toEqual([1, 2, 3]);
  });

  it('treats negative or non-finite delays as zero', async () => {
    const s = new VirtualTimeScheduler({ delay: (p) => (p.label === 'sweep' ? -5 : Number.NaN) });
    await s.drive(task(s, 'a', ['sweep', 'sweep.release'], []));
    expect(s.now).toBe(0);
  });
});

describe('seededTiming', () => {
  it('is deterministic for a seed and differs between seeds', () => {
    const draw = (seed: number) => {
      const m = seededTiming(seed);
      return [0, 1, 2, 3].map((w) => m.delay(site('write.stage', w)));
    };
    expect(draw(7)).toEqual(draw(7));
    expect(draw(7)).not.toEqual(draw(8));
  });

  it('draws readiness per (worker, n-th description) independent of other points', () => {
    const a = seededTiming(1);
    const b = seededTiming(1);
    b.delay(site('blob.set', 0, 1000));
    b.delay(site('write.stage', 5));
    // Readiness ignores jitter order up to the jitter bound.
    const da = a.delay(site('write.stage', 2));
    const db = b.delay(site('write.stage', 2));
    expect(Math.abs(da - db)).toBeLessThanOrEqual(DEFAULT_TIMING.jitterMs);
  });

  it('spreads readiness over workers and caps it', () => {
    const m = seededTiming(3);
    const ds = Array.from({ length: 2000 }, (_, i) => m.delay(site('write.stage', i % 8)));
    expect(Math.max(...ds)).toBeLessThanOrEqual(DEFAULT_TIMING.readinessCapMs + DEFAULT_TIMING.jitterMs);
    expect(new Set(ds.map((d) => d.toFixed(9))).size).toBeGreaterThan(1990);
  });

  it('makes blob PUTs slower with more bytes and paces the frontier by the interval', () => {
    const m = seededTiming(1);
    expect(m.delay(site('blob.set', 0, 5_000_000))).toBeGreaterThan(m.delay(site('blob.set', 0, 1000)) + 50);
    expect(m.delay(site('input.advance'))).toBe(DEFAULT_TIMING.intervalMs);
  });

  it('charges an own batch\'s encoding on its worker, not a shared builder\'s (encoded when pushed)', () => {
    const m = seededTiming(1);
    const own = m.delay(site('blob.set', 3, 50_000));
    const shared = m.delay({ label: 'blob.set', replica: 0, process: 0, bytes: 50_000 });
    const encode = 50_000 / DEFAULT_TIMING.encodeBytesPerMs;
    expect(Math.abs(own - shared - encode)).toBeLessThanOrEqual(DEFAULT_TIMING.jitterMs);
    expect(m.delay(site('shared.push', 3, 50_000))).toBeGreaterThanOrEqual(encode);
  });

  it('charges a timer exactly the delay its site carries, and a scheduler resumes it that much later', async () => {
    const m = seededTiming(1);
    const timer = (delay: number, label: PointLabel = 'mint'): PointSite => ({ label, replica: 0, process: 0, delay });
    expect([m.delay(timer(5)), m.delay(timer(0)), m.delay(timer(0.25)), m.delay(timer(7, 'blob.set'))]).toEqual([5, 0, 0.25, 7]);
    // a timer draws no jitter: the points after it are charged as without it
    const plain = seededTiming(1);
    expect(m.delay(site('consensus.cas'))).toBe(plain.delay(site('consensus.cas')));
    const s = new VirtualTimeScheduler(m);
    const log: string[] = [];
    const run = Promise.all([
      (async () => {
        await s.point(timer(5));
        log.push(`timer@${s.now}`);
      })(),
      (async () => {
        await s.point(site('consensus.cas'));
        log.push('cas');
      })(),
    ]);
    await s.drive(run);
    // the consensus command (4 ms and jitter) comes first; the timer fires at exactly 5 ms
    expect(log).toEqual(['cas', 'timer@5']);
  });

  it('classifies labels', () => {
    expect((['write.stage', 'blob.set', 'consensus.cas', 'shared.push', 'input.advance', 'append'] as const).map((l) => stepKind(l))).toEqual([
      'readiness',
      'blob',
      'consensus',
      'encode',
      'frontier',
      'other',
    ]);
  });
});

describe('prng', () => {
  it('mulberry32 is deterministic and roughly uniform', () => {
    const a = mulberry32(5);
    const b = mulberry32(5);
    const xs = Array.from({ length: 10_000 }, () => a.next());
    expect(xs.slice(0, 5)).toEqual(Array.from({ length: 5 }, () => b.next()));
    const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
    expect(mean).toBeGreaterThan(0.48);
    expect(mean).toBeLessThan(0.52);
    expect(a.below(1)).toBe(0);
  });

  it('hashes coordinates, large seeds included', () => {
    expect(hashInts(1, 2)).not.toBe(hashInts(2, 1));
    expect(hashInts(2 ** 32 + 1)).not.toBe(hashInts(1));
    expect(unitAt(1, 2, 3)).toBeGreaterThanOrEqual(0);
    expect(unitAt(1, 2, 3)).toBeLessThan(1);
  });
});
