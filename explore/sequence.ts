/**
 * A protocol trace as a sequence diagram: Mermaid `sequenceDiagram` text (for files: `sbkit check
 * --emit-diagram`, `sbkit model --check --emit-diagram`) and an inline SVG drawn here (for the report,
 * which loads nothing).
 *
 * Lanes, in this order: per replica its mint operator, its workers, each builder instance (a new one per
 * `open` that created a builder state; a late best-effort handle gets its own), the registry of each
 * process (sweeps, early skips), the append operator; then the shard. Each event is one step, numbered
 * by its 0-based trace index as in `sbkit check` output.
 *
 * Every `TraceEvent` kind is drawn: the protocol's kinds as messages between lanes (or notes), and any
 * other kind — such as fault events added to the vocabulary later — generically, as a note over the
 * lane of its actor (the worker if it names one, else its process's registry, else its replica's append
 * operator), listing its fields. The event where the model diverged is marked (a red band and a note).
 */
import type { BatchSummary, PartsSummary, TraceEvent } from '../vocab/index.ts';
import { eventText } from '../conformance/event-text.ts';
import { BOLD_CHAR_EM, CHAR_EM, escapeXml } from './svg.ts';

export type LaneKind = 'mint' | 'worker' | 'builder' | 'registry' | 'append' | 'shard';

export interface Lane {
  /** A Mermaid-safe identifier (letters, digits, underscores). */
  readonly id: string;
  readonly label: string;
  readonly kind: LaneKind;
}

export type Step =
  | { readonly kind: 'message'; readonly index: number; readonly from: string; readonly to: string; readonly text: string; readonly reply: boolean }
  | { readonly kind: 'note'; readonly index: number; readonly over: string; readonly text: string };

/** Where and why the run went wrong: the event's 0-based trace index (the trace's length: after the last). */
export interface Mark {
  readonly index: number;
  readonly text: string;
}

export interface Sequence {
  readonly title: string;
  readonly lanes: readonly Lane[];
  readonly steps: readonly Step[];
  readonly mark?: Mark | undefined;
  /** Lines said under the diagram (what failed, how to replay). */
  readonly notes: readonly string[];
}

export interface SequenceOptions {
  readonly title: string;
  /** The event to mark, e.g. where the model diverged. Omitted: nothing is marked. */
  readonly mark?: Mark | undefined;
  readonly notes?: readonly string[] | undefined;
  /** The number shown for the first event: 0 as in `sbkit check` (the default), 1 as in `sbkit model --check`. */
  readonly firstIndex?: number | undefined;
}

// ---------------------------------------------------------------------------------------------------
// Trace → steps

const updatesText = (n: number): string => `${n} update${n === 1 ? '' : 's'}`;
const partsText = (p: PartsSummary): string => {
  const kinds = [...(p.hollow > 0 ? [`${p.hollow} hollow`] : []), ...(p.inline > 0 ? [`${p.inline} inline`] : [])];
  return kinds.length === 0 ? 'no parts' : kinds.join(' + ');
};
/** Whose builder() call a sweep event belongs to, as a prefix (none for another sink's). */
const sweeper = (e: { readonly worker?: number }): string => (e.worker === undefined ? '' : `w${e.worker}'s builder(): `);
const batchText = (b: BatchSummary): string => `${updatesText(b.updates.length)}, ${partsText(b.parts)}`;
const ids = (xs: readonly number[]): string => (xs.length <= 6 ? `[${xs.join(',')}]` : `[${xs.slice(0, 5).join(',')},…+${xs.length - 5}]`);

class LaneSet {
  private readonly byId = new Map<string, { lane: Lane; key: readonly number[] }>();
  /** Builder instance lanes, current per (replica, sink, process, id). */
  private readonly currentBuilder = new Map<string, string>();
  private readonly instances = new Map<string, number>();
  /** Which instance a worker's handle for (replica, sink, id) is on. */
  private readonly handleOf = new Map<string, string>();
  private readonly replicas: number;
  private readonly sinks: number;

