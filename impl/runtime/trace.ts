/**
 * Emits abstract protocol events (vocab TraceEvent) to an optional observer, and builds the summaries
 * events carry. Production passes no observer: emitting is then one branch.
 */
import type { BatchSummary, Observer, PartsSummary, TraceEvent } from '../../vocab/index.ts';

export class Trace {
  constructor(private readonly observer?: Observer) {}

  emit(e: TraceEvent): void {
    this.observer?.event(e);
  }
}

export function addParts(a: PartsSummary, b: PartsSummary): PartsSummary {
  return { hollow: a.hollow + b.hollow, inline: a.inline + b.inline };
}

export const NO_PARTS: PartsSummary = { hollow: 0, inline: 0 };

export function ascending(ids: Iterable<number>): number[] {
  return [...ids].sort((a, b) => a - b);
}

export function summary(updates: Iterable<number>, parts: PartsSummary): BatchSummary {
  return { updates: ascending(updates), parts };
}
