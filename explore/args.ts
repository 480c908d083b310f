/**
 * A small typed command-line parser. A command declares its flags as a record of `Flag`s; `parseArgs`
 * returns a value per flag, typed from the declaration, or an error that names the offending flag.
 *
 * Accepted forms: `--name value`, `--name=value`, switches `--name` (no value). `--help`/`-h` is always
 * available. Anything else (unknown flags, positional words, a value-taking flag given twice) is an
 * error: the CLI prints it and exits 2.
 */

export type Parsed<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reason: string };

export const good = <T>(value: T): Parsed<T> => ({ ok: true, value });
export const bad = <T>(reason: string): Parsed<T> => ({ ok: false, reason });

/** One flag. `takesValue: false` is a switch; `repeatable` flags fold each occurrence into `prev`. */
export interface Flag<T> {
  readonly help: string;
  /** Shown in help after the flag name, e.g. `N` (empty for switches). */
  readonly placeholder: string;
  readonly takesValue: boolean;
  /** A value-taking flag that may also stand alone (`--faults` or `--faults 0.2`): `parse` gets ''. */
  readonly valueOptional?: boolean;
  readonly repeatable: boolean;
  readonly defaultValue: T;
  /** How the default reads in help (omitted: no default shown). */
  readonly defaultText?: string;
  /** Parses one occurrence. For switches `raw` is the empty string. (Method syntax on purpose: it keeps
   * `Flag<number>` assignable to `Flag<unknown>`, which `FlagSpec` needs.) */
  parse(raw: string, prev: T): Parsed<T>;
}

export type FlagSpec = Readonly<Record<string, Flag<unknown>>>;
export type FlagValues<S extends FlagSpec> = { readonly [K in keyof S]: S[K] extends Flag<infer T> ? T : never };

export type ArgsOutcome<S extends FlagSpec> =
  | { readonly kind: 'values'; readonly values: FlagValues<S> }
  | { readonly kind: 'help' }
  | { readonly kind: 'error'; readonly message: string };

/** Parses `argv` (the words after the subcommand) against `spec`. Pure: no output, no exit. */
export function parseArgs<S extends FlagSpec>(spec: S, argv: readonly string[]): ArgsOutcome<S> {
  const values = new Map<string, unknown>();
  const seen = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i] ?? '';
    if (word === '--help' || word === '-h') return { kind: 'help' };
    if (!word.startsWith('--') || word === '--') {
      return { kind: 'error', message: `unexpected argument "${word}" (flags start with --)` };
    }
    const eq = word.indexOf('=');
    const name = eq < 0 ? word.slice(2) : word.slice(2, eq);
    const flag = Object.prototype.hasOwnProperty.call(spec, name) ? spec[name] : undefined;
    if (flag === undefined) return { kind: 'error', message: `unknown flag --${name}` };
    if (seen.has(name) && !flag.repeatable) return { kind: 'error', message: `--${name} is given twice` };
    seen.add(name);
    let raw = '';
    if (!flag.takesValue) {
      if (eq >= 0) return { kind: 'error', message: `--${name} takes no value` };
    } else if (eq >= 0) {
      raw = word.slice(eq + 1);
    } else {
      const next = argv[i + 1];
      if (next === undefined || next.startsWith('--')) {
        if (flag.valueOptional !== true) return { kind: 'error', message: `--${name} needs a value (${flag.placeholder})` };
      } else {
        raw = next;
        i++;
      }
    }
    const prev = values.has(name) ? values.get(name) : flag.defaultValue;
    const parsed = flag.parse(raw, prev);
    if (!parsed.ok) return { kind: 'error', message: `--${name}: ${parsed.reason}` };
    values.set(name, parsed.value);
  }
  const out: Record<string, unknown> = {};
  for (const [name, flag] of Object.entries(spec)) out[name] = values.has(name) ? values.get(name) : flag.defaultValue;
  // SUBTLE: the cast is sound because every entry was produced by the flag's own parse or default.
  return { kind: 'values', values: out as FlagValues<S> };
}

// ---------------------------------------------------------------------------------------------------
// Flag builders

const quote = (raw: string): string => JSON.stringify(raw);

export function switchFlag(help: string): Flag<boolean> {
  return { help, placeholder: '', takesValue: false, repeatable: false, defaultValue: false, parse: () => good(true) };
}

export function intFlag(opts: { help: string; placeholder?: string; defaultValue: number; min: number; max: number }): Flag<number> {
  return {
    help: opts.help,
    placeholder: opts.placeholder ?? 'N',
    takesValue: true,
    repeatable: false,
    defaultValue: opts.defaultValue,
    defaultText: String(opts.defaultValue),
    parse: (raw) => parseIntIn(raw, opts.min, opts.max),
  };
}

