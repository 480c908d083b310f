/**
 * The page assembler: one self-contained HTML page (inline CSS, no scripts, no network) from a headline
 * and a list of sections, each a heading, a table-of-contents entry and its body. No timestamps, so
 * the same sections give the same file.
 */
import { esc } from './html.ts';

/** One section of the page: an `<h2>` with its id, and the links it adds to the table of contents (its own first). */
export interface Section {
  readonly id: string;
  readonly title: string;
  /** Its label in the table of contents. */
  readonly toc: string;
  readonly body: string;
  /** Sub-sections the table of contents links too (id, label), after the section's own entry. */
  readonly more?: readonly (readonly [id: string, label: string])[];
}

const CSS = `
:root{--muted:#5a5a5a;--line:#dcdcdc;--ok:#0a7a2f;--miss:#b00020;--warn:#8a5a00}
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:2rem auto;max-width:1200px;padding:0 1rem;color:#1d1d1d;line-height:1.45}
h1{font-size:1.6rem;margin-bottom:.2rem}h2{margin-top:2.6rem;border-bottom:1px solid var(--line);padding-bottom:.2rem}h3{margin-top:1.8rem}
.sub{color:var(--muted);margin-top:0}
nav.toc{font-size:.9rem;color:var(--muted)}nav.toc a{margin-right:.9rem;white-space:nowrap}
a{color:#0b5cad}
table{border-collapse:collapse;font-size:.84rem;margin:.6rem 0 1rem;font-variant-numeric:tabular-nums}
th,td{border:1px solid var(--line);padding:.22rem .4rem}td{white-space:nowrap}
th{background:#f4f4f4;font-weight:600;vertical-align:bottom}
thead tr.groups th{background:#e9eef4;text-align:center;font-size:.78rem;letter-spacing:.02em;text-transform:uppercase;color:#334}
th[title]{cursor:help;text-decoration:underline dotted #999}
td.r,th.r{text-align:right}td.l,th.l{text-align:left}
tbody tr:nth-child(even) td{background:#fafafa}
tbody tr.first td{border-top:2px solid #bbb}
td.zero{color:var(--ok)}.pct{color:var(--muted);font-size:.92em}
table.transposed th[scope=row]{font-weight:500;background:#fafafa;white-space:nowrap}table.transposed th.case{text-align:right;min-width:6.5rem}
table.transposed tr.group th{background:#e9eef4;text-align:left;font-size:.74rem;letter-spacing:.02em;text-transform:uppercase;color:#334;padding-top:.35rem}
td.wrap,table.pivot td{white-space:normal}table.verdicts td.wrap{min-width:9rem;max-width:22rem}td.bad{color:#fff;background:var(--miss)!important;font-weight:700}
.scroll{overflow-x:auto;max-width:100%}
.scroll tbody td:first-child{position:sticky;left:0;background:#fff;z-index:1}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(440px,1fr));gap:1rem;margin:.6rem 0 1rem}
.charts svg{box-sizing:border-box;border:1px solid #eee;background:#fff;width:100%;height:auto;max-width:600px}
.charts.wide{grid-template-columns:1fr}.charts.wide svg{max-width:780px}
.wide-chart,.machine-chart{overflow-x:auto;margin:.6rem 0}.wide-chart svg,.machine-chart svg{box-sizing:border-box}.wide-chart svg{border:1px solid #eee;background:#fff;max-width:100%;height:auto}.machine-chart svg{border:1px solid #eee;background:#fff;max-width:100%;height:auto}
ul.crit{list-style:none;padding-left:0}ul.crit li{margin:.2rem 0}
.ok{color:var(--ok);font-weight:600}.miss{color:var(--miss);font-weight:600}
pre{background:#f7f7f7;border:1px solid #e5e5e5;padding:.7rem;overflow-x:auto;font-size:.8rem;line-height:1.35}
code{font-size:.88em;background:#f3f3f3;padding:0 .2em;border-radius:3px}pre code{background:none;padding:0}
dl.kv{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1.2rem;margin:.6rem 0}dl.kv dt{font-weight:600}dl.kv dd{margin:0}
.note{color:var(--muted);font-size:.9rem}
.findings{overflow-wrap:anywhere;background:#f3f8f4;border-left:4px solid var(--ok);padding:.6rem 1rem;margin:1rem 0}
.findings.missed{background:#fbf1f2;border-left-color:var(--miss)}
.findings.incomplete{background:#fdf7e8;border-left-color:var(--warn)}.warn{color:var(--warn);font-weight:600}
.findings p.verdict{margin:.15rem 0}
.findings ul{margin:.3rem 0;padding-left:1.2rem}
details{border:1px solid #e5e5e5;border-radius:4px;margin:.5rem 0;padding:.3rem .7rem}
details>summary{cursor:pointer;font-weight:600}details>summary .note{font-weight:400}
details[open]>summary{margin-bottom:.4rem}
td.muted{color:#888}td.never{color:#8a5a00;background:#fff4dc!important}td.code{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.78rem}
.seq{overflow-x:auto;max-width:100%;margin:.4rem 0}.seq svg{max-width:100%;height:auto;background:#fff}
details.gallery>summary{font-size:1.02rem}details.gallery li{overflow-wrap:anywhere}
@media print{details{break-inside:avoid}.charts svg{max-width:100%}}
`;

/** The page: title, what produced it, the table of contents, the headline, then each section (an absent one leaves an empty line). */
export function renderPage(p: { readonly command: string; readonly headline: string; readonly sections: readonly (Section | undefined)[] }): string {
  const present = p.sections.filter((s): s is Section => s !== undefined);
  const toc = present.flatMap((s): (readonly [string, string])[] => [[s.id, s.toc], ...(s.more ?? [])]);
  const body = p.sections.map((s) => (s === undefined ? '' : `<h2 id="${esc(s.id)}">${esc(s.title)}</h2>\n${s.body}`)).join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>shared-batch-kit report</title>
<style>${CSS}</style>
</head>
<body>
<h1>shared-batch-kit: shared batches in the materialized-view sink</h1>
<p class="sub">Produced by <code>${esc(p.command)}</code>: the implementation (impl/) ran on the embedded in-memory backend under a seeded virtual-time schedule; the same seed reproduces every number.</p>
<nav class="toc">${toc.map(([id, label]) => `<a href="#${id}">${esc(label)}</a>`).join(' ')}</nav>
${p.headline}
${body}
</body>
</html>
`;
}
