import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { POINT_LABELS, STORAGE_OPS } from '../../vocab/index.ts';
import { BoundedChannel } from '../runtime/channel.ts';
import { Deferred } from '../runtime/deferred.ts';
import { Mailbox } from '../runtime/mailbox.ts';
import { Notify } from '../runtime/notify.ts';
import { TaskGroup } from '../runtime/task-group.ts';
import { pointAt, timerAt } from '../runtime/where.ts';
import type { PointSite } from '../seams.ts';
import { drain } from '../test-support/step-scheduler.ts';

describe('BoundedChannel', () => {
  it('accepts up to capacity, wakes a waiting sender when an item is taken, drains after close', async () => {
    const ch = new BoundedChannel<number>(2);
    expect([ch.trySend(1), ch.trySend(2), ch.trySend(3)]).toEqual(['sent', 'sent', 'full']);
    let writable = false;
    void ch.writable().then(() => (writable = true));
    await drain();
    expect(writable).toBe(false);
    expect(ch.tryRecv()).toEqual({ kind: 'item', item: 1 });
    await drain();
    expect(writable).toBe(true);
    ch.close();
    ch.close();
    expect(ch.trySend(4)).toBe('closed');
    expect(ch.tryRecv()).toEqual({ kind: 'item', item: 2 });
    expect(ch.tryRecv()).toEqual({ kind: 'closed' });
    await ch.readable();
    await ch.writable();
    expect(ch.length).toBe(0);
  });

  it('wakes a waiting receiver on send and on close', async () => {
    const ch = new BoundedChannel<number>(1);
    expect(ch.tryRecv()).toEqual({ kind: 'empty' });
    const woke: string[] = [];
    void ch.readable().then(() => woke.push('a'));
    ch.trySend(1);
    await drain();
    ch.tryRecv();
    void ch.readable().then(() => woke.push('b'));
    ch.close();
    await drain();
    expect(woke).toEqual(['a', 'b']);
    expect(ch.closed).toBe(true);
  });
});

describe('Mailbox, Notify, Deferred', () => {
  it('Mailbox delivers in order and ends after close', async () => {
    const m = new Mailbox<number>();
    const got: (number | undefined)[] = [];
    const reader = (async () => {
      for (;;) {
        const x = await m.recv();
        got.push(x);
        if (x === undefined) return;
      }
    })();
    m.send(1);
    m.send(2);
    await drain();
    m.send(3);
    expect(m.takeWhere((x) => x === 3)).toEqual([3]);
    m.close();
    await reader;
    expect(got).toEqual([1, 2, undefined]);
    expect(m.closed).toBe(true);
    expect(m.size).toBe(0);
  });

  it('Notify wakes only the tasks registered before the notification (no stored permit)', async () => {
    const n = new Notify();
    let early = false;
    let late = false;
    void n.register().then(() => (early = true));
    expect(n.waiting).toBe(1);
    n.notifyWaiters();
    void n.register().then(() => (late = true));
    await drain();
    expect([early, late]).toEqual([true, false]);
  });

  it('Deferred settles once and swallows unobserved rejections', async () => {
    const d = new Deferred<number>();
    expect(d.settled).toBe(false);
    d.reject(new Error('nobody listens'));
    expect(d.settled).toBe(true);
    await drain(); // no unhandled rejection
    await expect(d.promise).rejects.toThrow('nobody listens');
  });
});

describe('TaskGroup', () => {
  it('waits for tasks spawned by tasks, and names the running ones', async () => {
    const g = new TaskGroup();
    const order: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    g.spawn('parent', async () => {
      order.push('parent');
      g.spawn('child', async () => {
        await gate;
        order.push('child');
      });
    });
    await drain();
    expect(g.running).toEqual(['child']);
    release();
    await g.whenAllDone();
    expect(order).toEqual(['parent', 'child']);
    await g.whenAllDone(); // already done
  });

  it('rejects with the first failure even while other tasks are blocked', async () => {
    const g = new TaskGroup();
    g.spawn('stuck', () => new Promise<void>(() => undefined));
    g.spawn('fails', async () => {
      throw new Error('boom');
    });
    await expect(g.whenAllDone()).rejects.toThrow('boom');
    expect(g.running).toEqual(['stuck']);
  });
});

describe('pointAt and timerAt', () => {
  it('pass the site to the scheduler; a timer carries its delay, a plain point none', async () => {
    const sites: PointSite[] = [];
    const recorder = { point: (s: PointSite) => (sites.push(s), Promise.resolve()) };
    await pointAt(recorder, 'shared.push', { replica: 1, process: 0, worker: 2 }, 40);
    await timerAt(recorder, 'mint', { replica: 1, process: 0 }, 5);
    expect(sites).toEqual([
      { label: 'shared.push', replica: 1, worker: 2, process: 0, bytes: 40 },
      { label: 'mint', replica: 1, process: 0, delay: 5 },
    ]);
  });
});

describe('scheduling-point labels (vocab POINT_LABELS)', () => {
  it('every label of the vocabulary is passed at some point in impl/, and every label passed is in it', () => {
    const root = fileURLToPath(new URL('..', import.meta.url));
    const sources = readdirSync(root, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.startsWith('test-support'))
      .map((f) => readFileSync(join(root, f), 'utf8'))
      .join('\n');
    // Labels are passed as literals to pointAt or timerAt, or to the supervisor's #persistently (which passes its
    // label on), or as `retry.${op}` by persist's retry loop (typed over the storage ops).
    const passed = new Set([...sources.matchAll(/(?:pointAt|timerAt|#persistently)\([^,]+, '([^']+)'/g)].map((m) => m[1]));
    expect(sources).toContain('`retry.${op}`');
    for (const label of POINT_LABELS) expect(passed, label).toContain(label);
    expect([...passed].filter((l) => !(POINT_LABELS as readonly (string | undefined)[]).includes(l) && !STORAGE_OPS.some((op) => l === `retry.${op}`))).toEqual([]);
  });
});
