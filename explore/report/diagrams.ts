/** The model's state machines, as Mermaid sources generated from the machine definitions. */
import { esc } from './html.ts';

export type DiagramSection =
  | { readonly kind: 'ok'; readonly diagrams: readonly { readonly name: string; readonly mermaid: string }[] }
  | { readonly kind: 'unavailable'; readonly reason: string };

export function diagramSection(d: DiagramSection): string {
  switch (d.kind) {
    case 'ok':
      return (
        `<p class="note">The model's state machines as Mermaid <code>stateDiagram-v2</code> source, generated from the machine definitions. ` +
        `This report loads nothing, so they are not drawn here: print them with <code>npx sbkit model --mermaid</code> and paste one into <a href="https://mermaid.live">mermaid.live</a> (or any Markdown preview) to see it drawn.</p>` +
        d.diagrams
          .map((x) => {
            const lines = x.mermaid.split('\n');
            const transitions = lines.filter((l) => l.includes('-->') && !l.includes('[*]')).length;
            return (
              `<details class="diagram" id="machine-${esc(x.name)}"><summary>${esc(x.name)} <span class="note">— ${transitions} transitions · <code>npx sbkit model --mermaid --machine ${esc(x.name)}</code></span></summary>` +
              `<pre class="mermaid-src"><code>${esc(x.mermaid)}</code></pre></details>`
            );
          })
          .join('\n')
      );
    case 'unavailable':
      return `<p class="note">Not available: ${esc(d.reason)}</p>`;
  }
}