/** The same flag, but `undefined` unless given; `defaultText` says what applies then. */
export function optional<T>(flag: Flag<T>, defaultText?: string): Flag<T | undefined> {
  const out: Flag<T | undefined> = {
    help: flag.help,
    placeholder: flag.placeholder,
    takesValue: flag.takesValue,
    repeatable: false,
    defaultValue: undefined,
    parse: (raw) => flag.parse(raw, flag.defaultValue),
  };
  return defaultText === undefined ? out : { ...out, defaultText };
}

function parseIntIn(raw: string, min: number, max: number): Parsed<number> {
  if (!/^-?\d+$/.test(raw.trim())) return bad(`expected an integer from ${min} to ${max}, got ${quote(raw)}`);
  const n = Number(raw.trim());
  if (!Number.isSafeInteger(n) || n < min || n > max) return bad(`expected an integer from ${min} to ${max}, got ${quote(raw)}`);
  return good(n);
}

/** The value used for "no limit" on byte sizes (JSON-safe, unlike Infinity). */
export const UNLIMITED = Number.MAX_SAFE_INTEGER;

const BYTE_UNITS: Readonly<Record<string, number>> = {
  '': 1,
  b: 1,
  k: 1024,
  kb: 1000,
  kib: 1024,
  m: 1024 ** 2,
  mb: 1000 ** 2,
  mib: 1024 ** 2,
  g: 1024 ** 3,
  gb: 1000 ** 3,
  gib: 1024 ** 3,
};

/** Parses a byte size: `4096`, `64k`, `64KiB`, `1MiB`, `1.5MB`, or `unlimited`. */
export function parseBytes(raw: string): Parsed<number> {
  const text = raw.trim().toLowerCase();
  if (text === 'unlimited' || text === 'inf' || text === 'max') return good(UNLIMITED);
  const m = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/.exec(text);
  const unit = m === null ? undefined : BYTE_UNITS[m[2] ?? ''];
  if (m === null || unit === undefined) {
    return bad(`expected a byte size such as 4096, 64KiB, 1MiB or unlimited, got ${quote(raw)}`);
  }
  const n = Math.round(Number(m[1]) * unit);
  if (!Number.isSafeInteger(n)) return bad(`byte size too large: ${quote(raw)}`);
  return good(n);
}

export function bytesFlag(opts: { help: string; defaultValue: number; min: number }): Flag<number> {
  return {
    help: opts.help,
    placeholder: 'BYTES',
    takesValue: true,
    repeatable: false,
    defaultValue: opts.defaultValue,
    defaultText: formatBytesShort(opts.defaultValue),
    parse: (raw) => {
      const p = parseBytes(raw);
      if (p.ok && p.value < opts.min) return bad(`must be at least ${opts.min} bytes, got ${quote(raw)}`);
      return p;
    },
  };
}

/** One of a fixed set of words. */
export function choiceFlag<C extends string>(opts: { help: string; choices: readonly C[]; defaultValue: C; placeholder?: string }): Flag<C> {
  return {
    help: opts.help,
    placeholder: opts.placeholder ?? opts.choices.join('|'),
    takesValue: true,
    repeatable: false,
    defaultValue: opts.defaultValue,
    defaultText: opts.defaultValue,
    parse: (raw) => parseChoice(raw, opts.choices),
  };
}

function parseChoice<C extends string>(raw: string, choices: readonly C[]): Parsed<C> {
  const found = choices.find((c) => c === raw.trim());
  return found === undefined ? bad(`expected one of ${choices.join(', ')}, got ${quote(raw)}`) : good(found);
}

/** A comma-separated, non-empty list of distinct words from a fixed set, kept in the given order. */
export function choiceListFlag<C extends string>(opts: { help: string; choices: readonly C[]; defaultValue: readonly C[] }): Flag<readonly C[]> {
  return {
    help: opts.help,
    placeholder: 'LIST',
    takesValue: true,
    repeatable: false,
    defaultValue: opts.defaultValue,
    defaultText: opts.defaultValue.join(','),
    parse: (raw) => {
      const out: C[] = [];
      for (const part of raw.split(',')) {
        const p = parseChoice(part, opts.choices);
        if (!p.ok) return p;
        if (out.includes(p.value)) return bad(`${p.value} is listed twice`);
        out.push(p.value);
      }
      return good(out);
    },
  };
}

