/**
 * Tests only: where an SVG's texts are, estimated from their attributes (x, y, anchor, font size,
 * tspans, translate and rotate(-90) transforms of the text and its groups) and a generous average
 * character width, so a test can hold every text inside the viewBox without a browser.
 */

export interface TextBox {
  readonly text: string;
  readonly x0: number;
  readonly x1: number;
  readonly y0: number;
  readonly y1: number;
}

/** Average advance of a character as a share of the font size: system-ui in headless Chromium measured 0.50–0.57
 * (capitals the most), bold 0.57–0.64; these are the upper ends. */
const CHAR = 0.58;
const BOLD = 1.12;

const attr = (tag: string, name: string): string | undefined => new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1];
const num = (v: string | undefined, fallback: number): number => (v === undefined || v === '' ? fallback : Number(v));
const decode = (s: string): string => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');

function translateOf(transform: string | undefined): [number, number] {
  const m = /translate\(\s*([-\d.]+)[\s,]+([-\d.]+)\s*\)/.exec(transform ?? '');
  return m === null ? [0, 0] : [Number(m[1]), Number(m[2])];
}

export function viewBoxOf(svg: string): { width: number; height: number } {
  const m = /viewBox="0 0 ([\d.]+) ([\d.]+)"/.exec(svg);
  return { width: Number(m?.[1] ?? 0), height: Number(m?.[2] ?? 0) };
}

/** Every text line of `svg` with its estimated box in the root's coordinates. */
export function textBoxes(svg: string): TextBox[] {
  const rootSize = num(attr(/<svg[^>]*>/.exec(svg)?.[0] ?? '', 'font-size'), 11);
  const out: TextBox[] = [];
  const offsets: [number, number][] = [[0, 0]];
  const tags = /<(\/?)(g|text)(\s[^>]*)?>/g;
  for (let m = tags.exec(svg); m !== null; m = tags.exec(svg)) {
    const [whole, closing, name, rest = ''] = m;
    if (name === 'g') {
      if (closing === '/') offsets.pop();
      else if (!whole.endsWith('/>')) {
        const [dx, dy] = translateOf(attr(rest, 'transform'));
        const [ox, oy] = offsets[offsets.length - 1] ?? [0, 0];
        offsets.push([ox + dx, oy + dy]);
      }
      continue;
    }
    if (closing === '/') continue;
    const end = svg.indexOf('</text>', tags.lastIndex);
    const inner = svg.slice(tags.lastIndex, end).replace(/<title>[\s\S]*?<\/title>/g, '');
    tags.lastIndex = end;
    const size = num(attr(rest, 'font-size'), rootSize);
    const bold = /font-weight="(600|700|bold)"/.test(rest) ? BOLD : 1;
    const anchor = attr(rest, 'text-anchor') ?? 'start';
    const [ox, oy] = offsets[offsets.length - 1] ?? [0, 0];
    const transform = attr(rest, 'transform');
    const [tx, ty] = translateOf(transform);
    const rotated = /rotate\(-90\)/.test(transform ?? '');
    const lines: { text: string; x: number; y: number }[] = [];
    const baseX = num(attr(rest, 'x'), 0);
    let y = num(attr(rest, 'y'), 0);
    const spans = [...inner.matchAll(/<tspan([^>]*)>([^<]*)<\/tspan>/g)];
    if (spans.length === 0) lines.push({ text: decode(inner.replace(/<[^>]+>/g, '')), x: baseX, y });
    else {
      for (const [, a = '', t = ''] of spans) {
        y += num(attr(a, 'dy'), 0);
        lines.push({ text: decode(t), x: num(attr(a, 'x'), baseX), y });
      }
    }
    for (const l of lines) {
      if (l.text.trim() === '') continue;
      const w = l.text.length * size * CHAR * bold;
      const start = anchor === 'middle' ? -w / 2 : anchor === 'end' ? -w : 0;
      if (rotated) {
        // rotate(-90) about the translated origin: the text runs upwards along y
        const cx = ox + tx + l.y;
        const cy = oy + ty - l.x;
        out.push({ text: l.text, x0: cx - size * 0.8, x1: cx + size * 0.25, y0: cy - start - w, y1: cy - start });
      } else {
        const x = ox + tx + l.x;
        const yy = oy + ty + l.y;
        out.push({ text: l.text, x0: x + start, x1: x + start + w, y0: yy - size * 0.8, y1: yy + size * 0.25 });
      }
    }
  }
  return out;
}

/** The texts of `svg` that reach outside its viewBox (by more than `slack` px), with their boxes. */
export function clippedTexts(svg: string, slack = 0.5): TextBox[] {
  const { width, height } = viewBoxOf(svg);
  return textBoxes(svg).filter((b) => b.x0 < -slack || b.y0 < -slack || b.x1 > width + slack || b.y1 > height + slack);
}

/** Every top-level `<svg>…</svg>` of an HTML page. */
export function svgsOf(html: string): string[] {
  return [...html.matchAll(/<svg[\s\S]*?<\/svg>/g)].map((m) => m[0]);
}
