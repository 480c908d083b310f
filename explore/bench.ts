/**
 * `npm run bench`: speed and memory figures of `compare` on defaults. Prints figures only; nothing here
 * is asserted (tests never assert timing).
 */
import { VARIANTS } from './variants/index.ts';
import { prepareWorkload, runCase } from './experiment.ts';
import { fixed, thousands } from './format.ts';
import { DEFAULT_SETUP } from './main.ts';
import { col, renderTable } from './table.ts';

const REPEATS = Number(process.env['SBKIT_BENCH_REPEATS'] ?? 3);

const mib = (n: number): string => `${fixed(n / 1024 / 1024, 1)} MiB`;

async function bench(): Promise<void> {
  const setup = DEFAULT_SETUP;
  const t0 = performance.now();
  const workload = prepareWorkload(setup);
  const prepMs = performance.now() - t0;
  const rows: string[][] = [];
  let totalMs = 0;
  let peakHeap = 0;
  for (const variant of VARIANTS) {
    const times: number[] = [];
    for (let i = 0; i < REPEATS; i++) {
      const start = performance.now();
      await runCase(setup, { variant, threshold: setup.threshold }, workload);
      times.push(performance.now() - start);
      peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
    }
    const mean = times.reduce((a, b) => a + b, 0) / times.length;
    totalMs += mean;
    rows.push([variant, fixed(mean, 0), fixed(Math.min(...times), 0), fixed(1000 / mean, 2), fixed((setup.intervals * 1000) / mean, 0)]);
  }
  console.log(
    `compare on defaults: ${setup.workers} workers × ${setup.processes} process, ${setup.intervals} intervals × ${thousands(setup.rows)} updates; ${REPEATS} repeats (node ${process.version})\n`,
  );
  console.log(
    renderTable(
      [col('variant', 'left'), col('mean ms/run'), col('best ms'), col('runs/s'), col('intervals/s')],
      rows,
    ),
  );
  const mem = process.memoryUsage();
  console.log(`\nworkload generation: ${fixed(prepMs, 0)} ms`);
  console.log(`whole compare (3 variants, one run each): ~${fixed(totalMs + prepMs, 0)} ms → ${fixed(1000 / (totalMs + prepMs), 2)} compares/s`);
  console.log(`heap used: ${mib(mem.heapUsed)} now, ${mib(peakHeap)} peak sampled; rss ${mib(mem.rss)}`);
}

await bench();
