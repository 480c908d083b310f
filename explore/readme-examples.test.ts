/**
 * The README's example outputs are what the commands print: each block under an
 * `<!-- output of: sbkit … -->` comment is run and matched line by line. A line ending in `…` matches
 * any line it begins; a line that is only `…` (indented or not) stands for any number of lines. The
 * block may start anywhere in the output, and every other line must follow the one before it.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { main } from './cli.ts';
import { captureIo } from './io.ts';

const README = join(dirname(fileURLToPath(import.meta.url)), '..', 'README.md');

interface Example {
  readonly argv: string[];
  readonly lines: string[];
}

export function examplesOf(markdown: string): Example[] {
  const out: Example[] = [];
  const re = /<!-- output of: sbkit ([^>]*?) -->\n```[^\n]*\n([\s\S]*?)\n```/g;
  for (const m of markdown.matchAll(re)) out.push({ argv: (m[1] ?? '').trim().split(/\s+/), lines: (m[2] ?? '').split('\n') });
  return out;
}

/** Where `block` stops matching `output` (undefined: it matches), as a readable reason. */
export function mismatch(block: readonly string[], output: readonly string[]): string | undefined {
  const gap = (l: string): boolean => l.trim() === '…';
  const fits = (pattern: string, line: string): boolean => (pattern.endsWith('…') ? line.startsWith(pattern.slice(0, -1)) : line === pattern);
  const from = (b: number, o: number): boolean => {
    if (b === block.length) return true;
    const p = block[b] as string;
    if (gap(p)) {
      for (let k = o; k <= output.length; k++) if (from(b + 1, k)) return true;
      return false;
    }
    return o < output.length && fits(p, output[o] as string) && from(b + 1, o + 1);
  };
  for (let start = 0; start < output.length; start++) if (from(0, start)) return undefined;
  // The longest prefix of the block that matches somewhere: its next line is the one that drifted.
  for (let n = block.length - 1; n > 0; n--) {
    const prefix = block.slice(0, n);
    if (mismatch(prefix, output) === undefined) return `README line "${block[n]}" (block line ${n + 1}) is not what the command prints after "${block[n - 1]}"`;
  }
  return `README's first line "${block[0]}" is nowhere in the output`;
}

describe('mismatch (the matcher)', () => {
  it('takes exact lines, prefixes ending in …, and … for any number of lines; anything else is named', () => {
    const out = ['head', 'a 1', 'b 2', 'c 3', 'd 4'];
    expect(mismatch(['a 1', 'b 2'], out)).toBeUndefined();
    expect(mismatch(['a 1', '…', 'd 4'], out)).toBeUndefined();
    expect(mismatch(['a…', '  …', 'd 4'], out)).toBeUndefined();
    expect(mismatch(['a 1', 'c 3'], out)).toMatch(/README line "c 3" \(block line 2\)/);
    expect(mismatch(['z'], out)).toMatch(/first line "z" is nowhere/);
  });
});

describe("the README's example outputs", () => {
  const examples = examplesOf(readFileSync(README, 'utf8'));

  it('has the examples it shows (compare, a failing check)', () => {
    expect(examples.map((e) => e.argv[0])).toEqual(['compare', 'check']);
  });

  for (const e of examples) {
    it(`sbkit ${e.argv.join(' ')}`, async () => {
      const io = captureIo();
      await main(e.argv, io);
      const output = `${io.stdout()}${io.stderr()}`.split('\n');
      expect(mismatch(e.lines, output), `regenerate README's block from: node bin/sbkit.js ${e.argv.join(' ')}`).toBeUndefined();
    });
  }
});
