/**
 * Renumber the `impl/…ts:N-M` references of the unreached-code document after the code around them
 * moved: each reference's lines are read at the revision the document was last right for (a git
 * revision, by default the last commit that changed the document) and looked up in today's file; the
 * reference is rewritten to where the same lines (compared without indentation) now are, the nearest
 * such place when there are several. References whose lines no longer exist are printed, not guessed.
 *
 *   npx tsx scripts/reach-remap.ts [--from REV] [--dry-run]
 *
 * It only moves references: `npm run coverage:check -- --doc` still decides whether each one is
 * unreached, and what nobody lists yet needs its reason written by hand.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DOC_PATH, ROOT } from './reach-paths.ts';
import { docRefs, refText } from './reach-data.ts';

const args = process.argv.slice(2);
let from: string | undefined;
let dry = false;
for (let i = 0; i < args.length; i++) {
  const a = args[i];
  if (a === '--from' && args[i + 1] !== undefined) from = args[++i];
  else if (a === '--dry-run') dry = true;
  else {
    console.error(`reach-remap: unknown argument ${a ?? ''} (usage: [--from REV] [--dry-run])`);
    process.exit(2);
  }
}
const git = (...argv: string[]): string => execFileSync('git', argv, { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 << 20 });
const docRel = DOC_PATH.slice(ROOT.length + 1);
const rev = from ?? git('log', '-1', '--format=%H', '--', docRel).trim();
if (rev === '') {
  console.error(`reach-remap: ${docRel} has no commit to read the old lines at; pass --from REV`);
  process.exit(2);
}

const oldFiles = new Map<string, string[] | null>();
const oldLines = (file: string): string[] | null => {
  if (!oldFiles.has(file)) {
    try {
      oldFiles.set(file, git('show', `${rev}:${file}`).split('\n'));
    } catch {
      oldFiles.set(file, null);
    }
  }
  return oldFiles.get(file) ?? null;
};
const newLines = (file: string): string[] | null => (existsSync(join(ROOT, file)) ? readFileSync(join(ROOT, file), 'utf8').split('\n') : null);

const doc = readFileSync(DOC_PATH, 'utf8').split('\n');
let moved = 0;
const lost: string[] = [];
for (const ref of docRefs(doc.join('\n'))) {
  const before = oldLines(ref.file);
  const now = newLines(ref.file);
  if (before === null || now === null) {
    lost.push(`${refText(ref)} (line ${ref.docLine}): the file is gone`);
    continue;
  }
  const want = before.slice(ref.from - 1, ref.to).map((l) => l.trim());
  const places: number[] = [];
  for (let p = 0; p + want.length <= now.length; p++) {
    if (want.every((w, k) => (now[p + k] ?? '').trim() === w)) places.push(p + 1);
  }
  if (places.length === 0) {
    lost.push(`${refText(ref)} (line ${ref.docLine}): its lines are no longer in the file`);
    continue;
  }
  const at = places.reduce((best, p) => (Math.abs(p - ref.from) < Math.abs(best - ref.from) ? p : best));
  if (at === ref.from) continue;
  const to = at + (ref.to - ref.from);
  const line = doc[ref.docLine - 1] ?? '';
  doc[ref.docLine - 1] = line.replace(`\`${refText(ref)}\``, `\`${refText({ file: ref.file, from: at, to })}\``);
  moved++;
}
if (!dry) writeFileSync(DOC_PATH, doc.join('\n'));
console.log(`reach-remap: ${moved} reference(s) moved (lines read at ${rev.slice(0, 12)})${dry ? ', dry run: nothing written' : ''}`);
for (const l of lost) console.log(`  not found: ${l}`);
