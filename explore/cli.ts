/**
 * `sbkit`: the command-line entry point (bin/sbkit.js calls `main`). Dispatches to a subcommand;
 * returns the exit code instead of exiting, so tests call it directly.
 */
import { readFileSync } from 'node:fs';
import { type Command, EXIT, EXIT_CODES_TEXT } from './command.ts';
import { bugsCommand } from './commands/bugs.ts';
import { checkCommand } from './commands/check.ts';
import { compareCommand } from './commands/compare.ts';
import { crashTestCommand } from './commands/crash-test.ts';
import { modelCommand } from './commands/model.ts';
import { reportCommand } from './commands/report.ts';
import { type Io, processIo } from './io.ts';
import { VARIANTS } from './variants/index.ts';

export const COMMANDS: readonly Command[] = [compareCommand, checkCommand, modelCommand, bugsCommand, reportCommand, crashTestCommand];

export function topHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    'Usage: sbkit <command> [flags]',
    '',
    "Explore Materialize's shared batches in the materialized-view sink (#37591 best-effort, #37617 the",
    `barrier) on an embedded in-memory persist backend; variants: ${VARIANTS.join(', ')}.`,
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Run "sbkit <command> --help" for its flags, "sbkit --version" for the version.',
    EXIT_CODES_TEXT,
    '',
  ].join('\n');
}

/** The package's version (package.json), as `sbkit --version` prints it. */
export function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: unknown };
  return typeof pkg.version === 'string' ? pkg.version : 'unknown';
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
  if (name === '--version' || name === '-V' || name === 'version') {
    io.out(`sbkit ${version()}\n`);
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
