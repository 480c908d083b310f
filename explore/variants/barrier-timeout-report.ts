/**
 * The report section of `barrier-timeout`: "Bounding the barrier's wait". Its deadline T swept over
 * 0, 1 ms, 5 ms, 20 ms and inf at 0%, 5% and 20% stragglers, on the report's straggler workload (the
 * headline's system, 100 intervals of 500 updates of ~1 KB: job.ts DEFAULT_STRAGGLER_SWEEP): parts per
 * append and p99 commit latency against T, one trade-off chart, the reproduce lines, and one sentence
 * computed from the figures saying what T buys.
 *
 * A data function (`timeoutTradeoff`) and an HTML renderer (`tradeoffHtml`), joined as the variant's
 * section (presentation.ts VariantSection).
 */
import { barrierTimeoutMeta } from '../../vocab/variants/barrier-timeout.ts';
import { runSweeps } from '../compare.ts';
import { headlineRow } from '../cases.ts';
import { fixed } from '../format.ts';
import { scatterChart } from '../charts/scatter.ts';
import { escapeXml as esc } from '../svg.ts';
import { DEFAULT_STRAGGLER_SLOWDOWN } from '../timing.ts';
import type { Figures, Setup, SweepResult } from '../types.ts';
import { formatDuration } from '../variant-options.ts';
import type { SectionBody, SectionContext } from './presentation.ts';

/** The option swept, and its sweep parameter: the option's flag without its dashes. */
const OPTION = barrierTimeoutMeta.options[0] as (typeof barrierTimeoutMeta.options)[number];
export const TIMEOUT_PARAM = OPTION.flag.replace(/^--/, '');

/** The deadlines swept: none at all (0, best-effort's end), a few milliseconds, and inf (the barrier's end). */
export const TIMEOUTS: readonly number[] = [0, 1, 5, 20, Number.POSITIVE_INFINITY];
/** Straggler probabilities (each straggler 100× slower): none, and the latency section's 5% and 20%. */
export const STRAGGLERS: readonly number[] = [0, 0.05, 0.2];
/** The latency section's workload (job.ts DEFAULT_STRAGGLER_SWEEP: the size of one upload shows). */
export const WORKLOAD = { rows: 500, rowBytes: 1000, intervals: 100 } as const;

/** One straggler level: its setup and the sweep of T on it. */
export interface TradeoffLevel {
  readonly probability: number;
  readonly setup: Setup;
  readonly sweep: SweepResult;
}

export interface TimeoutTradeoff {
  readonly levels: readonly TradeoffLevel[];
}

/** The runs: for each straggler level, the variant alone with T swept. */
export async function timeoutTradeoff(ctx: Pick<SectionContext, 'setup' | 'progress'>, opts: { readonly stragglers?: readonly number[]; readonly workload?: Pick<Setup, 'rows' | 'rowBytes' | 'intervals'> } = {}): Promise<TimeoutTradeoff> {
  const probabilities = opts.stragglers ?? STRAGGLERS;
  const levels: TradeoffLevel[] = [];
  for (const [i, probability] of probabilities.entries()) {
    const { stragglers: _none, ...base } = ctx.setup;
    const setup: Setup = { ...base, ...(opts.workload ?? WORKLOAD), ...(probability === 0 ? {} : { stragglers: { probability, slowdown: DEFAULT_STRAGGLER_SLOWDOWN } }) };
    const at = (f: number, label: string): void => ctx.progress((i + f) / probabilities.length, `stragglers ${percentText(probability)} ${label}`);
    const [sweep] = await runSweeps('steady', setup, [barrierTimeoutMeta.name], [{ param: TIMEOUT_PARAM, values: TIMEOUTS }], at);
    if (sweep === undefined) throw new Error('the deadline sweep ran no point');
    levels.push({ probability, setup, sweep });
  }
  return { levels };
}

const percentText = (p: number): string => `${Number((p * 100).toPrecision(6))}%`;
const ms = (v: number): string => `${fixed(v, 1)} ms`;

/** The variant's row at each T of a level, in sweep order. */
function rowsOf(level: TradeoffLevel): { readonly timeout: number; readonly row: Figures }[] {
  return level.sweep.points.map((p) => ({ timeout: p.value, row: headlineRow(p.comparison, barrierTimeoutMeta.name) as Figures }));
}

/**
 * What T buys, from the figures: the largest finite T > 0 whose p99 stays within `slack` ms of T = 0's
 * (best-effort's) at every straggler level, with what it costs in parts per append; or, when none
 * does, that no finite T keeps it.
 */
