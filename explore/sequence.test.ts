import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../vocab/index.ts';
import { diagramFile, failureSequence, sequenceOf, toMermaid, toSvg } from './sequence.ts';

const ref = (worker: number) => ({ replica: 0, process: 0, worker, sharedId: 0 });
const batch = { updates: [0, 1], parts: { hollow: 1, inline: 0 }, partBytes: [] };
/** Best-effort with a late handle: worker 1 opens after worker 0 finished, so a second builder instance. */
const trace: TraceEvent[] = [
  { kind: 'frontier', replica: 0, upper: 1 },
  { kind: 'mint', replica: 0, desc: { lower: 0, upper: 1, appendWorker: 0, sharedId: 0, maxBytes: 1024, barrier: false } },
  { kind: 'stage', ...ref(0), updates: [0], bytes: 10, route: 'shared' },
  { kind: 'open', ...ref(0), created: true, participants: null },
  { kind: 'push', ...ref(0), updates: [0] },
  { kind: 'finish-begin', ...ref(0), last: true },
  { kind: 'finish-end', ...ref(0), received: { updates: [0], parts: { hollow: 0, inline: 1 }, partBytes: [] } },
  { kind: 'stage', ...ref(1), updates: [1], bytes: 10, route: 'shared' },
  { kind: 'open', ...ref(1), created: true, participants: null },
  { kind: 'push', ...ref(1), updates: [1] },
  { kind: 'finish-begin', ...ref(1), last: true },
  { kind: 'finish-end', ...ref(1), received: null },
  { kind: 'hand', ...ref(0), batches: [batch] },
  { kind: 'hand', ...ref(1), batches: [] },
  { kind: 'sweep', replica: 0, process: 0, removed: [0] },
  { kind: 'append', replica: 0, lower: 0, upper: 1, batches: 1, parts: { hollow: 1, inline: 0 }, runs: 1, updates: [0, 1], result: { ok: true } },
];

describe('sequenceOf', () => {
  it('has a lane per worker, per builder instance, the registry, the append operator and the shard, in reading order', () => {
    const s = sequenceOf(trace, { title: 't' });
    expect(s.lanes.map((l) => l.label)).toEqual(['mint', 'worker 0', 'worker 1', 'builder id 0 #1', 'builder id 0 #2', 'registry p0', 'append', 'shard']);
    const late = s.steps.filter((x) => x.kind === 'message' && x.from === 'W0_1').map((x) => (x.kind === 'message' ? x.to : ''));
    // the late worker talks to the second instance only
    expect(new Set(late)).toEqual(new Set(['B0_0_0_2', 'A0']));
    expect(s.steps.filter((x) => x.index === 15)).toHaveLength(2); // the append and its reply
  });

  it('draws an event without a drawing of its own as a note over its actor, in readable words (no JSON)', () => {
    const fault = [
      { kind: 'abort', replica: 0, worker: 1, reason: 'teardown' },
      { kind: 'restart', replica: 1, process: 0, lower: 2 },
      { kind: 'cas-indeterminate', replica: 0, lower: 3 },
    ] as unknown as TraceEvent[];
    const s = sequenceOf(fault, { title: 'faults' });
    expect(s.steps).toEqual([
      { kind: 'note', index: 0, over: 'W0_1', text: 'abort (teardown)' },
      { kind: 'note', index: 1, over: 'R1_0', text: 'restart → lower 2' },
      { kind: 'note', index: 2, over: 'A0', text: 'cas-indeterminate lower=3' },
    ]);
    expect(s.lanes.map((l) => l.label)).toEqual(['r0 worker 1', 'r0 append', 'r1 registry p0']);
  });
});

describe('several MV sinks', () => {
  it('gives each sink its own mint, workers, builders, append and shard, the registry they share after them', () => {
    const desc = { lower: 0, upper: 1, appendWorker: 0, sharedId: 0, maxBytes: 8192, barrier: false };
    const two: TraceEvent[] = [
      { kind: 'mint', replica: 0, desc },
      { kind: 'mint', replica: 0, sink: 1, desc },
      { kind: 'stage', ...ref(0), updates: [0], bytes: 19, route: 'shared' },
      { kind: 'stage', ...ref(0), sink: 1, updates: [1], bytes: 22, route: 'shared' },
      { kind: 'open', ...ref(0), created: true, participants: null },
      { kind: 'open', ...ref(0), sink: 1, created: true, participants: null },
      { kind: 'sweep', replica: 0, process: 0, worker: 0, sink: 1, removed: [] },
    ];
    const s = sequenceOf(two, { title: 't' });
    expect(s.lanes.map((l) => l.label)).toEqual([
      'sink 0 mint', 'sink 0 worker 0', 'sink 0 builder id 0 #1', 'sink 0 append',
      'sink 1 mint', 'sink 1 worker 0', 'sink 1 builder id 0 #1', 'sink 1 append',
      'registry p0',
    ]);
    // the same id in two sinks: two builders, one per sink
    expect(s.steps.filter((x) => x.kind === 'message' && x.text.startsWith('open')).map((x) => (x.kind === 'message' ? x.to : ''))).toEqual(['B0_0_0_1', 'B0_s1_0_0_1']);
  });
});

