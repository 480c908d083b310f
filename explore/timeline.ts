/**
 * One description's life in virtual time, from a run's trace and its scheduling points: per worker when
 * it became ready, what it encoded and uploaded, how long it waited in finish() and when it handed its
 * batch; per process the shared builder's uploads; the append operator's consensus round trips and the
 * commit. The report draws it as a timeline (report/timeline.ts) to show what an append waits for.
 *
 * Which description: replica 0's with the latest last-ready worker (the worst straggler). Readiness is
 * drawn from the seed alone, so every variant of one setup picks the same description.
 */
import type { PointSite } from '../impl/seams.ts';
import type { TraceEvent } from '../vocab/index.ts';
import { stepKind } from './timing.ts';

export type SpanKind = 'not-ready' | 'encode' | 'upload' | 'finish' | 'consensus';

/** What a lane did from `from` to `to` (virtual ms since the mint). */
export interface TimelineSpan {
  readonly kind: SpanKind;
  readonly from: number;
  readonly to: number;
  /** Bytes it moved (encode, upload). */
  readonly bytes?: number;
}

export type MarkKind = 'ready' | 'hand' | 'commit';

export interface TimelineMark {
  readonly kind: MarkKind;
  readonly at: number;
}

export interface TimelineLane {
  readonly label: string;
  readonly spans: readonly TimelineSpan[];
  readonly marks: readonly TimelineMark[];
}

export interface IntervalTimeline {
  /** The description: its shared id and [lower, upper). */
  readonly sharedId: number;
  readonly lower: number;
  readonly upper: number;
  /** Lanes in reading order: workers, then each process's shared builder (when it uploaded), then the append operator. Times are ms after the mint. */
  readonly lanes: readonly TimelineLane[];
  /** When the successful append containing it answered, after the mint (undefined: never in this run). */
  readonly commitAt: number | undefined;
  /** The worker that became ready last, and when. */
  readonly lastReady: { readonly worker: number; readonly at: number };
}

interface Description {
  readonly sharedId: number;
  readonly lower: number;
  readonly upper: number;
  readonly mintAt: number;
  readonly ready: Map<number, number>;
  readonly finishBegin: Map<number, number>;
  readonly spans: Map<string, TimelineSpan[]>;
  readonly marks: Map<string, TimelineMark[]>;
  commitAt?: number;
  end: number;
}

const workerLane = (w: number): string => `worker ${w}`;
const builderLane = (p: number): string => `builder p${p}`;
const APPEND_LANE = 'append';

/** Follows a run (replica 0) and keeps what each description did; `result()` picks the one to draw. */
export class TimelineRecorder {
  private readonly descriptions: Description[] = [];
  private current: Description | undefined;

  /** A scheduling point at virtual time `at` whose step takes `delay`. */
  site(s: PointSite, at: number, delay: number): void {
    const d = this.current;
    if (d === undefined || s.replica !== 0) return;
    const from = at - d.mintAt;
    const to = from + delay;
    const kind = stepKind(s.label);
    if (s.label === 'blob.set') this.span(d, s.worker === undefined ? builderLane(s.process ?? 0) : workerLane(s.worker), { kind: 'upload', from, to, bytes: s.bytes ?? 0 });
    else if (kind === 'encode' && (s.bytes ?? 0) > 0 && s.worker !== undefined) this.span(d, workerLane(s.worker), { kind: 'encode', from, to, bytes: s.bytes ?? 0 });
    else if (kind === 'consensus' && s.worker === undefined) this.span(d, APPEND_LANE, { kind: 'consensus', from, to });
  }

  /** A trace event at virtual time `at`. */
  event(e: TraceEvent, at: number): void {
    if (e.replica !== 0 || (e.sink ?? 0) !== 0) return;
    if (e.kind === 'mint') {
      const d: Description = { sharedId: e.desc.sharedId, lower: e.desc.lower, upper: e.desc.upper, mintAt: at, ready: new Map(), finishBegin: new Map(), spans: new Map(), marks: new Map(), end: at };
      this.descriptions.push(d);
      this.current = d;
      return;
    }
    const d = this.current;
    if (d === undefined) return;
    const t = at - d.mintAt;
    switch (e.kind) {
      case 'stage':
        if (e.sharedId !== d.sharedId) return;
        d.ready.set(e.worker, t);
        this.span(d, workerLane(e.worker), { kind: 'not-ready', from: 0, to: t });
        this.mark(d, workerLane(e.worker), { kind: 'ready', at: t });
        return;
      case 'finish-begin':
        if (e.sharedId === d.sharedId) d.finishBegin.set(e.worker, t);
        return;
      case 'finish-end': {
        const began = d.finishBegin.get(e.worker);
        if (e.sharedId === d.sharedId && began !== undefined) this.span(d, workerLane(e.worker), { kind: 'finish', from: began, to: t });
        return;
      }
      case 'hand':
        if (e.sharedId === d.sharedId) this.mark(d, workerLane(e.worker), { kind: 'hand', at: t });
        return;
      case 'append':
        if (e.result.ok && d.commitAt === undefined && e.lower <= d.lower && d.lower < e.upper) {
          d.commitAt = t;
          this.mark(d, APPEND_LANE, { kind: 'commit', at: t });
        }
        return;
      default:
        return;
    }
  }

  private span(d: Description, lane: string, s: TimelineSpan): void {
    const list = d.spans.get(lane) ?? [];
    list.push(s);
    d.spans.set(lane, list);
    d.end = Math.max(d.end, d.mintAt + s.to);
  }

  private mark(d: Description, lane: string, m: TimelineMark): void {
    const list = d.marks.get(lane) ?? [];
    list.push(m);
    d.marks.set(lane, list);
  }

  /** The description whose last worker became ready latest (the first of equals), with spans up to its commit. */
  result(): IntervalTimeline | undefined {
    let best: { d: Description; worker: number; at: number } | undefined;
    for (const d of this.descriptions) {
      for (const [worker, at] of d.ready) if (best === undefined || at > best.at) best = { d, worker, at };
    }
    if (best === undefined) return undefined;
    const d = best.d;
    const until = d.commitAt ?? Number.POSITIVE_INFINITY;
    const keep = (s: TimelineSpan): boolean => s.from <= until;
    const names = [...new Set([...d.spans.keys(), ...d.marks.keys()])];
    const order = (name: string): number[] => {
      const n = Number(/\d+$/.exec(name)?.[0] ?? 0);
      return name.startsWith('worker') ? [0, n] : name.startsWith('builder') ? [1, n] : [2, n];
    };
    names.sort((a, b) => {
      const [x, y] = [order(a), order(b)];
      return (x[0] ?? 0) - (y[0] ?? 0) || (x[1] ?? 0) - (y[1] ?? 0);
    });
    const lanes = names.map((label) => ({ label, spans: (d.spans.get(label) ?? []).filter(keep), marks: d.marks.get(label) ?? [] }));
    return { sharedId: d.sharedId, lower: d.lower, upper: d.upper, lanes, commitAt: d.commitAt, lastReady: { worker: best.worker, at: best.at } };
  }
}
