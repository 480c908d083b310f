/** A variant's report section (explore/variants/ `sections`): run from the report's setup, rendered after the latency section. */
import { describe, expect, it } from 'vitest';
import { offMeta } from '../vocab/variants/off.ts';
import { captureIo } from './io.ts';
import { runVariantSections } from './job.ts';
import { renderReport } from './report/index.ts';
import type { Comparison, Setup } from './types.ts';
import { EXPLORE_VARIANTS, lazySection, sectionOf, type ExploreVariant, type VariantSection } from './variants/index.ts';

const setup: Setup = { replicas: 1, processes: 1, workers: 2, intervals: 3, rows: 10, rowBytes: 100, threshold: 1 << 20, seed: 7 };

/** A section whose data is what its context gave it. */
const probe: VariantSection<{ workers: number; variants: readonly string[] }> = {
  id: 'probe-section',
  title: 'A probe <section>',
  data: (ctx) => {
    ctx.progress(0.5, 'half');
    return Promise.resolve({ workers: ctx.setup.workers, variants: ctx.variants });
  },
  html: (d, ctx) => `<p>${d.workers} workers of ${d.variants.join('+')}: <code>${ctx.compareCommand('steady', ctx.setup, ['--x'])}</code></p>`,
};
const off = EXPLORE_VARIANTS.find((v) => v.meta === offMeta) as ExploreVariant;
const registry: readonly ExploreVariant[] = [{ ...off, sections: [sectionOf(probe)] }];

describe("a variant's report section", () => {
  it('runs when the report runs its variant, from the report setup, with the report reproduce line', async () => {
    const io = captureIo();
    const [s] = await runVariantSections(io, setup, [offMeta.name], registry);
    expect(s).toEqual({
      id: 'probe-section',
      title: 'A probe <section>',
      html: '<p>2 workers of off: <code>npx sbkit compare --replicas 1 --processes 1 --workers 2 --intervals 3 --rows 10 --row-bytes 100 --threshold 1MiB --seed 7 --x</code></p>',
    });
    expect(await runVariantSections(io, setup, [], registry)).toEqual([]);
  });

  it('may load its module only when the report runs it', async () => {
    let loaded = 0;
    const lazy = lazySection({ id: probe.id, title: probe.title }, () => {
      loaded += 1;
      return Promise.resolve(probe);
    });
    expect(loaded).toBe(0);
    const [s] = await runVariantSections(captureIo(), setup, [offMeta.name], [{ ...off, sections: [lazy] }]);
    expect(loaded).toBe(1);
    expect(s?.html).toMatch(/^<p>2 workers of off: /);
  });

  it('gets its heading and table-of-contents entry in the report', () => {
    const comparison: Comparison = { scenario: 'steady', setup, variants: [], rows: [] };
    const html = renderReport({
      command: 't',
      comparison,
      criteria: [],
      sweeps: [],
      check: { kind: 'skipped', reason: 'x' },
      diagrams: { kind: 'unavailable', reason: 'x' },
      variantSections: [{ id: 'probe-section', title: 'A probe <section>', html: '<p>body</p>' }],
    });
    expect(html).toContain('<a href="#probe-section">A probe &lt;section&gt;</a>');
    expect(html).toContain('<h2 id="probe-section">A probe &lt;section&gt;</h2>\n<p>body</p>');
  });
});
