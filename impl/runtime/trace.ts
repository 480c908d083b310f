/**
 * Emits abstract protocol events (vocab TraceEvent) to an optional observer, and builds the summaries
 * events carry. Production passes no observer: emitting is then one branch.
 */
import type { BatchSummary, Observer, PartsSummary, TraceEvent } from '../../vocab/index.ts';
import { countParts, type Part } from '../persist/part.ts';

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

/** A batch as trace events show it: ascending ids, part counts, and each part's payload bytes in cut order. */
export function summary(updates: Iterable<number>, parts: readonly Part[]): BatchSummary {
  return { updates: ascending(updates), parts: countParts(parts), partBytes: parts.map((p) => p.payloadBytes) };
}
