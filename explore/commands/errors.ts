/** How a command reports that a run of the implementation broke (deadlock, thrown error): exit 3. */
import { EXIT } from '../command.ts';
import type { Io } from '../io.ts';
import { DeadlockError } from '../timing.ts';

export function reportRunError(io: Io, usage: string, e: unknown): number {
  const what = e instanceof DeadlockError ? e.message : e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  io.err(`${usage}: the run failed: ${what}\n`);
  return EXIT.internal;
}
