/**
 * A state machine (model/mermaid.ts `MachineGraph`) drawn as SVG in a layered layout, left to right:
 * the initial state first, each state one column after its furthest predecessor (back edges aside),
 * states of a column ordered to keep edges short (barycentre sweeps). Forward edges are straight arrows
 * labelled with their events (`EVENT [guard]`, one line each, all transitions between the same two
 * states on one edge); a self-loop is an arc above its state with its events over it; an edge back to
 * an earlier column curves below the states. A label sits where it covers no other label or state.
 */
import type { MachineGraph } from '../../model/mermaid.ts';
import { escapeXml, f1 } from '../svg.ts';

const NODE_H = 30;
const CHAR = 6.1;
const LINE = 13;
const PAD = 24;
const TITLE_H = 44;

interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}
const overlaps = (a: Box, b: Box): boolean => a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;

const labelOf = (t: { readonly event: string; readonly guard: string | null }): string => (t.guard === null ? t.event : `${t.event} [${t.guard}]`);
const textWidth = (lines: readonly string[]): number => Math.max(0, ...lines.map((l) => l.length)) * CHAR;

/** Layers by longest path from the initial state over the edges a depth-first walk does not close a cycle with. */
function layers(g: MachineGraph, edges: ReadonlyMap<string, readonly string[]>): { layer: Map<string, number>; back: Set<string> } {
  const back = new Set<string>();
  const state = new Map<string, 'open' | 'done'>();
  const visit = (v: string): void => {
    state.set(v, 'open');
    for (const w of edges.get(v) ?? []) {
      if (w === v) continue;
      const s = state.get(w);
      if (s === 'open') back.add(`${v}>${w}`);
      else if (s === undefined) visit(w);
    }
    state.set(v, 'done');
  };
  visit(g.initial);
  for (const s of g.states) if (!state.has(s)) visit(s);
  const layer = new Map<string, number>(g.states.map((s) => [s, 0]));
  // longest path over the acyclic edges: relax until stable (at most |states| rounds)
  for (let round = 0; round < g.states.length; round++) {
    let changed = false;
    for (const [v, ws] of edges) {
      for (const w of ws) {
        if (w === v || back.has(`${v}>${w}`)) continue;
        const next = (layer.get(v) ?? 0) + 1;
        if (next > (layer.get(w) ?? 0)) {
          layer.set(w, next);
          changed = true;
        }
      }
    }
    if (!changed) break;
  }
  return { layer, back };
}

/** A slot of a column: a state, or where a long edge passes through the column (a dummy, as in Sugiyama's layout). */
interface Slot {
  readonly id: string;
  readonly layer: number;
  order: number;
  x: number;
  y: number;
  /** A state's width; 0 for a dummy. */
  readonly w: number;
  readonly loop: readonly string[];
  readonly dummy: boolean;
}