  constructor(trace: readonly TraceEvent[]) {
    this.replicas = new Set(trace.map((e) => e.replica)).size;
    this.sinks = new Set(trace.map((e) => e.sink ?? 0)).size;
  }

  private prefix(replica: number, sink: number): string {
    return `${this.replicas > 1 ? `r${replica} ` : ''}${this.sinks > 1 ? `sink ${sink} ` : ''}`;
  }

  /** A lane, ordered by `key`: replica, MV sink (the registries after every sink's lanes), kind, numbers. */
  private lane(id: string, label: string, kind: LaneKind, key: readonly number[]): string {
    if (!this.byId.has(id)) this.byId.set(id, { lane: { id, label, kind }, key });
    return id;
  }

  mint(r: number, s: number): string {
    return this.lane(`M${r}${sfx(s)}`, `${this.prefix(r, s)}mint`, 'mint', [r, s, 0]);
  }
  worker(r: number, w: number, s: number): string {
    return this.lane(`W${r}${sfx(s)}_${w}`, `${this.prefix(r, s)}worker ${w}`, 'worker', [r, s, 1, w]);
  }
  registry(r: number, p: number): string {
    return this.lane(`R${r}_${p}`, `${this.prefix(r, 0).replace(/sink \d+ /, '')}registry p${p}`, 'registry', [r, this.sinks > 1 ? Number.MAX_SAFE_INTEGER : 0, 3, p]);
  }
  append(r: number, s: number): string {
    return this.lane(`A${r}${sfx(s)}`, `${this.prefix(r, s)}append`, 'append', [r, s, 4]);
  }
  /** The shard MV sink `s` writes (each sink has its own). */
  shard(s: number): string {
    return this.lane(`S${sfx(s)}`, this.sinks > 1 ? `sink ${s} shard` : 'shard', 'shard', [Number.MAX_SAFE_INTEGER, s]);
  }

  /** A new builder instance for (r, s, p, id), e.g. `builder id 0 #2` for its second instance. */
  newBuilder(r: number, p: number, id: number, s: number): string {
    const key = `${r}/${s}/${p}/${id}`;
    const n = (this.instances.get(key) ?? 0) + 1;
    this.instances.set(key, n);
    const lane = this.lane(`B${r}${sfx(s)}_${p}_${id}_${n}`, `${this.prefix(r, s)}builder id ${id} #${n}`, 'builder', [r, s, 2, p, id, n]);
    this.currentBuilder.set(key, lane);
    return lane;
  }
  /** The live builder instance for (r, s, p, id): the last one created, or a first one if none was. */
  builder(r: number, p: number, id: number, s: number): string {
    return this.currentBuilder.get(`${r}/${s}/${p}/${id}`) ?? this.newBuilder(r, p, id, s);
  }
  hasBuilder(r: number, p: number, id: number, s: number): boolean {
    return this.currentBuilder.has(`${r}/${s}/${p}/${id}`);
  }
  bindHandle(r: number, w: number, id: number, s: number, lane: string): void {
    this.handleOf.set(`${r}/${s}/${w}/${id}`, lane);
  }
  handle(r: number, p: number, w: number, id: number, s: number): string {
    return this.handleOf.get(`${r}/${s}/${w}/${id}`) ?? this.builder(r, p, id, s);
  }

  /** Lanes in reading order: per replica and MV sink its mint, workers, builders, registries, append; the shard last. */
  ordered(): Lane[] {
    const cmp = (x: readonly number[], y: readonly number[]): number => {
      for (let i = 0; i < Math.max(x.length, y.length); i++) {
        const c = (x[i] ?? -1) - (y[i] ?? -1);
        if (c !== 0) return c;
      }
      return 0;
    };
    return [...this.byId.values()].sort((a, b) => cmp(a.key, b.key)).map((x) => x.lane);
  }
}

/** A lane id's suffix for MV sink `s` (none for sink 0). */
const sfx = (s: number): string => (s === 0 ? '' : `_s${s}`);