/** A probability in [0, 1]; alone (`--faults`), `whenAlone`. NaN, negatives and values above 1 name the flag. */
export function rateFlag(opts: { help: string; whenAlone: number }): Flag<number | undefined> {
  return {
    help: opts.help,
    placeholder: '[RATE]',
    takesValue: true,
    valueOptional: true,
    repeatable: false,
    defaultValue: undefined,
    defaultText: `off; alone: ${opts.whenAlone}`,
    parse: (raw) => {
      if (raw.trim() === '') return good(opts.whenAlone);
      const n = Number(raw.trim());
      if (!/^[0-9.eE+-]+$/.test(raw.trim()) || Number.isNaN(n) || n < 0 || n > 1) return bad(`expected a rate in [0, 1], got ${quote(raw)}`);
      return good(n);
    },
  };
}

/** The largest N of `--shard I/N`. */
export const MAX_SHARDS = 4096;

/** What `--shard` means, said the same way by every command that takes it. */
export const SHARD_CONVENTION = `I/N, 1-based: shard I of N, 1 ≤ I ≤ N ≤ ${MAX_SHARDS} (a CI matrix of N machines passes 1/N … N/N)`;

/** A shard as the commands use it: `index` 0-based (shard `I/N` on the command line is index I − 1). */
export interface ShardSpec {
  readonly index: number;
  readonly count: number;
}

/** Parses `I/N` (1-based: 1 ≤ I ≤ N ≤ MAX_SHARDS) into a 0-based `ShardSpec`. The one parser of `--shard`. */
export function parseShard(raw: string): Parsed<ShardSpec> {
  const m = /^(\d+)\/(\d+)$/.exec(raw.trim());
  const i = Number(m?.[1]);
  const n = Number(m?.[2]);
  if (m === null || !(Number.isSafeInteger(n) && n >= 1 && n <= MAX_SHARDS && i >= 1 && i <= n)) {
    return bad(`expected I/N with 1 ≤ I ≤ N ≤ ${MAX_SHARDS} (e.g. 2/4: the second of four shards), got ${quote(raw)}`);
  }
  return good({ index: i - 1, count: n });
}

/** `I/N` as the command line writes a 0-based shard. */
export const formatShard = (s: ShardSpec): string => `${s.index + 1}/${s.count}`;

/** `--shard I/N` (see SHARD_CONVENTION); undefined unless given. */
export function shardFlag(help: string, defaultText?: string): Flag<ShardSpec | undefined> {
  return {
    help: `${help}; ${SHARD_CONVENTION}`,
    placeholder: 'I/N',
    takesValue: true,
    repeatable: false,
    defaultValue: undefined,
    ...(defaultText === undefined ? {} : { defaultText }),
    parse: (raw) => parseShard(raw),
  };
}

export function stringFlag(opts: { help: string; placeholder: string; defaultValue: string }): Flag<string> {
  return {
    help: opts.help,
    placeholder: opts.placeholder,
    takesValue: true,
    repeatable: false,
    defaultValue: opts.defaultValue,
    defaultText: opts.defaultValue,
    parse: (raw) => (raw.length === 0 ? bad('must not be empty') : good(raw)),
  };
}

/** Bytes in short human form for help and tables: 1MiB, 64KiB, 4096, unlimited. */
export function formatBytesShort(n: number): string {
  if (n >= UNLIMITED) return 'unlimited';
  for (const [unit, size] of [['GiB', 1024 ** 3], ['MiB', 1024 ** 2], ['KiB', 1024]] as const) {
    if (n >= size && n % size === 0) return `${n / size}${unit}`;
  }
  return String(n);
}

// ---------------------------------------------------------------------------------------------------
// Help text

export interface CommandHelp {
  /** e.g. `sbkit compare` */
  readonly usage: string;
  readonly summary: string;
  /** Extra paragraphs after the flag list (examples, notes). */
  readonly notes?: readonly string[];
}

export function renderHelp(help: CommandHelp, spec: FlagSpec): string {
  const rows = Object.entries(spec).map(([name, flag]) => {
    const left = flag.takesValue ? `--${name} ${flag.placeholder}` : `--${name}`;
    const dflt = flag.defaultText === undefined ? '' : ` (default: ${flag.defaultText})`;
    return [left, `${flag.help}${dflt}`] as const;
  });
  rows.push(['--help', 'show this help']);
  const width = Math.max(...rows.map(([left]) => left.length));
  const lines = [`Usage: ${help.usage} [flags]`, '', help.summary, '', 'Flags:'];
  for (const [left, right] of rows) lines.push(`  ${left.padEnd(width)}  ${right}`);
  for (const note of help.notes ?? []) lines.push('', note);
  return `${lines.join('\n')}\n`;
}
