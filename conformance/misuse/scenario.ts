/** The misuse scenarios' names and what a scenario's program comes to. */

export const SCENARIOS = ['handles', 'barrier', 'builder', 'batch', 'stores', 'registry', 'faults', 'failing', 'reuse', 'ids', 'writers', 'claims'] as const;
export type Scenario = (typeof SCENARIOS)[number];

export interface MisuseVerdict {
  readonly scenario: Scenario;
  /** The calls made, one line each (what a failure prints). */
  readonly program: readonly string[];
  /** Refusal codes the model predicted, with how many times (the vacuity counters). */
  readonly refusals: Readonly<Record<string, number>>;
  /** What went wrong: empty when every call behaved as predicted. */
  readonly wrong: readonly string[];
}