/** The steps of one event (most are one message or note; an append is a request and its reply). */
function stepsOf(lanes: LaneSet, e: TraceEvent, index: number): Step[] {
  const msg = (from: string, to: string, text: string, reply = false): Step => ({ kind: 'message', index, from, to, text, reply });
  const note = (over: string, text: string): Step => ({ kind: 'note', index, over, text });
  const s = e.sink ?? 0;
  switch (e.kind) {
    case 'frontier':
      return [note(lanes.mint(e.replica, s), `frontier → upper ${e.upper}`)];
    case 'mint':
      return [msg(lanes.mint(e.replica, s), lanes.append(e.replica, s), `mint id ${e.desc.sharedId} [${e.desc.lower},${e.desc.upper}) to w${e.desc.appendWorker}, knob ${e.desc.maxBytes} B${e.desc.barrier ? ', barrier' : ''}`)];
    case 'poll':
      return [msg(lanes.mint(e.replica, s), lanes.shard(s), `poll: read the shard's upper (id ${e.sharedId} may be superseded)`)];
    case 'stage':
      return [note(lanes.worker(e.replica, e.worker, s), `stage ${updatesText(e.updates.length)} ${ids(e.updates)}, ${e.bytes} B → ${e.route}`)];
    case 'open': {
      const w = lanes.worker(e.replica, e.worker, s);
      const b = e.created ? lanes.newBuilder(e.replica, e.process, e.sharedId, s) : lanes.builder(e.replica, e.process, e.sharedId, s);
      lanes.bindHandle(e.replica, e.worker, e.sharedId, s, b);
      return [msg(w, b, e.created ? `open id ${e.sharedId}: creates` : `open id ${e.sharedId}: joins`)];
    }
    case 'push':
      return [msg(lanes.worker(e.replica, e.worker, s), lanes.handle(e.replica, e.process, e.worker, e.sharedId, s), `push ${updatesText(e.updates.length)} ${ids(e.updates)}`)];
    case 'finish-begin':
      return [msg(lanes.worker(e.replica, e.worker, s), lanes.handle(e.replica, e.process, e.worker, e.sharedId, s), `finish${e.last ? ' (last)' : ''}`)];
    case 'finish-end':
      return [msg(lanes.handle(e.replica, e.process, e.worker, e.sharedId, s), lanes.worker(e.replica, e.worker, s), e.received === null ? 'None' : `batch: ${batchText(e.received)}`, true)];
    case 'skip': {
      const w = lanes.worker(e.replica, e.worker, s);
      const to = e.early || !lanes.hasBuilder(e.replica, e.process, e.sharedId, s) ? lanes.registry(e.replica, e.process) : lanes.builder(e.replica, e.process, e.sharedId, s);
      return [msg(w, to, `skip id ${e.sharedId}${e.early ? ' (early: recorded)' : ''}`)];
    }
    case 'own-batch':
      return [note(lanes.worker(e.replica, e.worker, s), `own batch: ${batchText(e.batch)}`)];
    case 'hand': {
      const n = e.batches.length;
      const what = n === 0 ? 'hand: no batch' : `hand ${n === 1 ? '1 batch' : `${n} batches`}: ${e.batches.map(batchText).join('; ')}`;
      return [msg(lanes.worker(e.replica, e.worker, s), lanes.append(e.replica, s), what)];
    }
    case 'append': {
      const a = lanes.append(e.replica, s);
      const shard = lanes.shard(s);
      const n = e.batches === 1 ? '1 batch' : `${e.batches} batches`;
      const result = e.result.ok ? 'ok' : `UpperMismatch: shard at ${e.result.current}`;
      return [msg(a, shard, `compare_and_append [${e.lower},${e.upper}) ${n}, ${partsText(e.parts)}, ${updatesText(e.updates.length)}`), msg(shard, a, result, true)];
    }
    case 'delete':
      return [msg(lanes.append(e.replica, s), lanes.shard(s), `delete ${e.batches === 1 ? '1 batch' : `${e.batches} batches`} (${e.reason})`)];
    case 'backpressure':
      return [msg(lanes.shard(s), lanes.append(e.replica, s), `inline backpressure: flush ${e.flushed} inline part${e.flushed === 1 ? '' : 's'} to blob, retry`, true)];
    case 'bump':
      return [msg(lanes.append(e.replica, s), lanes.shard(s), `bump: empty append [${e.from},${e.to})`)];
    // a sweep is a builder() call's, under the registry's lock: drawn on the registry's lane, naming the caller
    case 'sweep':
      return [note(lanes.registry(e.replica, e.process), `${sweeper(e)}sweep: removed ${ids(e.removed)}`)];
    case 'sweep-hold':
      return [msg(lanes.registry(e.replica, e.process), lanes.builder(e.replica, e.process, e.sharedId, s), `${sweeper(e)}sweep holds a reference`)];
    case 'sweep-release':
      return [msg(lanes.registry(e.replica, e.process), lanes.builder(e.replica, e.process, e.sharedId, s), `${sweeper(e)}sweep releases${e.closed ? ': closes it, batch to nobody' : ''}`)];
    case 'drop':
      return [msg(lanes.worker(e.replica, e.worker, s), lanes.handle(e.replica, e.process, e.worker, e.sharedId, s), `drop without finish${e.closed ? ': closes it, batch to nobody' : ''}`)];
    default:
      return [genericNote(lanes, e, index)];
  }
}

