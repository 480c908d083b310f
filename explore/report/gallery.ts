/** The counterexample gallery: each bug found and shrunk by the check, drawn as a sequence diagram; the model's review-bug counterexample. */
import type { BugName } from '../../vocab/index.ts';
import { type Sequence, toSvg } from '../sequence.ts';
import { esc } from './html.ts';

export interface GalleryEntry {
  readonly bug: BugName;
  readonly description: string;
  /** The check's summary line. */
  readonly summary: string;
  /** The command that finds it and writes the diagram. */
  readonly command: string;
  readonly sequence?: Sequence | undefined;
  /** When the check did not fail (the bug went unnoticed): why there is no diagram. */
  readonly missing?: string | undefined;
}

export type GallerySection =
  | { readonly kind: 'ran'; readonly entries: readonly GalleryEntry[]; readonly model?: { readonly sequence: Sequence; readonly command: string } | undefined }
  | { readonly kind: 'skipped'; readonly reason: string };

export function gallerySection(g: GallerySection): string {
  if (g.kind === 'skipped') return `<p class="note">Not run: ${esc(g.reason)}</p>`;
  const legend =
    `<p class="note">Each bug of the gallery switched on in the implementation, found by <code>sbkit check</code> and shrunk; its counterexample drawn as a sequence diagram: a lane per worker, per builder instance (a late best-effort handle gets a new one), the registry, the append operator and the shard; arrows are calls (dashed: what a call returned), yellow boxes are a lane's own steps. ` +
    `The step numbers are the trace's event numbers as <code>sbkit check</code> prints them. <span style="color:#b00020;font-weight:600">Red</span>: the event where the model diverged (or, when only a property, the audit or liveness failed, a band after the last event). ` +
    `The same diagrams as Mermaid source: <code>--emit-diagram FILE</code>.</p>`;
  const entries = g.entries
    .map((e) => {
      const body = e.sequence === undefined ? `<p class="miss">${esc(e.missing ?? 'no counterexample')}</p>` : `<div class="seq">${toSvg(e.sequence)}</div>`;
      return (
        `<details class="gallery" id="bug-${esc(e.bug)}" open><summary>${esc(e.bug)} <span class="note">— ${esc(e.description)}</span></summary>` +
        `<p class="note">${esc(e.summary)}. Reproduce: <code>${esc(e.command)}</code></p>${body}` +
        `${e.sequence === undefined ? '' : `<ul class="note">${e.sequence.notes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul>`}</details>`
      );
    })
    .join('\n');
  const model =
    g.model === undefined
      ? ''
      : `<details class="gallery" id="bug-model" open><summary>the review bug in the model <span class="note">— the exhaustive search's shortest counterexample</span></summary>` +
        `<p class="note">Reproduce: <code>${esc(g.model.command)}</code></p><div class="seq">${toSvg(g.model.sequence)}</div></details>`;
  return legend + entries + model;
}
