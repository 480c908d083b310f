/** What a step predicts: the model's version of an event and the next state, or why it is not enabled. */
import type { TraceEvent } from '../../vocab/index.ts';
import type { SystemState } from '../state.ts';

export type StepResult =
  | { readonly ok: true; readonly state: SystemState }
  | { readonly ok: false; readonly reason: string; readonly expected?: TraceEvent };

/** The model's version of an event and the state after it, or why the event is not enabled. */
export type Prediction =
  | { readonly ok: true; readonly expected: TraceEvent; readonly next: SystemState }
  | { readonly ok: false; readonly reason: string };

export const fail = (reason: string): Prediction => ({ ok: false, reason });
export const ok = (expected: TraceEvent, next: SystemState): Prediction => ({ ok: true, expected, next });
