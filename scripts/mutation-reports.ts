/**
 * Reading Stryker JSON reports from disk (plain or gzipped), and where their files are relative to the
 * repository. The reports `npm run mutation` writes are `.sbkit/mutation/check-<scope>.json`; the ones
 * kept in the repository, `docs/quality/stryker/check-<scope>.json.gz` (scripts/mutants-doc.ts --save).
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { Relative, Report } from './mutation-data.ts';

export function readReport(path: string): Report {
  const raw = readFileSync(path);
  return JSON.parse((path.endsWith('.gz') ? gunzipSync(raw) : raw).toString('utf8')) as Report;
}

/** File names of a report relative to the repository at `root` (Stryker keys them by projectRoot; a
 * kept report has none: its keys are the repository's own). */
export const relativeTo =
  (root: string): Relative =>
  (report, name) =>
    report.projectRoot === undefined ? name : relative(root, join(report.projectRoot, name));
