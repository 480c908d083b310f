/**
 * docs/guide/cli.md's flags tables, made from what each command declares (explore/commands/*), so the
 * guide cannot drift from `--help`: a test holds the guide to them. `npx tsx explore/cli-doc.ts --write`
 * rewrites every table between its `<!-- flags:NAME -->` and `<!-- /flags:NAME -->` markers.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from './command.ts';

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** One command's flags as a Markdown table: flag, value, default, meaning. */
export function flagsTable(c: Command): string {
  const rows = Object.entries(c.flags).map(([name, f]) => {
    const value = f.takesValue ? `\`${cell(f.placeholder)}\`` : '';
    const dflt = f.defaultText === undefined ? '' : cell(f.defaultText);
    return `| \`--${name}\` | ${value} | ${dflt} | ${cell(f.help)} |`;
  });
  return [`<!-- flags:${c.name} -->`, '| flag | value | default | what it does |', '| --- | --- | --- | --- |', ...rows, `<!-- /flags:${c.name} -->`].join('\n');
}

/** `doc` with every command's table block replaced by the current one. */
export function withTables(doc: string, commands: readonly Command[]): string {
  let out = doc;
  for (const c of commands) {
    const re = new RegExp(`<!-- flags:${c.name} -->[\\s\\S]*?<!-- /flags:${c.name} -->`);
    if (!re.test(out)) throw new Error(`docs/guide/cli.md has no <!-- flags:${c.name} --> block`);
    out = out.replace(re, () => flagsTable(c));
  }
  return out;
}

// Run as a script: rewrite the guide's tables.
if (import.meta.url === `file://${process.argv[1] ?? ''}` && process.argv.includes('--write')) {
  const { COMMANDS } = await import('./cli.ts');
  const file = join(import.meta.dirname, '..', 'docs', 'guide', 'cli.md');
  writeFileSync(file, withTables(readFileSync(file, 'utf8'), COMMANDS));
  process.stdout.write(`${file}: ${COMMANDS.length} flags tables written\n`);
}
