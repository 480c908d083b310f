/** The conformance check (`sbkit check --variant all`): its summary and its output, long lines wrapped. */
import { esc } from './html.ts';

export type CheckSection =
  | { readonly kind: 'ran'; readonly exitCode: number; readonly summary: string; readonly output: string }
  | { readonly kind: 'skipped'; readonly reason: string };

/** Wraps long comma-separated lines of the check's output, continuing under the text after the first ": ". */
export function reflow(text: string, width = 110): string {
  return text
    .split('\n')
    .flatMap((line) => {
      if (line.length <= width || !line.includes(', ')) return [line];
      const colon = line.indexOf(': ');
      const indent = ' '.repeat(colon >= 0 ? colon + 2 : line.length - line.trimStart().length);
      const parts = line.split(', ');
      const out: string[] = [];
      let cur = parts[0] ?? '';
      for (const p of parts.slice(1)) {
        if (cur.length + 2 + p.length + 1 > width) {
          out.push(`${cur},`);
          cur = indent + p;
        } else cur += `, ${p}`;
      }
      out.push(cur);
      return out;
    })
    .join('\n');
}

export function checkSection(c: CheckSection): string {
  switch (c.kind) {
    case 'ran':
      return (
        `<p class="note">Random workloads and worker interleavings run on the implementation; each run's protocol trace is replayed on the model (refinement), the spec's properties are checked on it, and the shard is audited. ` +
        `Reproduce: <code>npx sbkit check --variant all</code>.</p>` +
        `<p class="${c.exitCode === 0 ? 'ok' : 'miss'}">${esc(c.summary)}</p><pre>${esc(reflow(c.output))}</pre>`
      );
    case 'skipped':
      return `<p class="note">Not run: ${esc(c.reason)}</p>`;
  }
}
