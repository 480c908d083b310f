/**
 * Cross-checks one `compare` run against the model: the run's protocol trace is replayed on the model
 * (model/predict.ts, imported lazily like every other model/ code in explore/), which must accept every
 * event and predict every append's batches, parts and result exactly, and must have nothing left to do
 * when the run ended. This is DOMAIN's "parts per append equal what the model predicts for the same
 * interleaving", on compare's own realistic interleaving rather than the conformance check's chosen ones.
 */
import type { TraceEvent } from '../vocab/index.ts';
import { MODEL_DEFAULTS } from '../model/defaults.ts';
import { partitionWorker } from '../impl/update.ts';
import type { ModelConfig, Update as ModelUpdate } from '../model/config.ts';
import { noDataOf } from './cases.ts';
import type { PreparedWorkload } from './experiment.ts';
import type { Case, Setup } from './types.ts';
import { variantOptionsOf } from './variant-options.ts';

export interface ModelAgreement {
  /** The model accepted every event, predicted every append exactly and ended where the run ended. */
  readonly agrees: boolean;
  /** Appends the model predicted exactly (all of them when it agrees; those before the divergence otherwise). */
  readonly appends: number;
  /** `100/100 appends predicted exactly`, or `diverged at event #123 (…): <reason>`. */
  readonly detail: string;
}

/** The longest model reason a detail quotes: predicted fields can be long lists of update ids. */
const MAX_REASON = 240;

/**
 * The workload as the model sees it for `workers` workers per replica: worker by impl's key hash, size
 * by impl's encoding. Computed once per workload and worker count (sweeps share a workload).
 */
export function modelUpdates(workload: PreparedWorkload, workers: number): readonly ModelUpdate[] {
  const known = workload.modelUpdates.get(workers);
  if (known !== undefined) return known;
  const made = workload.updates.map((u) => ({ id: u.id, time: u.time, worker: partitionWorker(u.key, workers), size: workload.sizes[u.id] ?? 0 }));
  workload.modelUpdates.set(workers, made);
  return made;
}

/**
 * The model configuration of a compare run: the setup's shape, the workload, persist's defaults as the
 * model states them (model/defaults.ts; compare runs on the implementation's own, so a wrong default
 * there shows as a disagreement) and the case's threshold as the one knob value (`UNLIMITED` is
 * Number.MAX_SAFE_INTEGER, a valid non-negative integer knob for the model too).
 */
export function modelConfigFor(setup: Setup, c: Case, workload: PreparedWorkload): ModelConfig {
  return {
    variant: c.variant,
    ...variantOptionsOf(setup, c.variant),
    replicas: setup.replicas,
    processes: setup.processes,
    workersPerProcess: setup.workers,
    intervals: setup.intervals,
    updates: modelUpdates(workload, setup.processes * setup.workers),
    persist: MODEL_DEFAULTS.persist,
    maxBytesChoices: [c.threshold],
    ...(noDataOf(setup, c) === undefined ? {} : { noData: noDataOf(setup, c) }),
    // With faults: as many aborts and indeterminate commits as the run had; cleanup runs (experiment.ts).
    ...(setup.faults === undefined ? {} : { faults: { aborts: Number.POSITIVE_INFINITY, indeterminate: Number.POSITIVE_INFINITY, cleanup: true } }),
  };
}

/** Replays `trace` (a finished run of `c` on `workload`) on the model. */
export function modelAgreement(setup: Setup, c: Case, workload: PreparedWorkload, trace: readonly TraceEvent[]): Promise<ModelAgreement> {
  return agreementOn(modelConfigFor(setup, c, workload), trace);
}

/** Replays `trace` (a finished run) on the model configured by `cfg`. */
export async function agreementOn(cfg: ModelConfig, trace: readonly TraceEvent[]): Promise<ModelAgreement> {
  const { predictAppends } = await import('../model/predict.ts');
  // Registry-internal sweep-hold/release events are stuttering steps for the clean model (see
  // model/predict.ts); divergence indices point into the trace as recorded.
  const total = trace.filter((e) => e.kind === 'append').length;
  const p = predictAppends(cfg, trace);
  if (!p.ok) {
    const event = trace[p.at];
    const exact = p.appends.length - (event?.kind === 'append' ? 1 : 0);
    return {
      agrees: false,
      appends: exact,
      detail: `diverged at event #${p.at}${event === undefined ? '' : ` (${eventHead(event)})`} after ${exact}/${total} appends predicted exactly: ${clip(p.reason)}`,
    };
  }
  const next = p.pending[0];
  if (next !== undefined) {
    return {
      agrees: false,
      appends: p.appends.length,
      detail: `diverged at the end (event #${trace.length}) after ${p.appends.length}/${total} appends predicted exactly: the run ended but the model still expects ${eventHead(next)}`,
    };
  }
  return { agrees: true, appends: p.appends.length, detail: `${p.appends.length}/${total} appends predicted exactly` };
}

/** An event's actor, kind and id, without its (possibly long) payload: `r0 w3 finish-begin id=5`. */
export function eventHead(e: TraceEvent): string {
  const who = 'worker' in e ? `r${e.replica} w${e.worker}` : 'process' in e ? `r${e.replica} p${e.process}` : `r${e.replica}`;
  const what =
    e.kind === 'mint' ? ` id=${e.desc.sharedId} [${e.desc.lower}, ${e.desc.upper})`
    : e.kind === 'append' || e.kind === 'delete' ? ` lower=${e.lower}`
    : e.kind === 'frontier' ? ` upper=${e.upper}`
    : 'sharedId' in e ? ` id=${e.sharedId}`
    : '';
  return `${who} ${e.kind}${what}`;
}

const clip = (s: string): string => (s.length <= MAX_REASON ? s : `${s.slice(0, MAX_REASON - 1)}…`);