/** An event without a drawing of its own (faults, aborts, restarts, cleanups, and any kind added later): a
 * note over its actor's lane — the worker if it names one, else its process's registry, else its replica's
 * append operator — in the words of the one trace printer (conformance/event-text.ts), never raw JSON. */
function genericNote(lanes: LaneSet, e: TraceEvent, index: number): Step {
  const f = e as unknown as Record<string, unknown>;
  const replica = e.replica;
  const s = e.sink ?? 0;
  const over =
    typeof f['worker'] === 'number'
      ? lanes.worker(replica, f['worker'], s)
      : typeof f['process'] === 'number'
        ? lanes.registry(replica, f['process'])
        : lanes.append(replica, s);
  return { kind: 'note', index, over, text: eventText(e) };
}

export function sequenceOf(trace: readonly TraceEvent[], opts: SequenceOptions): Sequence {
  const lanes = new LaneSet(trace);
  const base = opts.firstIndex ?? 0;
  const steps = trace.flatMap((e, i) => stepsOf(lanes, e, i + base));
  const mark = opts.mark === undefined ? undefined : { ...opts.mark, index: opts.mark.index + base };
  return { title: opts.title, lanes: lanes.ordered(), steps, mark, notes: opts.notes ?? [] };
}

// ---------------------------------------------------------------------------------------------------
// Mermaid

