/**
 * The figures of Stryker JSON reports (mutation-testing-report-schema), per directory and in total:
 *
 *   npx tsx scripts/mutation-summary.ts REPORT.json[.gz] [more …] [--survivors] [--stale]
 *
 * Counts killed, timed out, survived (and without coverage), compile and runtime errors, ignored (out of
 * every score: mutation/gallery-ignorer.mjs's gallery-only code, or a `Stryker disable`). The honest
 * score is killed ÷ (killed + survived); apart from it, how many survivors are evidenced equivalent
 * (mutation/evidence.ts: an executable argument beside each). `--survivors` prints every survivor without
 * evidence (file:line:column, mutator, replacement); `--stale` the evidence entries that match no
 * survivor of a file the reports cover (killed since, or the code changed: entries to prune).
 * Markdown output (it goes to a GitHub job summary as is).
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EVIDENCE } from '../mutation/evidence.ts';
import { honestScore, scoreTable, summarize } from './mutation-data.ts';
import { readReport, relativeTo } from './mutation-reports.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const paths = args.filter((a) => !a.startsWith('--'));
if (paths.length === 0) {
  console.error('usage: tsx scripts/mutation-summary.ts REPORT.json[.gz] [REPORT …] [--survivors] [--stale]');
  process.exit(2);
}
const s = summarize(paths.map(readReport), EVIDENCE, relativeTo(root));
console.log(`### ${paths.join(', ')}\n`);
console.log(scoreTable(s));
const t = s.total;
console.log(`\nkilled ÷ (killed + survived): ${t.killed} ÷ (${t.killed} + ${t.survived + t.noCoverage}) = ${honestScore(t)}; timed out apart: ${t.timeout}`);
console.log(`survivors evidenced equivalent: ${t.evidenced} of ${t.survived + t.noCoverage}; not evidenced: ${t.survived + t.noCoverage - t.evidenced}`);
if (args.includes('--stale')) {
  console.log(`\nevidence matching no survivor (${s.stale.length}):\n`);
  for (const e of s.stale) console.log(`- ${e.file} ${e.mutator}: ${JSON.stringify(e.original)} → ${JSON.stringify(e.replacement)}`);
}
if (args.includes('--survivors')) {
  const open = s.survivors.filter((v) => v.evidence === undefined);
  console.log(`\nsurvivors without evidence (${open.length}):\n`);
  for (const v of open) console.log(`- ${v.file}:${v.line}:${v.column} ${v.mutator}: ${JSON.stringify(v.original)} → ${JSON.stringify(v.replacement)}`);
}
