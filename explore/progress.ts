/**
 * A one-line progress bar on stderr. Drawn only when stderr is a terminal and output is not JSON, and
 * only once the work has taken more than a second, so short commands stay silent.
 */
import type { Io } from './io.ts';

export interface Progress {
  /** `fraction` in [0, 1] of the whole job; `label` says what runs now. */
  update(fraction: number, label: string): void;
  /** Clears the bar (if drawn). */
  done(): void;
}

const silentProgress: Progress = { update: () => undefined, done: () => undefined };

/** Nothing is drawn before this much wall time has passed. */
export const SHOW_AFTER_MS = 1000;
/** Redraws at most this often. */
const REDRAW_MS = 80;

export function createProgress(io: Io, opts: { json: boolean; title: string }): Progress {
  if (!io.errIsTTY || opts.json) return silentProgress;
  const started = io.now();
  let lastDraw = -Infinity;
  let drawn = false;
  return {
    update(fraction, label) {
      const t = io.now();
      if (t - started < SHOW_AFTER_MS || t - lastDraw < REDRAW_MS) return;
      lastDraw = t;
      drawn = true;
      io.err(`\r${renderBar(fraction, `${opts.title} ${label}`, io.columns)}`);
    },
    done() {
      if (drawn) io.err(`\r${' '.repeat(Math.max(0, io.columns - 1))}\r`);
      drawn = false;
    },
  };
}

/** `[#####-----]  50% label`, cut to the terminal width. */
export function renderBar(fraction: number, label: string, columns: number): string {
  const f = Math.min(1, Math.max(0, Number.isFinite(fraction) ? fraction : 0));
  const width = 24;
  const filled = Math.round(f * width);
  const text = `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${String(Math.floor(f * 100)).padStart(3)}% ${label}`;
  const max = Math.max(10, columns - 1);
  return text.length > max ? text.slice(0, max) : text.padEnd(max);
}

/**
 * Runs `work` with a progress bar titled `title` (see createProgress) and clears the bar when the work
 * ends, also when it throws, so an error message never lands on a half-drawn bar.
 */
export async function withProgress<T>(
  io: Io,
  opts: { json?: boolean; title: string },
  work: (update: (fraction: number, label: string) => void) => Promise<T>,
): Promise<T> {
  const progress = createProgress(io, { json: opts.json ?? false, title: opts.title });
  try {
    return await work((fraction, label) => progress.update(fraction, label));
  } finally {
    progress.done();
  }
}
