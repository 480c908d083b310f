/** What a subcommand is, its exit codes and their reasons, and the one place where argument errors become a message and exit code 2. */
import { type CommandHelp, type FlagSpec, type FlagValues, parseArgs, renderHelp } from './args.ts';
import type { Io } from './io.ts';

/** Exit codes: what happened, TigerBeetle style. */
export const EXIT = {
  /** Every check held (or there was nothing to judge). */
  ok: 0,
  /** A violation: a check or property failed, a criterion was missed, a bug went uncaught. */
  failed: 1,
  /** Bad command line. */
  usage: 2,
  /** The tool itself broke (a run deadlocked or threw) or could not read or write a file. */
  internal: 3,
  /** No verdict: a search or a budget ran out first (--max-states, --max-memory, --max-seconds, --seconds, --runs). */
  incomplete: 4,
} as const;

/** The exit codes in words, for `--help` and docs/guide/cli.md. */
export const EXIT_CODES_TEXT =
  'Exit codes: 0 every check held; 1 a violation (a check or property failed, a criterion was missed, a bug\n' +
  'went uncaught); 2 bad command line; 3 internal or I/O error (a run broke, a file could not be written);\n' +
  '4 incomplete (a search or budget ran out before a verdict: --max-states, --max-memory, --max-seconds,\n' +
  "crash-test's --seconds, model coverage below the default --runs). A violation outranks an incomplete\n" +
  'search. Every non-zero exit prints its reasons on stderr, one line each.';

/** Why a command exits non-zero: one line naming what failed, and the flag or budget that would change it. */
export interface Reason {
  readonly exit: typeof EXIT.failed | typeof EXIT.incomplete;
  readonly text: string;
}

export const violation = (text: string): Reason => ({ exit: EXIT.failed, text });
export const incomplete = (text: string): Reason => ({ exit: EXIT.incomplete, text });

/** 0 without reasons; 1 if any is a violation; else 4. */
export function exitCodeOf(reasons: readonly Reason[]): number {
  if (reasons.length === 0) return EXIT.ok;
  return reasons.some((r) => r.exit === EXIT.failed) ? EXIT.failed : EXIT.incomplete;
}

/** Prints the reasons of a non-zero exit on stderr, one line each (nothing when there are none), and returns the exit code. */
export function exitWith(io: Io, usage: string, reasons: readonly Reason[]): number {
  const code = exitCodeOf(reasons);
  if (code !== EXIT.ok) {
    const lines = reasons.map((r) => `  - ${r.exit === EXIT.failed ? 'violation' : 'incomplete'}: ${r.text}`);
    io.err(`${usage}: exit ${code}:\n${lines.join('\n')}\n`);
  }
  return code;
}

export interface Command {
  readonly name: string;
  readonly summary: string;
  /** Its --help text and flags (docs/guide/cli.md's tables are made from them). */
  readonly help: CommandHelp;
  readonly flags: FlagSpec;
  run(argv: readonly string[], io: Io): Promise<number>;
}

/** A command's help with the exit codes appended (every command's --help says them). */
export function helpText(help: CommandHelp, spec: FlagSpec): string {
  return renderHelp({ ...help, notes: [...(help.notes ?? []), EXIT_CODES_TEXT] }, spec);
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
      io.out(helpText(help, spec));
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
