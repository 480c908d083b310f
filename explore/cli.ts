/**
 * `sbkit`: the command-line entry point (bin/sbkit.js calls `main`). Dispatches to a subcommand;
 * returns the exit code instead of exiting, so tests call it directly.
 */
import { type Command, EXIT } from './command.ts';
import { bugsCommand } from './commands/bugs.ts';
import { checkCommand } from './commands/check.ts';
import { compareCommand } from './commands/compare.ts';
import { crashTestCommand } from './commands/crash-test.ts';
import { modelCommand } from './commands/model.ts';
import { reportCommand } from './commands/report.ts';
import { type Io, processIo } from './io.ts';

export const COMMANDS: readonly Command[] = [compareCommand, checkCommand, modelCommand, bugsCommand, reportCommand, crashTestCommand];

export function topHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    'Usage: sbkit <command> [flags]',
    '',
    "Explore Materialize's shared batches in the materialized-view sink: off, best-effort (#37591) and",
    'barrier (#37617), run on an embedded in-memory persist backend.',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Run "sbkit <command> --help" for its flags.',
    'Exit codes: 0 ok, 1 a check failed or a criterion was missed, 2 bad command line, 3 a run broke.',
    '',
  ].join('\n');
}

export async function main(argv: readonly string[], io: Io = processIo()): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    io.err(topHelp());
    return EXIT.usage;
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    io.out(topHelp());
    return EXIT.ok;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (command === undefined) {
    const what = name.startsWith('-') ? `unknown flag ${name} (flags go after the command)` : `unknown command "${name}"`;
    io.err(`sbkit: ${what}; commands: ${COMMANDS.map((c) => c.name).join(', ')}\nRun "sbkit --help" for usage.\n`);
    return EXIT.usage;
  }
  return command.run(rest, io);
}
