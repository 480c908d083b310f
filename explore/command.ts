/** What a subcommand is, and the one place where argument errors become a message and exit code 2. */
import { type CommandHelp, type FlagSpec, type FlagValues, parseArgs, renderHelp } from './args.ts';
import type { Io } from './io.ts';

/** Exit codes: what failed, TigerBeetle style. */
export const EXIT = {
  ok: 0,
  /** A check failed, a criterion was missed, or a bug went uncaught. */
  failed: 1,
  /** Bad command line. */
  usage: 2,
  /** The tool itself broke (a run deadlocked or threw). */
  internal: 3,
} as const;

export interface Command {
  readonly name: string;
  readonly summary: string;
  run(argv: readonly string[], io: Io): Promise<number>;
}

/** Parses `argv` against `spec`: prints help (exit 0) or the error naming the flag (exit 2), else runs `body`. */
export async function withArgs<S extends FlagSpec>(
  help: CommandHelp,
  spec: S,
  argv: readonly string[],
  io: Io,
  body: (values: FlagValues<S>) => Promise<number>,
): Promise<number> {
  const parsed = parseArgs(spec, argv);
  switch (parsed.kind) {
    case 'help':
      io.out(renderHelp(help, spec));
      return EXIT.ok;
    case 'error':
      return usageError(io, help.usage, parsed.message);
    case 'values':
      return body(parsed.values);
  }
}

export function usageError(io: Io, usage: string, message: string): number {
  io.err(`${usage}: ${message}\nRun "${usage} --help" for usage.\n`);
  return EXIT.usage;
}
