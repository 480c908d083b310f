/**
 * Part-count prediction: what each compare-and-append carries — batches, parts (hollow, inline) and
 * result — as the model computes it for the same interleaving (vocab/PROTOCOL.md, "Batches and parts",
 * "Inline backpressure"). From an accepted trace (`predictAppends`) or from a model state
 * (`appendsOf`).
 */
import type { AppendResult, PartsSummary, TraceEvent } from '../vocab/index.ts';
import type { ModelConfig } from './config.ts';
import type { SystemState } from './state.ts';
import { enabledActions, firstDifference, initialState, predict } from './system.ts';

export interface PredictedAppend {
  readonly replica: number;
  readonly lower: number;
  readonly upper: number;
  readonly batches: number;
  readonly parts: PartsSummary;
  readonly result: AppendResult;
}

export type AppendPrediction =
  | {
      readonly ok: true;
      readonly appends: readonly PredictedAppend[];
      readonly state: SystemState;
      /** What the model still expects after the last event (empty when the trace ended where the model ends). */
      readonly pending: readonly TraceEvent[];
    }
  | {
      readonly ok: false;
      /** Index (in the trace given) of the first event the model does not accept. */
      readonly at: number;
      readonly reason: string;
      /** The model's version of that event, when it has one. */
      readonly expected?: TraceEvent;
      /** Predictions up to and including the diverging event (if it is an append). */
      readonly appends: readonly PredictedAppend[];
    };

const predicted = (e: Extract<TraceEvent, { kind: 'append' }>): PredictedAppend => ({
  replica: e.replica,
  lower: e.lower,
  upper: e.upper,
  batches: e.batches,
  parts: e.parts,
  result: e.result,
});

/**
 * SUBTLE: `sweep-hold` / `sweep-release` are registry-internal steps, emitted only by an implementation
 * with the sweep-upgrade-race bug (for diagnosis). A model without that bug has no such actions, and
 * refinement is over observable behaviour, so they are stuttering steps here: their harm must show
 * where it is observable (a finish that is not last when the model says it is, an interval sealed
 * without its data), not by their name. With `bugs.sweepUpgradeRace` the model replays them.
 */
export function isStutteringStep(cfg: ModelConfig, e: TraceEvent): boolean {
  return (e.kind === 'sweep-hold' || e.kind === 'sweep-release') && cfg.bugs?.sweepUpgradeRace !== true;
}

/**
 * Replays `trace` on the model and returns the model's prediction for every append in it, where it
 * diverged, or — when every event was accepted — what the model still expects (`pending`).
 */
export function predictAppends(cfg: ModelConfig, trace: readonly TraceEvent[]): AppendPrediction {
  let state = initialState(cfg);
  const appends: PredictedAppend[] = [];
  for (let at = 0; at < trace.length; at++) {
    const event = trace[at] as TraceEvent;
    if (isStutteringStep(cfg, event)) continue;
    const p = predict(cfg, state, event);
    if (!p.ok) return { ok: false, at, reason: `not enabled: ${event.kind}: ${p.reason}`, appends };
    if (p.expected.kind === 'append') appends.push(predicted(p.expected));
    const diff = firstDifference(p.expected, event, event.kind);
    if (diff !== null) return { ok: false, at, reason: `predicted field differs: ${diff}`, expected: p.expected, appends };
    state = p.next;
  }
  return { ok: true, appends, state, pending: enabledActions(cfg, state) };
}

/** The appends a model state has performed, in order. */
export function appendsOf(state: SystemState): readonly PredictedAppend[] {
  return state.history.appends.map((a) => ({
    replica: a.replica,
    lower: a.lower,
    upper: a.upper,
    batches: a.batches.length,
    parts: a.parts,
    result: a.result,
  }));
}
