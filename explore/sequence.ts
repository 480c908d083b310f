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
import { escapeXml } from './svg.ts';

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

/** Fields of an event kind this file has no drawing for, as `k=v` pairs (actor fields left out). */
function fieldsText(e: Record<string, unknown>): string {
  return Object.entries(e)
    .filter(([k]) => !['kind', 'replica', 'process', 'worker'].includes(k))
    .map(([k, v]) => `${k === 'sharedId' ? 'id' : k}=${JSON.stringify(v)}`)
    .join(' ');
}

class LaneSet {
  private readonly byId = new Map<string, Lane>();
  /** Builder instance lanes, current per (replica, process, id). */
  private readonly currentBuilder = new Map<string, string>();
  private readonly instances = new Map<string, number>();
  /** Which instance a worker's handle for (replica, id) is on. */
  private readonly handleOf = new Map<string, string>();
  private readonly replicas: number;

  constructor(trace: readonly TraceEvent[]) {
    this.replicas = new Set(trace.map((e) => e.replica)).size;
  }

  private prefix(replica: number): string {
    return this.replicas > 1 ? `r${replica} ` : '';
  }

  private lane(id: string, label: string, kind: LaneKind): string {
    if (!this.byId.has(id)) this.byId.set(id, { id, label, kind });
    return id;
  }

  mint(r: number): string {
    return this.lane(`M${r}`, `${this.prefix(r)}mint`, 'mint');
  }
  worker(r: number, w: number): string {
    return this.lane(`W${r}_${w}`, `${this.prefix(r)}worker ${w}`, 'worker');
  }
  registry(r: number, p: number): string {
    return this.lane(`R${r}_${p}`, `${this.prefix(r)}registry p${p}`, 'registry');
  }
  append(r: number): string {
    return this.lane(`A${r}`, `${this.prefix(r)}append`, 'append');
  }
  shard(): string {
    return this.lane('S', 'shard', 'shard');
  }

  /** A new builder instance for (r, p, id), e.g. `builder 0 #2` for its second instance. */
  newBuilder(r: number, p: number, id: number): string {
    const key = `${r}/${p}/${id}`;
    const n = (this.instances.get(key) ?? 0) + 1;
    this.instances.set(key, n);
    const lane = this.lane(`B${r}_${p}_${id}_${n}`, `${this.prefix(r)}builder id ${id} #${n}`, 'builder');
    this.currentBuilder.set(key, lane);
    return lane;
  }
  /** The live builder instance for (r, p, id): the last one created, or a first one if none was. */
  builder(r: number, p: number, id: number): string {
    return this.currentBuilder.get(`${r}/${p}/${id}`) ?? this.newBuilder(r, p, id);
  }
  hasBuilder(r: number, p: number, id: number): boolean {
    return this.currentBuilder.has(`${r}/${p}/${id}`);
  }
  bindHandle(r: number, w: number, id: number, lane: string): void {
    this.handleOf.set(`${r}/${w}/${id}`, lane);
  }
  handle(r: number, p: number, w: number, id: number): string {
    return this.handleOf.get(`${r}/${w}/${id}`) ?? this.builder(r, p, id);
  }

  /** Lanes in reading order: per replica mint, workers, builders, registries, append; the shard last. */
  ordered(): Lane[] {
    const rank: Record<LaneKind, number> = { mint: 0, worker: 1, builder: 2, registry: 3, append: 4, shard: 5 };
    const replicaOf = (l: Lane): number => (l.kind === 'shard' ? Number.MAX_SAFE_INTEGER : Number(/^[A-Z](\d+)/.exec(l.id)?.[1] ?? 0));
    const nums = (l: Lane): number[] => (l.id.match(/\d+/g) ?? []).map(Number);
    return [...this.byId.values()].sort((a, b) => {
      const d = replicaOf(a) - replicaOf(b) || rank[a.kind] - rank[b.kind];
      if (d !== 0) return d;
      const [x, y] = [nums(a), nums(b)];
      for (let i = 0; i < Math.max(x.length, y.length); i++) {
        const c = (x[i] ?? 0) - (y[i] ?? 0);
        if (c !== 0) return c;
      }
      return 0;
    });
  }
}

