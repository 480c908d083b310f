/** viewFromTrace folds in events the model would reject (a buggy implementation's) without throwing. */
import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../vocab/index.ts';
import { noBatchToNobody, noLeakedParts } from './properties.ts';
import { viewFromTrace, type ViewConfig } from './view.ts';

const cfg: ViewConfig = {
  variant: 'best-effort',
  replicas: 1,
  processes: 1,
  workersPerProcess: 2,
  intervals: 1,
  updates: [
    { id: 1, time: 0, worker: 1 },
    { id: 0, time: 0, worker: 0 },
  ],
};
const w = (worker: number) => ({ replica: 0, process: 0, worker, sharedId: 0 });

describe('viewFromTrace', () => {
  it('sorts the desired updates and starts the shard at 0', () => {
    const v = viewFromTrace(cfg, [], { final: false });
    expect(v.desired).toEqual([
      { id: 0, time: 0 },
      { id: 1, time: 0 },
    ]);
    expect(v.shardUppers).toEqual([0]);
    expect(v.final).toBe(false);
  });

  it('a dropped handle closing a builder with data delivers it to nobody (drop-without-finish)', () => {
    const trace: TraceEvent[] = [
      { kind: 'open', ...w(0), created: true, participants: null },
      { kind: 'push', ...w(0), updates: [0] },
      { kind: 'drop', ...w(0), closed: true },
      { kind: 'drop', ...w(0), closed: true },
    ];
    const v = viewFromTrace(cfg, trace, { final: true });
    expect(v.builders[0]).toMatchObject({ deliveredToNobody: true, receivers: 0, updates: [0] });
    expect(v.batches.written).toBe(1);
    expect(noBatchToNobody.check(v).ok).toBe(false);
    expect(noLeakedParts.check(v).ok).toBe(false);
  });

  it('tolerates events out of protocol order', () => {
    const trace: TraceEvent[] = [
      { kind: 'push', ...w(1), updates: [1] },
      { kind: 'open', ...w(1), created: false, participants: null },
      { kind: 'finish-end', ...w(0), received: { updates: [0], parts: { hollow: 0, inline: 1 }, partBytes: [] } },
      { kind: 'hand', ...w(0), batches: [{ updates: [0], parts: { hollow: 0, inline: 1 }, partBytes: [] }] },
      { kind: 'delete', replica: 0, lower: 0, batches: 1, reason: 'stale' },
      {
        kind: 'append',
        replica: 0,
        lower: 0,
        upper: 1,
        batches: 1,
        parts: { hollow: 0, inline: 1 },
        runs: 1,
        updates: [0],
        result: { ok: true },
      },
      { kind: 'delete', replica: 0, lower: 0, batches: 1, reason: 'mismatch' },
      { kind: 'delete', replica: 0, lower: 0, batches: 1, reason: 'mismatch' },
      { kind: 'sweep-release', replica: 0, process: 0, sharedId: 5, closed: true },
    ];
    const v = viewFromTrace(cfg, trace, { final: true });
    expect(v.builders).toHaveLength(1);
    expect(v.builders[0]).toMatchObject({ instance: 0, handles: 1, updates: [] });
    expect(v.appends[0]).toMatchObject({ sharedId: -1, maxBytes: 0, deleted: 2, batches: [{ worker: 0, route: 'own' }] });
    expect(v.batches).toEqual({ written: 1, appended: 1, deleted: 3, abandoned: 0 });
  });
});
