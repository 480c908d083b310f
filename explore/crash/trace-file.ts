/** Reading a replica process's trace file (protocol.ts): the whole prefix a killed process left. */
import { existsSync, readFileSync } from 'node:fs';
import type { TraceEvent } from '../../vocab/index.ts';
import type { TraceLine } from './protocol.ts';

export interface TimedEvent {
  readonly t: number;
  readonly e: TraceEvent;
}

export interface TraceFile {
  readonly start?: Extract<TraceLine, { start: unknown }>['start'];
  readonly events: readonly TimedEvent[];
  readonly end?: Extract<TraceLine, { end: unknown }>['end'];
  readonly error?: string;
  /** A last line cut short (a kill between the bytes of one write: not expected, counted if seen). */
  readonly torn: number;
}

export function readTraceFile(file: string): TraceFile {
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const events: TimedEvent[] = [];
  let start: TraceFile['start'];
  let end: TraceFile['end'];
  let error: string | undefined;
  let torn = 0;
  const lines = text.split('\n');
  for (const [i, raw] of lines.entries()) {
    if (raw === '') continue;
    let line: TraceLine;
    try {
      line = JSON.parse(raw) as TraceLine;
    } catch (e) {
      // Only the very last line can be cut short by a kill; anything else is a corrupt file.
      if (i === lines.length - 1) {
        torn += 1;
        continue;
      }
      throw new Error(`${file}: line ${i + 1} is not JSON: ${e instanceof Error ? e.message : String(e)}`);
    }
    if ('start' in line) start = line.start;
    else if ('end' in line) end = line.end;
    else if ('error' in line) error = line.error;
    else events.push({ t: line.t, e: line.e });
  }
  return { ...(start === undefined ? {} : { start }), events, ...(end === undefined ? {} : { end }), ...(error === undefined ? {} : { error }), torn };
}