/** The steps of one event (most are one message or note; an append is a request and its reply). */
function stepsOf(lanes: LaneSet, e: TraceEvent, index: number): Step[] {
  const msg = (from: string, to: string, text: string, reply = false): Step => ({ kind: 'message', index, from, to, text, reply });
  const note = (over: string, text: string): Step => ({ kind: 'note', index, over, text });
  switch (e.kind) {
    case 'frontier':
      return [note(lanes.mint(e.replica), `frontier → upper ${e.upper}`)];
    case 'mint':
      return [msg(lanes.mint(e.replica), lanes.append(e.replica), `mint id ${e.desc.sharedId} [${e.desc.lower},${e.desc.upper}) to w${e.desc.appendWorker}, knob ${e.desc.maxBytes} B${e.desc.barrier ? ', barrier' : ''}`)];
    case 'poll':
      return [msg(lanes.mint(e.replica), lanes.shard(), `poll: read the shard's upper (id ${e.sharedId} may be superseded)`)];
    case 'stage':
      return [note(lanes.worker(e.replica, e.worker), `stage ${updatesText(e.updates.length)} ${ids(e.updates)}, ${e.bytes} B → ${e.route}`)];
    case 'open': {
      const w = lanes.worker(e.replica, e.worker);
      const b = e.created ? lanes.newBuilder(e.replica, e.process, e.sharedId) : lanes.builder(e.replica, e.process, e.sharedId);
      lanes.bindHandle(e.replica, e.worker, e.sharedId, b);
      return [msg(w, b, e.created ? `open id ${e.sharedId}: creates` : `open id ${e.sharedId}: joins`)];
    }
    case 'push':
      return [msg(lanes.worker(e.replica, e.worker), lanes.handle(e.replica, e.process, e.worker, e.sharedId), `push ${updatesText(e.updates.length)} ${ids(e.updates)}`)];
    case 'finish-begin':
      return [msg(lanes.worker(e.replica, e.worker), lanes.handle(e.replica, e.process, e.worker, e.sharedId), `finish${e.last ? ' (last)' : ''}`)];
    case 'finish-end':
      return [msg(lanes.handle(e.replica, e.process, e.worker, e.sharedId), lanes.worker(e.replica, e.worker), e.received === null ? 'None' : `batch: ${batchText(e.received)}`, true)];
    case 'skip': {
      const w = lanes.worker(e.replica, e.worker);
      const to = e.early || !lanes.hasBuilder(e.replica, e.process, e.sharedId) ? lanes.registry(e.replica, e.process) : lanes.builder(e.replica, e.process, e.sharedId);
      return [msg(w, to, `skip id ${e.sharedId}${e.early ? ' (early: recorded)' : ''}`)];
    }
    case 'own-batch':
      return [note(lanes.worker(e.replica, e.worker), `own batch: ${batchText(e.batch)}`)];
    case 'hand': {
      const n = e.batches.length;
      const what = n === 0 ? 'hand: no batch' : `hand ${n === 1 ? '1 batch' : `${n} batches`}: ${e.batches.map(batchText).join('; ')}`;
      return [msg(lanes.worker(e.replica, e.worker), lanes.append(e.replica), what)];
    }
    case 'append': {
      const a = lanes.append(e.replica);
      const s = lanes.shard();
      const n = e.batches === 1 ? '1 batch' : `${e.batches} batches`;
      const result = e.result.ok ? 'ok' : `UpperMismatch: shard at ${e.result.current}`;
      return [msg(a, s, `compare_and_append [${e.lower},${e.upper}) ${n}, ${partsText(e.parts)}, ${updatesText(e.updates.length)}`), msg(s, a, result, true)];
    }
    case 'delete':
      return [msg(lanes.append(e.replica), lanes.shard(), `delete ${e.batches === 1 ? '1 batch' : `${e.batches} batches`} (${e.reason})`)];
    case 'backpressure':
      return [msg(lanes.shard(), lanes.append(e.replica), `inline backpressure: flush ${e.flushed} inline part${e.flushed === 1 ? '' : 's'} to blob, retry`, true)];
    case 'bump':
      return [msg(lanes.append(e.replica), lanes.shard(), `bump: empty append [${e.from},${e.to})`)];
    // a sweep is a builder() call's, under the registry's lock: drawn on the registry's lane, naming the caller
    case 'sweep':
      return [note(lanes.registry(e.replica, e.process), `${sweeper(e)}sweep: removed ${ids(e.removed)}`)];
    case 'sweep-hold':
      return [msg(lanes.registry(e.replica, e.process), lanes.builder(e.replica, e.process, e.sharedId), `${sweeper(e)}sweep holds a reference`)];
    case 'sweep-release':
      return [msg(lanes.registry(e.replica, e.process), lanes.builder(e.replica, e.process, e.sharedId), `${sweeper(e)}sweep releases${e.closed ? ': closes it, batch to nobody' : ''}`)];
    case 'drop':
      return [msg(lanes.worker(e.replica, e.worker), lanes.handle(e.replica, e.process, e.worker, e.sharedId), `drop without finish${e.closed ? ': closes it, batch to nobody' : ''}`)];
    default:
      return [genericNote(lanes, e as unknown as Record<string, unknown>, index)];
  }
}