describe('Mermaid', () => {
  it('writes a sequenceDiagram with participants, calls, replies and the mark in a red box', () => {
    const m = toMermaid(sequenceOf(trace, { title: 'late #handle; x', mark: { index: 8, text: 'model diverged: open.created expected false' }, notes: ['replay: sbkit check --replay sb1.x'] }));
    const lines = m.split('\n');
    expect(lines[0]).toBe('sequenceDiagram');
    expect(lines[1]).toBe('  title late #35;handle#59; x');
    expect(lines).toContain('  participant B0_0_0_2 as builder id 0 #35;2');
    expect(lines).toContain('  W0_0->>B0_0_0_1: 3: open id 0: creates');
    expect(lines).toContain('  B0_0_0_1-->>W0_0: 6: batch: 1 update, 1 inline');
    const rect = lines.indexOf('  rect rgb(255, 224, 224)');
    expect(lines.slice(rect, rect + 4)).toEqual([
      '  rect rgb(255, 224, 224)',
      '    W0_1->>B0_0_0_2: 8: open id 0: creates',
      '    Note over M0,S: ✘ model diverged: open.created expected false',
      '  end',
    ]);
    expect(lines).toContain('  %% replay: sbkit check --replay sb1.x');
    expect(m.split('\n').filter((l) => l.includes('->>')).every((l) => !/[;#](?!\d+;)/.test(l.split(': ').slice(1).join(': ')))).toBe(true);
  });

  it('puts a mark after the last event when the run failed without a divergence', () => {
    const m = toMermaid(sequenceOf(trace.slice(0, 3), { title: 't', mark: { index: 3, text: 'deadlock' } }));
    expect(m.trimEnd().split('\n').pop()).toBe('  Note over M0,A0: ✘ deadlock');
  });

  it('fences the diagram in Markdown for a .md file', () => {
    const seq = sequenceOf(trace, { title: 'T', notes: ['n1'] });
    expect(diagramFile(seq, 'x.mmd')).toBe(toMermaid(seq));
    expect(diagramFile(seq, 'x.MD')).toMatch(/^# T\n\n```mermaid\nsequenceDiagram\n[\s\S]*```\n\n- n1\n$/);
  });
});

describe('SVG', () => {
  it('draws lanes, one row per step, arrows for calls and the marked event', () => {
    const svg = toSvg(sequenceOf(trace, { title: 'late handle', mark: { index: 8, text: 'diverged here' } }));
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg" class="sequence"')).toBe(true);
    expect(svg.match(/<rect class="seq-lane"/g)).toHaveLength(8);
    expect(svg.match(/<g class="seq-message">/g)).toHaveLength(13);
    expect(svg.match(/<g class="seq-note">/g)).toHaveLength(4);
    expect(svg.match(/stroke-dasharray="5 3"/g)).toHaveLength(3); // two finish-end replies, the append's
    expect(svg).toContain('<rect class="seq-diverged"');
    expect(svg).toContain('✘ diverged here');
    expect(svg).not.toMatch(/<script|href=/);
    expect(toSvg(sequenceOf(trace, { title: 'late handle' }))).not.toContain('seq-mark');
  });
});

describe('failureSequence', () => {
  const run = (failures: { kind: string; check: string; why: string; at?: number }[]) => ({ trace, failures, workload: { variant: 'best-effort' }, bug: 'late-handle-joins-finished-builder', outcome: 'settled' });

  it('marks the event where the model diverged, and lists every failure and the replay', () => {
    const s = failureSequence(run([{ kind: 'property', check: 'p', why: 'lost' }, { kind: 'refinement', check: 'trace-refines-model', why: 'event #8: created expected false\n more', at: 8 }]), 'sb1.tok');
    expect(s.mark).toEqual({ index: 8, text: 'model diverged: [refinement] trace-refines-model: event #8: created expected false' });
    expect(s.title).toBe('best-effort with bug late-handle-joins-finished-builder: shrunk counterexample (16 events, run settled)');
    expect(s.notes).toEqual(['[property] p: lost', '[refinement] trace-refines-model: event #8: created expected false', 'replay: sbkit check --replay sb1.tok']);
  });

  it('marks after the last event when only a property, the audit or liveness failed', () => {
    expect(failureSequence(run([{ kind: 'liveness', check: 'no-deadlock', why: 'deadlock' }])).mark).toEqual({ index: 16, text: '[liveness] no-deadlock: deadlock' });
  });
});