/** Message text Mermaid reads literally: `#` and `;` as entity codes (else they start an entity or end a statement). */
const mermaidText = (s: string): string => s.replace(/[#;]/g, (c) => (c === '#' ? '#35;' : '#59;')).replace(/\n/g, ' ');

export function toMermaid(seq: Sequence): string {
  const lines = ['sequenceDiagram', `  title ${mermaidText(seq.title)}`];
  for (const l of seq.lanes) lines.push(`  participant ${l.id} as ${mermaidText(l.label)}`);
  const first = seq.lanes[0]?.id;
  const last = seq.lanes[seq.lanes.length - 1]?.id;
  const markNote = (m: Mark): string => `  Note over ${first ?? 'S'},${last ?? 'S'}: ✘ ${mermaidText(m.text)}`;
  let marked = false;
  for (const s of seq.steps) {
    const isMark = seq.mark !== undefined && s.index === seq.mark.index;
    if (isMark && !marked) lines.push('  rect rgb(255, 224, 224)');
    const text = `${s.index}: ${mermaidText(s.text)}`;
    const line = s.kind === 'note' ? `  Note over ${s.over}: ${text}` : `  ${s.from}${s.reply ? '-->>' : '->>'}${s.to}: ${text}`;
    lines.push(isMark ? `  ${line}` : line);
    const next = seq.steps[seq.steps.indexOf(s) + 1];
    if (isMark && next?.index !== s.index && seq.mark !== undefined) {
      lines.push(`  ${markNote(seq.mark)}`, '  end');
      marked = true;
    }
  }
  if (seq.mark !== undefined && !marked) lines.push(markNote(seq.mark));
  for (const n of seq.notes) lines.push(`  %% ${n.replace(/\n/g, ' ')}`);
  return `${lines.join('\n')}\n`;
}

/** A diagram file: Mermaid source, or for a `.md` path a Markdown page with it fenced (renders on GitHub). */
export function diagramFile(seq: Sequence, path: string): string {
  const mermaid = toMermaid(seq);
  if (!path.toLowerCase().endsWith('.md')) return mermaid;
  const notes = seq.notes.map((n) => `- ${n}`).join('\n');
  return `# ${seq.title}\n\n\`\`\`mermaid\n${mermaid}\`\`\`\n${notes === '' ? '' : `\n${notes}\n`}`;
}

// ---------------------------------------------------------------------------------------------------
// SVG

/** A lane's width: as wide as this, narrower when there are many lanes (so the drawing fits the report's page), never below the minimum. */
const LANE_W = 150;
const MIN_LANE_W = 96;
/** The width the drawing aims to fit (the report's content column at 1400 px). */
const FIT_WIDTH = 1160;
const ROW_H = 30;
const HEAD_H = 44;
const TOP = 34;
const LEFT = 34;
const f1 = (v: number): string => v.toFixed(1);

const LANE_FILL: Readonly<Record<LaneKind, string>> = {
  mint: '#eef2f7',
  worker: '#e8f1fb',
  builder: '#fdf1dc',
  registry: '#f1ecf7',
  append: '#e9f5ec',
  shard: '#ececec',
};

/** Advance of one character at the diagram's font size (10.5 px): an upper bound (svg.ts CHAR_EM), bold the same for bold text. */
const CHAR_W = 10.5 * CHAR_EM;
const BOLD_W = 10.5 * BOLD_CHAR_EM;
/** Line height of wrapped text. */
const LINE_H = 13;

/** Text broken into lines of at most `chars` characters, between words (a longer word is cut into pieces): nothing is left out. */
export function wrapLines(text: string, chars: number): string[] {
  const max = Math.max(8, chars);
  const out: string[] = [];
  let cur = '';
  for (const word of text.split(' ')) {
    for (let w = word; w.length > 0; ) {
      const room = cur === '' ? max : max - cur.length - 1;
      if (w.length <= room) {
        cur = cur === '' ? w : `${cur} ${w}`;
        w = '';
      } else if (cur !== '') {
        out.push(cur);
        cur = '';
      } else {
        out.push(w.slice(0, max));
        w = w.slice(max);
      }
    }
  }
  if (cur !== '' || out.length === 0) out.push(cur);
  return out;
}

/** `<text>` lines starting at `y`, each a `<tspan>` at `x`. */
function textLines(lines: readonly string[], x: number, y: number, attrs: string, tip = ''): string {
  return `<text x="${f1(x)}" y="${f1(y)}"${attrs}>${lines.map((l, i) => `<tspan x="${f1(x)}" dy="${i === 0 ? 0 : LINE_H}">${escapeXml(l)}</tspan>`).join('')}${tip}</text>`;
}

/**
 * The sequence as a standalone SVG: lanes as columns with a header box, one row per step, messages as
 * arrows (replies dashed) labelled above, notes as boxes over their lane; the marked event in a red band
 * with its reason. Every text is drawn whole: a label runs past a short arrow (each step has its own
 * row), and what does not fit the drawing's width wraps onto more lines (the row grows). Deterministic;
 * only inline attributes (no CSS, no scripts).
 */
export function toSvg(seq: Sequence): string {
  const n = seq.lanes.length;
  const laneW = Math.max(MIN_LANE_W, Math.min(LANE_W, Math.floor((FIT_WIDTH - LEFT - 16) / Math.max(1, n))));
  /** Characters of a lane's label per line in its header box. */
  const labelChars = Math.floor((laneW - 16) / BOLD_W);
  const x = new Map(seq.lanes.map((l, i) => [l.id, LEFT + laneW / 2 + i * laneW]));
  const width = LEFT + n * laneW + 16;
  const bodyTop = TOP + HEAD_H + 10;
  const xOf = (id: string): number => x.get(id) ?? LEFT;
  const inner = width - LEFT - 8;
  const body: string[] = [];
  let y = bodyTop;
  const markBand = (m: Mark): void => {
    const lines = wrapLines(`✘ ${m.text}`, Math.floor((width - 24) / BOLD_W));
    const h = ROW_H - 4 + (lines.length - 1) * LINE_H;
    body.push(`<g class="seq-mark"><rect x="4" y="${f1(y - 4)}" width="${width - 8}" height="${f1(h)}" fill="#b00020" rx="3"/>${textLines(lines, 12, y + 13, ' fill="#fff" font-weight="700"', `<title>${escapeXml(m.text)}</title>`)}</g>`);
    y += h + 4;
  };
  for (const [i, s] of seq.steps.entries()) {
    const isMark = seq.mark !== undefined && s.index === seq.mark.index;
    const tip = `<title>${escapeXml(`#${s.index}: ${s.text}`)}</title>`;
    let rowH = ROW_H;
    const parts: string[] = [];
    if (s.kind === 'note') {
      const lines = wrapLines(s.text, Math.floor((inner - 12) / CHAR_W));
      const longest = Math.max(...lines.map((l) => l.length));
      const w = Math.min(Math.max(285, longest * CHAR_W + 12), inner);
      // centred on its lane, kept inside the drawing
      const cx = Math.min(Math.max(xOf(s.over), LEFT + w / 2), width - 8 - w / 2);
      const h = ROW_H - 8 + (lines.length - 1) * LINE_H;
      rowH = h + 8;
      parts.push(
        `<g class="seq-note"><rect x="${f1(cx - w / 2)}" y="${f1(y)}" width="${f1(w)}" height="${f1(h)}" rx="2" fill="#fffbe6" stroke="#c9b458">${tip}</rect>` +
          `${textLines(lines, cx, y + 14, ' text-anchor="middle"', tip)}</g>`,
      );
    } else {
      const lines = wrapLines(s.text, Math.floor(inner / CHAR_W));
      const extra = (lines.length - 1) * LINE_H;
      rowH = ROW_H + extra;
      const x1 = xOf(s.from);
      const x2 = xOf(s.to);
      const ay = y + 18 + extra;
      const tw = Math.max(...lines.map((l) => l.length)) * CHAR_W;
      // a label may run past a short arrow (each step has its own row), kept inside the drawing
      const mid = Math.min(Math.max((x1 + x2) / 2, LEFT + tw / 2), width - 8 - tw / 2);
      parts.push(
        `<g class="seq-message"><line x1="${f1(x1)}" x2="${f1(x2 + (x2 > x1 ? -2 : 2))}" y1="${f1(ay)}" y2="${f1(ay)}" stroke="#333" stroke-width="1.2"${s.reply ? ' stroke-dasharray="5 3"' : ''} marker-end="url(#arr)"/>` +
          `${textLines(lines, mid, ay - 5 - extra, ' text-anchor="middle"', tip)}</g>`,
      );
    }
    if (isMark) body.push(`<rect class="seq-diverged" x="4" y="${f1(y - 4)}" width="${width - 8}" height="${f1(rowH)}" fill="#fde2e2"/>`);
    if (seq.steps[i - 1]?.index !== s.index) {
      body.push(`<text class="seq-index" x="8" y="${f1(y + 15)}" fill="${isMark ? '#b00020' : '#777'}" font-weight="${isMark ? 700 : 400}">${s.index}</text>`);
    }
    body.push(...parts);
    y += rowH;
    if (isMark && seq.steps[i + 1]?.index !== s.index && seq.mark !== undefined) markBand(seq.mark);
  }
  if (seq.mark !== undefined && !seq.steps.some((s) => s.index === seq.mark?.index)) markBand(seq.mark);
  const height = y + 20;
  const titleLines = wrapLines(seq.title, Math.floor((width - LEFT - 8) / (13 * BOLD_CHAR_EM)));
  const head: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" class="sequence" viewBox="0 0 ${width} ${f1(height + (titleLines.length - 1) * 16)}" width="${width}" height="${f1(height + (titleLines.length - 1) * 16)}" role="img" aria-label="${escapeXml(seq.title)}" font-family="system-ui, sans-serif" font-size="10.5" fill="#222">`,
    `<title>${escapeXml(seq.title)}</title>`,
    `<defs><marker id="arr" viewBox="0 0 8 8" refX="7.5" refY="4" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0 0L8 4L0 8Z" fill="#333"/></marker></defs>`,
    `<text class="seq-title" x="${LEFT}" y="18" font-size="13" font-weight="600">${titleLines.map((l, i) => `<tspan x="${LEFT}" dy="${i === 0 ? 0 : 16}">${escapeXml(l)}</tspan>`).join('')}</text>`,
  ];
  const shift = (titleLines.length - 1) * 16;
  const lanes: string[] = [];
  for (const l of seq.lanes) {
    const cx = xOf(l.id);
    lanes.push(
      `<line class="seq-lifeline" x1="${f1(cx)}" x2="${f1(cx)}" y1="${TOP + HEAD_H}" y2="${f1(height - 12)}" stroke="#b8b8b8" stroke-dasharray="3 3"/>`,
      `<rect class="seq-lane" x="${f1(cx - laneW / 2 + 6)}" y="${TOP}" width="${laneW - 12}" height="${HEAD_H - 8}" rx="4" fill="${LANE_FILL[l.kind]}" stroke="#8a8a8a"><title>${escapeXml(`${l.kind}: ${l.label}`)}</title></rect>`,
      textLines(wrapLines(l.label, labelChars), cx, TOP + (HEAD_H - 8) / 2 + 4 - (wrapLines(l.label, labelChars).length - 1) * 6, ' text-anchor="middle" font-weight="600"'),
    );
  }
  const shifted = shift === 0 ? [...lanes, ...body] : [`<g transform="translate(0 ${shift})">`, ...lanes, ...body, '</g>'];
  return [...head, ...shifted, '</svg>'].join('');
}

// ---------------------------------------------------------------------------------------------------
// Counterexamples

/** What a failed conformance run reports (conformance/harness.ts RunReport, structurally). */
export interface FailedRun {
  readonly trace: readonly TraceEvent[];
  readonly failures: readonly { readonly kind: string; readonly check: string; readonly why: string; readonly at?: number | undefined }[];
  readonly workload: { readonly variant: string };
  readonly bug?: string | undefined;
  readonly outcome?: string | undefined;
}

/** A failed check's counterexample: marked where the model diverged, or after the last event when only a property, the audit or liveness failed. */
export function failureSequence(r: FailedRun, token?: string): Sequence {
  const refinement = r.failures.find((f) => f.at !== undefined);
  const first = refinement ?? r.failures[0];
  const mark: Mark | undefined =
    first === undefined
      ? undefined
      : { index: refinement?.at ?? r.trace.length, text: `${refinement === undefined ? '' : 'model diverged: '}[${first.kind}] ${first.check}: ${first.why.split('\n')[0] ?? ''}` };
  const title = `${r.workload.variant}${r.bug === undefined ? '' : ` with bug ${r.bug}`}: shrunk counterexample (${r.trace.length} events${r.outcome === undefined ? '' : `, run ${r.outcome}`})`;
  const notes = [...r.failures.map((f) => `[${f.kind}] ${f.check}: ${f.why.split('\n')[0] ?? ''}`), ...(token === undefined ? [] : [`replay: sbkit check --replay ${token}`])];
  return sequenceOf(r.trace, { title, mark, notes });
}