/** An event kind without a drawing of its own: a note over its actor's lane with all its fields. */
function genericNote(lanes: LaneSet, e: Record<string, unknown>, index: number): Step {
  const replica = typeof e['replica'] === 'number' ? e['replica'] : 0;
  const over =
    typeof e['worker'] === 'number'
      ? lanes.worker(replica, e['worker'])
      : typeof e['process'] === 'number'
        ? lanes.registry(replica, e['process'])
        : lanes.append(replica);
  const fields = fieldsText(e);
  return { kind: 'note', index, over, text: `${String(e['kind'])}${fields === '' ? '' : ` ${fields}`}` };
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

const LANE_W = 150;
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

/** Text that fits about `chars` characters: cut with an ellipsis (the full text is in the tooltip). */
function fit(text: string, chars: number): string {
  return text.length <= chars ? text : `${text.slice(0, Math.max(1, chars - 1))}…`;
}

/**
 * The sequence as a standalone SVG: lanes as columns with a header box, one row per step, messages as
 * arrows (replies dashed) labelled above, notes as boxes over their lane; the marked event in a red band
 * with its reason. Deterministic; only inline attributes (no CSS, no scripts).
 */
export function toSvg(seq: Sequence): string {
  const n = seq.lanes.length;
  const x = new Map(seq.lanes.map((l, i) => [l.id, LEFT + LANE_W / 2 + i * LANE_W]));
  const width = LEFT + n * LANE_W + 16;
  const markRows = seq.mark === undefined ? 0 : 1;
  const bodyTop = TOP + HEAD_H + 10;
  const height = bodyTop + (seq.steps.length + markRows) * ROW_H + 20;
  const xOf = (id: string): number => x.get(id) ?? LEFT;
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" class="sequence" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${escapeXml(seq.title)}" font-family="system-ui, sans-serif" font-size="10.5" fill="#222">`,
    `<title>${escapeXml(seq.title)}</title>`,
    `<defs><marker id="arr" viewBox="0 0 8 8" refX="7.5" refY="4" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0 0L8 4L0 8Z" fill="#333"/></marker></defs>`,
    `<text class="seq-title" x="${LEFT}" y="18" font-size="13" font-weight="600">${escapeXml(seq.title)}</text>`,
  );
  // lifelines and headers
  for (const l of seq.lanes) {
    const cx = xOf(l.id);
    parts.push(
      `<line class="seq-lifeline" x1="${f1(cx)}" x2="${f1(cx)}" y1="${TOP + HEAD_H}" y2="${height - 12}" stroke="#b8b8b8" stroke-dasharray="3 3"/>`,
      `<rect class="seq-lane" x="${f1(cx - LANE_W / 2 + 6)}" y="${TOP}" width="${LANE_W - 12}" height="${HEAD_H - 8}" rx="4" fill="${LANE_FILL[l.kind]}" stroke="#8a8a8a"><title>${escapeXml(`${l.kind}: ${l.label}`)}</title></rect>`,
      `<text x="${f1(cx)}" y="${TOP + (HEAD_H - 8) / 2 + 4}" text-anchor="middle" font-weight="600">${escapeXml(fit(l.label, 20))}</text>`,
    );
  }
  let row = 0;
  const rowY = (r: number): number => bodyTop + r * ROW_H;
  for (const [i, s] of seq.steps.entries()) {
    const y = rowY(row);
    const isMark = seq.mark !== undefined && s.index === seq.mark.index;
    if (isMark) parts.push(`<rect class="seq-diverged" x="4" y="${f1(y - 4)}" width="${width - 8}" height="${ROW_H}" fill="#fde2e2"/>`);
    const tip = `<title>${escapeXml(`#${s.index}: ${s.text}`)}</title>`;
    const firstOfEvent = seq.steps[i - 1]?.index !== s.index;
    if (firstOfEvent) {
      parts.push(`<text class="seq-index" x="8" y="${f1(y + 15)}" fill="${isMark ? '#b00020' : '#777'}" font-weight="${isMark ? 700 : 400}">${s.index}</text>`);
    }
    if (s.kind === 'note') {
      const w = Math.min(LANE_W * 1.9, width - LEFT - 8);
      // centred on its lane, kept inside the drawing
      const cx = Math.min(Math.max(xOf(s.over), LEFT + w / 2), width - 8 - w / 2);
      parts.push(
        `<g class="seq-note"><rect x="${f1(cx - w / 2)}" y="${f1(y)}" width="${f1(w)}" height="${ROW_H - 8}" rx="2" fill="#fffbe6" stroke="#c9b458">${tip}</rect>` +
          `<text x="${f1(cx)}" y="${f1(y + 14)}" text-anchor="middle">${escapeXml(fit(s.text, Math.floor(w / 5.7)))}${tip}</text></g>`,
      );
    } else {
      const x1 = xOf(s.from);
      const x2 = xOf(s.to);
      const ay = y + 18;
      const span = Math.abs(x2 - x1);
      // a label may run past a short arrow: each step has its own row
      const chars = Math.max(34, Math.floor(span / 5.6));
      const mid = (x1 + x2) / 2;
      parts.push(
        `<g class="seq-message"><line x1="${f1(x1)}" x2="${f1(x2 + (x2 > x1 ? -2 : 2))}" y1="${f1(ay)}" y2="${f1(ay)}" stroke="#333" stroke-width="1.2"${s.reply ? ' stroke-dasharray="5 3"' : ''} marker-end="url(#arr)"/>` +
          `<text x="${f1(mid)}" y="${f1(ay - 5)}" text-anchor="middle">${escapeXml(fit(s.text, chars))}${tip}</text></g>`,
      );
    }
    row++;
    const next = seq.steps[i + 1];
    if (isMark && next?.index !== s.index && seq.mark !== undefined) {
      parts.push(markBand(seq.mark, rowY(row), width));
      row++;
    }
  }
  if (seq.mark !== undefined && !seq.steps.some((s) => s.index === seq.mark?.index)) {
    parts.push(markBand(seq.mark, rowY(row), width));
  }
  parts.push('</svg>');
  return parts.join('');
}

function markBand(m: Mark, y: number, width: number): string {
  return (
    `<g class="seq-mark"><rect x="4" y="${f1(y - 4)}" width="${width - 8}" height="${ROW_H - 4}" fill="#b00020" rx="3"/>` +
    `<text x="12" y="${f1(y + 13)}" fill="#fff" font-weight="700">${escapeXml(fit(`✘ ${m.text}`, Math.floor((width - 24) / 5.8)))}<title>${escapeXml(m.text)}</title></text></g>`
  );
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