export function whatTBuys(t: TimeoutTradeoff, slack = 1): string {
  const straggling = t.levels.filter((l) => l.probability > 0);
  if (straggling.length === 0) return 'Without stragglers every T gives the same figures: the barrier completes before any deadline.';
  const at = (l: TradeoffLevel, timeout: number): Figures | undefined => rowsOf(l).find((r) => r.timeout === timeout)?.row;
  const candidates = TIMEOUTS.filter((x) => x > 0 && Number.isFinite(x)).filter((x) =>
    straggling.every((l) => {
      const r = at(l, x);
      const zero = at(l, 0);
      return r !== undefined && zero !== undefined && r.latencyP99Ms <= zero.latencyP99Ms + slack;
    }),
  );
  const best = candidates[candidates.length - 1];
  const levels = straggling.map((l) => percentText(l.probability)).join(' and ');
  const each = (f: (l: TradeoffLevel) => string): string => straggling.map(f).join(' and ');
  if (best === undefined) {
    return `At ${levels} stragglers no finite T > 0 keeps the p99 commit latency within ${slack} ms of T = 0's (${each((l) => ms(at(l, 0)?.latencyP99Ms ?? 0))}).`;
  }
  return (
    `At ${levels} stragglers, T = ${formatDuration(best)} keeps the p99 commit latency at ${each((l) => ms(at(l, best)?.latencyP99Ms ?? 0))} ` +
    `(T = 0, best-effort's behaviour: ${each((l) => ms(at(l, 0)?.latencyP99Ms ?? 0))}; T = inf, the barrier: ${each((l) => ms(at(l, Number.POSITIVE_INFINITY)?.latencyP99Ms ?? 0))}) ` +
    `with ${each((l) => fixed(at(l, best)?.partsPerAppend ?? 0, 2))} parts per append instead of ${each((l) => fixed(at(l, 0)?.partsPerAppend ?? 0, 2))} at T = 0.`
  );
}

/** The section's HTML: what it shows, the sentence, the chart, the table, the reproduce lines. */
export function tradeoffHtml(t: TimeoutTradeoff, ctx: Pick<SectionContext, 'compareCommand'>): string {
  const sweepFlag = `--sweep ${TIMEOUT_PARAM}=${TIMEOUTS.map(formatDuration).join(',')}`;
  const first = t.levels[0];
  const sub = first === undefined ? '' : `${first.setup.workers} workers · ${first.setup.intervals} intervals × ${first.setup.rows} updates of ~${first.setup.rowBytes} B · seed ${first.setup.seed}`;
  const chart = scatterChart({
    title: 'The deadline trade-off: parts per append against p99 commit latency',
    subtitle: sub,
    xLabel: 'parts per append',
    yLabel: 'p99 commit latency (virtual ms)',
    xFormat: (v) => fixed(v, 1),
    format: (v) => fixed(v, 1),
    joined: true,
    groups: [],
    points: t.levels.flatMap((l) =>
      rowsOf(l).map(({ timeout, row }) => ({ series: `stragglers ${percentText(l.probability)}`, group: 'deadline', x: row.partsPerAppend, y: row.latencyP99Ms, label: `T=${formatDuration(timeout)}` })),
    ),
  });
  const head =
    `<tr class="groups"><th></th>${t.levels.map((l) => `<th colspan="2">stragglers ${esc(percentText(l.probability))}</th>`).join('')}</tr>` +
    `<tr><th class="l">T</th>${t.levels.map(() => '<th class="r">parts/append</th><th class="r">p99</th>').join('')}</tr>`;
  const body = TIMEOUTS.map(
    (timeout) =>
      `<tr><td class="l">${esc(formatDuration(timeout))}</td>${t.levels
        .map((l) => {
          const r = rowsOf(l).find((x) => x.timeout === timeout)?.row;
          return r === undefined ? '<td class="r">—</td><td class="r">—</td>' : `<td class="r">${fixed(r.partsPerAppend, 2)}</td><td class="r">${esc(ms(r.latencyP99Ms))}</td>`;
        })
        .join('')}</tr>`,
  ).join('');
  const faults = t.levels.flatMap((l) => rowsOf(l).filter((x) => x.row.lost + x.row.duplicated + x.row.leakedBlobs > 0 || !x.row.modelAgrees).map((x) => `${percentText(l.probability)} T=${formatDuration(x.timeout)}`));
  return (
    `<p>The barrier of #37617 waits for every worker of the process, so one straggler holds back the whole process's upload; <code>${esc(barrierTimeoutMeta.name)}</code> waits at most T after the first report, ` +
    `then completes with the workers that joined, and the workers that come later share among themselves best-effort. T = 0 is close to best-effort, T = inf is the barrier.</p>` +
    `<p><strong>${esc(whatTBuys(t))}</strong></p>` +
    `<div class="charts">${chart}</div>` +
    `<div class="scroll"><table><thead>${head}</thead><tbody>${body}</tbody></table></div>` +
    `<p class="note">${faults.length === 0 ? 'Every run: nothing lost, duplicated or leaked, and the model predicted every append.' : `<strong class="miss">Lost, duplicated or leaked data, or a model divergence, at ${esc(faults.join(', '))}.</strong>`} ` +
    `Reproduce (one line per straggler level):</p><pre>${t.levels.map((l) => esc(ctx.compareCommand('steady', l.setup, [`--variants ${barrierTimeoutMeta.name}`, sweepFlag, '--json']))).join('\n')}</pre>`
  );
}

/** The section's body (its heading: barrier-timeout.ts). */
export const boundingTheWait: SectionBody<TimeoutTradeoff> = {
  data: (ctx) => timeoutTradeoff(ctx, ctx.stragglers === undefined ? {} : { stragglers: ctx.stragglers.probabilities, workload: ctx.stragglers }),
  html: (t, ctx) => tradeoffHtml(t, ctx),
};
