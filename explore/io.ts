/** Where the CLI writes, injected so tests capture output and decide whether stderr is a terminal. */

export interface Io {
  out(text: string): void;
  err(text: string): void;
  /** Progress bars are drawn only on a terminal. */
  readonly errIsTTY: boolean;
  /** Terminal width for the progress bar. */
  readonly columns: number;
  /** Wall-clock milliseconds (progress bar timing only; never in results). */
  now(): number;
  /** Relative output paths resolve against this directory. */
  readonly cwd: string;
}

export function processIo(): Io {
  return {
    out: (text) => void process.stdout.write(text),
    err: (text) => void process.stderr.write(text),
    errIsTTY: process.stderr.isTTY === true,
    columns: (process.stderr.columns ?? 0) > 20 ? process.stderr.columns : 80,
    now: () => performance.now(),
    cwd: process.cwd(),
  };
}

/** An Io that records everything, for tests. */
export interface CapturedIo extends Io {
  readonly stdout: () => string;
  readonly stderr: () => string;
}

export function captureIo(opts: { tty?: boolean; cwd?: string; now?: () => number } = {}): CapturedIo {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out: (t) => void out.push(t),
    err: (t) => void err.push(t),
    errIsTTY: opts.tty ?? false,
    columns: 80,
    now: opts.now ?? (() => performance.now()),
    cwd: opts.cwd ?? process.cwd(),
    stdout: () => out.join(''),
    stderr: () => err.join(''),
  };
}
