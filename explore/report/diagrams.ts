/** The model's state machines, drawn from the machine definitions (charts/machine.ts), each with its Mermaid source folded beneath. */
import type { MachineGraph } from '../../model/mermaid.ts';
import { machineSvg } from '../charts/machine.ts';
import { esc } from './html.ts';

export type DiagramSection =
  | { readonly kind: 'ok'; readonly diagrams: readonly { readonly name: string; readonly mermaid: string; readonly graph?: MachineGraph | undefined }[] }
  | { readonly kind: 'unavailable'; readonly reason: string };

export function diagramSection(d: DiagramSection): string {
  switch (d.kind) {
    case 'ok':
      return (
        `<p class="note">The model's state machines, generated from the machine definitions (model/): every leaf state and every transition with its event and guard, as <code>npx sbkit model --mermaid</code> prints them. ` +
        `Drawn here by the kit itself (a layered layout: each state one column after its furthest predecessor); the Mermaid source of each is folded beneath it.</p>` +
        d.diagrams
          .map((x) => {
            const lines = x.mermaid.split('\n');
            const transitions = lines.filter((l) => l.includes('-->') && !l.includes('[*]')).length;
            return (
              `<h3 id="machine-${esc(x.name)}">${esc(x.name)} <span class="note">— ${transitions} transitions · <code>npx sbkit model --mermaid --machine ${esc(x.name)}</code></span></h3>` +
              (x.graph === undefined ? '' : `<div class="machine-chart">${machineSvg(x.graph)}</div>`) +
              `<details class="diagram"><summary>Mermaid source</summary><pre class="mermaid-src"><code>${esc(x.mermaid)}</code></pre></details>`
            );
          })
          .join('\n')
      );
    case 'unavailable':
      return `<p class="note">Not available: ${esc(d.reason)}</p>`;
  }
}
