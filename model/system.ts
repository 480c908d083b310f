/**
 * The system: R replicas × P processes × W workers over K intervals, composed from the machines of this
 * folder, as a pure step function over `TraceEvent`s (vocab/index.ts) — the contract of vocab/PROTOCOL.md.
 *
 * Source: Materialize PRs #37591 (shared batches, best-effort, threshold/fallback, the sweep and its review
 * bug) and #37617 (the barrier). Abstracted away: see each machine's header; here additionally the shard
 * is an upper and an inline byte count (consensus), and every event is one atomic scheduling point.
 *
 * Shape of one step (Stateright's "actions, enabledness, next state"):
 *   `predict(cfg, state, event)` decides whether the event's *actor* can take that kind of step now
 *   (guards, in the machines), and if so computes the model's own version of the event — every predicted
 *   field — and the next state (effects, in the machines). `step` then compares the model's version with
 *   the given event field by field. `enabledActions` proposes one event per actor and choice, and keeps
 *   those `predict` accepts, so every event it lists is accepted by `step`.
 *
 * The system is split by concept under model/system/: `prediction.ts` (what a step predicts), `initial.ts`
 * (the initial state), `helpers.ts` (small immutable updates, what a config derives), `sites.ts` (where an
 * event happens), one file per kind of actor's events (`replica-events.ts`, `worker-events.ts`,
 * `registry-events.ts`, `fault-events.ts`), `predict.ts` (an event to its actor's prediction), `step.ts`
 * (the step function: prediction compared field by field) and `enabled.ts` (enabled actions). This file
 * is the entry every importer uses.
 */
export type { SystemState } from './state.ts';
export type { Prediction, StepResult } from './system/prediction.ts';
export { initialState } from './system/initial.ts';
export { builderViewsOf, isReplicaSealed } from './system/fault-events.ts';
export { barrierTimesOut } from './system/sites.ts';
export { predict } from './system/predict.ts';
export { firstDifference, step } from './system/step.ts';
export {
  actorCandidates,
  actorsOf,
  enabledActions,
  isFinal,
  isSealed,
  serialize,
  successors,
  type Actor,
  type Successor,
} from './system/enabled.ts';
