import { describe, expect, it } from 'vitest';
import { show } from '../errors.ts';

describe('show (values in error messages)', () => {
  it('writes numbers, booleans, null and undefined as written, strings quoted, functions by kind, the rest as JSON', () => {
    expect([show(-1), show(true), show(null), show(undefined), show('a"b')]).toEqual(['-1', 'true', 'null', 'undefined', '"a\\"b"']);
    expect(show(() => 1)).toBe('a function');
    expect(show({ a: [1] })).toBe('{"a":[1]}');
    expect(show(Symbol('s'))).toBe('Symbol(s)');
  });
});
