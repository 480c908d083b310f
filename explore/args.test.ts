import { describe, expect, it } from 'vitest';
import { UNLIMITED, bytesFlag, choiceListFlag, formatBytesShort, intFlag, optional, parseArgs, parseBytes, renderHelp, switchFlag } from './args.ts';

const spec = {
  workers: intFlag({ help: 'workers', defaultValue: 8, min: 1, max: 64 }),
  threshold: bytesFlag({ help: 'threshold', defaultValue: 1024, min: 0 }),
  rows: optional(intFlag({ help: 'rows', defaultValue: 1, min: 0, max: 10 }), '1'),
  variants: choiceListFlag({ help: 'variants', choices: ['a', 'b', 'c'] as const, defaultValue: ['a', 'b'] }),
  json: switchFlag('json'),
} as const;

describe('parseArgs', () => {
  it('gives defaults when nothing is passed', () => {
    const r = parseArgs(spec, []);
    expect(r).toEqual({ kind: 'values', values: { workers: 8, threshold: 1024, rows: undefined, variants: ['a', 'b'], json: false } });
  });

  it('accepts --flag value and --flag=value and switches', () => {
    const r = parseArgs(spec, ['--workers', '4', '--threshold=64KiB', '--rows', '0', '--variants', 'c,a', '--json']);
    expect(r).toEqual({ kind: 'values', values: { workers: 4, threshold: 65536, rows: 0, variants: ['c', 'a'], json: true } });
  });

  it.each([
    [['--nope'], 'unknown flag --nope'],
    [['--workers', 'x'], '--workers: expected an integer from 1 to 64, got "x"'],
    [['--workers', '0'], '--workers: expected an integer from 1 to 64, got "0"'],
    [['--workers', '1.5'], '--workers: expected an integer'],
    [['--workers'], '--workers needs a value'],
    [['--workers', '--json'], '--workers needs a value'],
    [['--workers', '2', '--workers', '3'], '--workers is given twice'],
    [['--json=yes'], '--json takes no value'],
    [['stray'], 'unexpected argument "stray"'],
    [['--threshold', '12 parsecs'], '--threshold: expected a byte size'],
    [['--variants', 'a,z'], '--variants: expected one of a, b, c, got "z"'],
    [['--variants', 'a,a'], '--variants: a is listed twice'],
  ])('%j is an error naming the flag', (argv, message) => {
    const r = parseArgs(spec, argv);
    expect(r.kind).toBe('error');
    if (r.kind === 'error') expect(r.message).toContain(message);
  });

  it('recognises --help and -h anywhere', () => {
    expect(parseArgs(spec, ['--workers', '3', '--help']).kind).toBe('help');
    expect(parseArgs(spec, ['-h']).kind).toBe('help');
  });

  it('ignores inherited object keys as flag names', () => {
    expect(parseArgs(spec, ['--toString'])).toEqual({ kind: 'error', message: 'unknown flag --toString' });
  });
});

describe('byte sizes', () => {
  it.each([
    ['4096', 4096],
    ['64k', 65536],
    ['64KiB', 65536],
    ['1MiB', 1048576],
    ['1mb', 1_000_000],
    ['1.5MiB', 1572864],
    ['0', 0],
    ['unlimited', UNLIMITED],
  ])('%s = %d', (raw, n) => {
    expect(parseBytes(raw)).toEqual({ ok: true, value: n });
  });

  it('formats round sizes shortly', () => {
    expect([0, 4096, 65536, 1048576, 1000, UNLIMITED].map(formatBytesShort)).toEqual(['0', '4KiB', '64KiB', '1MiB', '1000', 'unlimited']);
  });
});

describe('help', () => {
  it('lists every flag with its default', () => {
    const text = renderHelp({ usage: 'sbkit x', summary: 'Does x.' }, spec);
    expect(text).toContain('Usage: sbkit x [flags]');
    expect(text).toMatch(/--workers N\s+workers \(default: 8\)/);
    expect(text).toMatch(/--threshold BYTES\s+threshold \(default: 1KiB\)/);
    expect(text).toContain('--json');
    expect(text).toContain('--help');
  });
});
