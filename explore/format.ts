/** Locale-independent number formatting for tables, charts and the report (output must be byte-stable). */

/** 1234567 → "1,234,567". */
export function thousands(n: number): string {
  const sign = n < 0 ? '-' : '';
  const [int = '0', frac] = Math.abs(n).toString().split('.');
  const grouped = int.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return frac === undefined ? `${sign}${grouped}` : `${sign}${grouped}.${frac}`;
}

/** A count with its noun: "1 replica", "1,000 intervals", "2 processes". */
export const plural = (n: number, one: string, many = `${one}s`): string => `${thousands(n)} ${n === 1 ? one : many}`;

/** Fixed decimals, with thousands separators. */
export function fixed(n: number, digits: number): string {
  if (!Number.isFinite(n)) return '—';
  const [int = '0', frac] = Math.abs(n).toFixed(digits).split('.');
  const sign = n < 0 && Number(Math.abs(n).toFixed(digits)) !== 0 ? '-' : '';
  const grouped = int.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return frac === undefined ? `${sign}${grouped}` : `${sign}${grouped}.${frac}`;
}

/** Binary-prefixed bytes: 512 B, 12.3 KiB, 9.71 MiB. */
export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'] as const;
  let v = n;
  let unit: string = 'B';
  for (const u of units) {
    if (v < 1024) break;
    v /= 1024;
    unit = u;
  }
  return `${v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2)} ${unit}`;
}

/** A part of a whole as a percentage: "31%"; one decimal below 10%. */
export function percent(part: number, whole: number): string {
  if (whole === 0) return '—';
  const p = (100 * part) / whole;
  return `${p < 10 && p !== 0 ? p.toFixed(1) : p.toFixed(0)}%`;
}

/** Virtual milliseconds: "412 ms", "1.21 s". */
export function millis(ms: number): string {
  return ms < 1000 ? `${ms.toFixed(ms < 10 ? 1 : 0)} ms` : seconds(ms);
}

/** Virtual milliseconds as seconds: "101.2 s". */
export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}