export function machineSvg(g: MachineGraph): string {
  // edges between two different states, their transitions merged; self-loops per state
  const merged = new Map<string, { from: string; to: string; labels: string[] }>();
  const loops = new Map<string, string[]>();
  for (const t of g.transitions) {
    if (t.from === t.to) {
      loops.set(t.from, [...(loops.get(t.from) ?? []), labelOf(t)]);
      continue;
    }
    const key = `${t.from}>${t.to}`;
    const e = merged.get(key) ?? { from: t.from, to: t.to, labels: [] };
    e.labels.push(labelOf(t));
    merged.set(key, e);
  }
  const out = new Map<string, string[]>();
  for (const e of merged.values()) out.set(e.from, [...(out.get(e.from) ?? []), e.to]);
  const { layer, back } = layers(g, out);
  const slots = new Map<string, Slot>(
    g.states.map((s, i) => [s, { id: s, layer: layer.get(s) ?? 0, order: i, x: 0, y: 0, w: Math.max(74, s.length * 7 + 22), loop: loops.get(s) ?? [], dummy: false }]),
  );
  // forward edges as chains of slots (a dummy per column crossed); back edges drawn apart
  const edges = [...merged.values()].map((e) => ({ ...e, back: back.has(`${e.from}>${e.to}`) || (layer.get(e.to) ?? 0) <= (layer.get(e.from) ?? 0), chain: [e.from] as string[] }));
  for (const e of edges) {
    if (e.back) continue;
    const [a, b] = [layer.get(e.from) ?? 0, layer.get(e.to) ?? 0];
    for (let k = a + 1; k < b; k++) {
      const id = `${e.from}>${e.to}#${k}`;
      slots.set(id, { id, layer: k, order: slots.size, x: 0, y: 0, w: 0, loop: [], dummy: true });
      e.chain.push(id);
    }
    e.chain.push(e.to);
  }
  const links = edges.filter((e) => !e.back).flatMap((e) => e.chain.slice(1).map((to, i) => [e.chain[i] ?? '', to] as const));
  const columns: Slot[][] = [];
  for (const n of slots.values()) (columns[n.layer] ??= []).push(n);
  for (const c of columns) c?.sort((a, b) => a.order - b.order);
  columns.forEach((c) => c?.forEach((n, i) => (n.order = i)));
  // barycentre sweeps: order each column by the mean position of its neighbours in the column before (or after)
  const orderOf = (id: string): number => slots.get(id)?.order ?? 0;
  for (let sweep = 0; sweep < 6; sweep++) {
    const forward = sweep % 2 === 0;
    const ks = columns.map((_, i) => i);
    for (const k of forward ? ks.slice(1) : ks.reverse().slice(1)) {
      const col = columns[k];
      if (col === undefined) continue;
      const bary = new Map(
        col.map((n) => {
          const nb = links.filter(([u, v]) => (forward ? v === n.id : u === n.id)).map(([u, v]) => orderOf(forward ? u : v));
          return [n.id, nb.length === 0 ? n.order : nb.reduce((a, b) => a + b, 0) / nb.length] as const;
        }),
      );
      col.sort((a, b) => (bary.get(a.id) ?? 0) - (bary.get(b.id) ?? 0) || a.order - b.order);
      col.forEach((n, i) => (n.order = i));
    }
  }
  // each edge's label goes in one gap: the first it crosses; a gap is as wide as its widest label
  const gapOf = (e: (typeof edges)[number]): number => layer.get(e.from) ?? 0;
  const gapWidth = (k: number): number => Math.max(56, ...edges.filter((e) => !e.back && gapOf(e) === k).map((e) => textWidth(e.labels) + 26));
  const loopRoom = (n: Slot): number => (n.loop.length === 0 ? 0 : 26 + n.loop.length * LINE);
  const slotHeight = (n: Slot): number => (n.dummy ? 22 : loopRoom(n) + NODE_H + 30);
  const heights = columns.map((c) => (c ?? []).reduce((h, n) => h + slotHeight(n), 0));
  const tallest = Math.max(0, ...heights);
  const colLeft: number[] = [];
  const colRight: number[] = [];
  let x = PAD + 26;
  columns.forEach((c, k) => {
    const colW = Math.max(20, ...(c ?? []).map((n) => Math.max(n.w, textWidth(n.loop) + 8)));
    let y = TITLE_H + 10 + (tallest - (heights[k] ?? 0)) / 2;
    for (const n of c ?? []) {
      y += n.dummy ? 11 : loopRoom(n);
      n.x = x + colW / 2;
      n.y = n.dummy ? y : y + NODE_H / 2;
      y += n.dummy ? 11 : NODE_H + 30;
    }
    colLeft[k] = x;
    colRight[k] = x + colW;
    x += colW + gapWidth(k);
  });
  const nodes = new Map([...slots.values()].filter((n) => !n.dummy).map((n) => [n.id, n]));
  const nodeBox = (n: Slot): Box => ({ x0: n.x - n.w / 2, y0: n.y - NODE_H / 2, x1: n.x + n.w / 2, y1: n.y + NODE_H / 2 });
  const taken: Box[] = [...nodes.values()].map(nodeBox);
  const parts: string[] = [];
  const labelsSvg: string[] = [];
  let right = x;
  const place = (lines: readonly string[], at: (t: number) => [number, number], ts: readonly number[]): void => {
    const w = textWidth(lines) + 8;
    const h = lines.length * LINE + 4;
    const boxAt = (t: number): Box => {
      const [cx, cy] = at(t);
      return { x0: cx - w / 2, y0: cy - h / 2, x1: cx + w / 2, y1: cy + h / 2 };
    };
    const t = ts.find((c) => !taken.some((b) => overlaps(b, boxAt(c)))) ?? ts[0] ?? 0.5;
    const b = boxAt(t);
    taken.push(b);
    right = Math.max(right, b.x1);
    labelsSvg.push(
      `<g class="edge-label"><rect x="${f1(b.x0)}" y="${f1(b.y0)}" width="${f1(w)}" height="${f1(h)}" rx="3" fill="#fff" fill-opacity="0.92"/>` +
        `<text x="${f1((b.x0 + b.x1) / 2)}" y="${f1(b.y0 + LINE)}" text-anchor="middle">${lines.map((l, i) => `<tspan x="${f1((b.x0 + b.x1) / 2)}" dy="${i === 0 ? 0 : LINE}">${escapeXml(l)}</tspan>`).join('')}</text></g>`,
    );
  };
  let below = Math.max(...[...slots.values()].map((n) => n.y + (n.dummy ? 4 : NODE_H / 2)));
  let backCount = 0;
  const fanOut = (id: string): number => edges.filter((e) => !e.back && e.from === id).length;
  const fanIn = (id: string): number => edges.filter((e) => !e.back && e.to === id).length;
  for (const e of edges) {
    const a = nodes.get(e.from);
    const b = nodes.get(e.to);
    if (a === undefined || b === undefined) continue;
    const title = `<title>${escapeXml(`${e.from} → ${e.to}: ${e.labels.join('; ')}`)}</title>`;
    if (!e.back) {
      // through each crossed column at its dummy's height
      const pts: [number, number][] = [[a.x + a.w / 2, a.y]];
      for (const id of e.chain.slice(1, -1)) {
        const d = slots.get(id);
        if (d === undefined) continue;
        pts.push([colLeft[d.layer] ?? d.x, d.y], [colRight[d.layer] ?? d.x, d.y]);
      }
      pts.push([b.x - b.w / 2 - 2, b.y]);
      parts.push(`<path class="edge" d="${pts.map(([px, py], i) => `${i === 0 ? 'M' : 'L'}${f1(px)} ${f1(py)}`).join('')}" fill="none" stroke="#555" stroke-width="1.2" stroke-linejoin="round" marker-end="url(#m-arr)">${title}</path>`);
      const [[x1, y1] = [0, 0], [x2, y2] = [0, 0]] = pts;
      // on the first stretch: nearer the end that fans out less
      const ts = fanOut(e.from) > fanIn(e.to) ? [0.66, 0.78, 0.54, 0.88, 0.42] : fanIn(e.to) > fanOut(e.from) ? [0.34, 0.22, 0.46, 0.12, 0.58] : [0.5, 0.36, 0.64, 0.24, 0.76];
      place(e.labels, (t) => [x1 + (x2 - x1) * t, y1 + (y2 - y1) * t], ts);
    } else {
      // back to an earlier (or the same) column: a dashed curve under the states
      backCount += 1;
      const dip = below + 26 + backCount * (LINE * e.labels.length + 14);
      const [x1, y1, x2, y2] = [a.x, a.y + NODE_H / 2, b.x + (b.x === a.x ? 14 : 0), b.y + NODE_H / 2];
      parts.push(`<path class="edge back" d="M${f1(x1)} ${f1(y1)}C${f1(x1)} ${f1(dip)} ${f1(x2)} ${f1(dip)} ${f1(x2)} ${f1(y2 + 2)}" fill="none" stroke="#555" stroke-width="1.2" stroke-dasharray="5 3" marker-end="url(#m-arr)">${title}</path>`);
      const midY = (y1 + y2) / 8 + (dip * 3) / 4;
      place(e.labels, () => [(x1 + x2) / 2, midY], [0.5]);
      below = Math.max(below, midY + (e.labels.length * LINE) / 2);
    }
  }
  for (const n of nodes.values()) {
    const isFinal = g.finals.includes(n.id);
    if (n.loop.length > 0) {
      const top = n.y - NODE_H / 2;
      parts.push(`<path class="edge loop" d="M${f1(n.x - 14)} ${f1(top)}C${f1(n.x - 30)} ${f1(top - 30)} ${f1(n.x + 30)} ${f1(top - 30)} ${f1(n.x + 14)} ${f1(top - 1)}" fill="none" stroke="#555" stroke-width="1.2" marker-end="url(#m-arr)"><title>${escapeXml(`${n.id} → ${n.id}: ${n.loop.join('; ')}`)}</title></path>`);
      const lines = n.loop;
      const ly = top - 24 - lines.length * LINE;
      labelsSvg.push(`<text class="loop-label" x="${f1(n.x)}" y="${f1(ly + LINE - 2)}" text-anchor="middle">${lines.map((l, i) => `<tspan x="${f1(n.x)}" dy="${i === 0 ? 0 : LINE}">${escapeXml(l)}</tspan>`).join('')}</text>`);
    }
    parts.push(
      `<g class="state" data-state="${escapeXml(n.id)}"><rect x="${f1(n.x - n.w / 2)}" y="${f1(n.y - NODE_H / 2)}" width="${f1(n.w)}" height="${NODE_H}" rx="9" fill="${isFinal ? '#eef7ee' : '#e8f1fb'}" stroke="#4a6d8c" stroke-width="${isFinal ? 2.6 : 1.2}"/>` +
        `<text x="${f1(n.x)}" y="${f1(n.y + 4)}" text-anchor="middle" font-weight="600">${escapeXml(n.id)}</text></g>`,
    );
  }
  const init = nodes.get(g.initial);
  if (init !== undefined) {
    const x0 = init.x - init.w / 2;
    parts.push(`<g class="initial"><circle cx="${f1(x0 - 22)}" cy="${f1(init.y)}" r="5" fill="#222"/><path d="M${f1(x0 - 17)} ${f1(init.y)}L${f1(x0 - 2)} ${f1(init.y)}" stroke="#222" stroke-width="1.2" marker-end="url(#m-arr)"/></g>`);
  }
  const height = Math.max(below, ...taken.map((b) => b.y1)) + PAD + 16;
  const width = Math.max(right, ...[...nodes.values()].map((n) => n.x + Math.max(n.w, textWidth(n.loop)) / 2)) + PAD;
  const legend = `<text x="${PAD}" y="${f1(height - 10)}" fill="#666" font-size="10">● initial state · thick border: final state · dashed: back to an earlier state · ${g.transitions.length} transitions</text>`;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" class="machine" viewBox="0 0 ${f1(width)} ${f1(height)}" width="${f1(width)}" height="${f1(height)}" role="img" aria-label="${escapeXml(`the ${g.name} machine`)}" font-family="system-ui, sans-serif" font-size="10.5" fill="#222">` +
    `<title>${escapeXml(`the ${g.name} machine`)}</title>` +
    `<defs><marker id="m-arr" viewBox="0 0 8 8" refX="7.5" refY="4" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0 0L8 4L0 8Z" fill="#555"/></marker></defs>` +
    `<text class="chart-title" x="${PAD}" y="20" font-size="13.5" font-weight="600">${escapeXml(`${g.name}: ${g.states.length} states, ${g.transitions.length} transitions`)}</text>` +
    parts.join('') +
    labelsSvg.join('') +
    legend +
    `</svg>`
  );
}
