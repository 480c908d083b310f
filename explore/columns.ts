/** What each column of `sbkit compare` means: shown by `--help` and in the report's glossary. */
export const COLUMN_DOCS: readonly (readonly [column: string, meaning: string])[] = [
  ['variant', 'off = every worker writes its own batch; best-effort = shared batch per process, joined only while earlier handles are alive (#37591); barrier = shared batch that waits for every worker of the process (#37617)'],
  ['appends', 'successful compare_and_append commands (one per batch interval when the sink keeps up)'],
  ['parts/append', 'parts (hollow + inline) per successful append: ~workers for off, 1.0 ideal'],
  ['batches/append', 'batches handed to the append worker per successful append'],
  ['blob PUTs', 'blob writes (one per hollow part, plus inline parts flushed under backpressure); "% off" relative to off'],
  ['blob bytes', 'bytes written to blob storage'],
  ['consensus cmds', 'consensus commands (compare-and-set of shard state), retries and bumps included'],
  ['state-diff bytes', 'bytes of the state diffs those commands wrote; fewer parts make smaller diffs; "% off" relative to off'],
  ['inline parts', 'parts small enough (< 4 KiB) to live in consensus state instead of blob'],
  ['written', 'updates the workers wrote into batches'],
  ['appended', 'updates that reached the shard through successful appends'],
  ['lost', 'audit: updates of the desired collection missing from the shard (must be 0)'],
  ['dup', 'audit: updates present in the shard more than once (must be 0)'],
  ['leaked', 'audit: blobs written, never referenced by shard state and never deleted (must be 0)'],
  ['audit', 'the default table: lost, dup and leaked in one cell — ok when all are 0, else each count (must be ok)'],
  ['shard parts', 'small-writes: parts the shard holds after the run (every appended part: nothing compacts here), the compaction proxy; "% off" relative to off'],
  ['latency p50', 'commit latency per interval in virtual time: from the frontier passing the interval (its data is ready) to the successful compare_and_append that contains it; median over intervals'],
  ['p99', 'the same commit latency, 99th percentile (nearest rank) over intervals'],
  ['max', 'the same commit latency, the slowest interval'],
  ['c&a p50', '--consensus/--blob only (production mode, no virtual time): compare-and-append latency in wall-clock ms, from the append worker holding every hand to the answer of its compare-and-append (state refresh and compare-and-set; more than one on a lost race), median over appends — the only wall-clock figure compare reports'],
  ['c&a p99', 'the same, 99th percentile (nearest rank) over appends'],
  ['spec', '--consensus/--blob only: every always/eventually property of spec/ holds on the run\'s trace (put in the shard\'s order) with the audit\'s storage facts: holds, or FAILS (which and why under the table)'],
  ['max builder share', 'hydration only: the largest share of one append\'s bytes that went through a single batch builder (1/workers = spread like off, 100% = funnelled)'],
  ['mint→append', 'hydration only: mean virtual time from a description\'s mint to its append under the timing model (one builder serializes encoding and upload, so it takes longer)'],
  ['faults', '--faults only: storage calls that failed (transient, indeterminate, permanent), at the rate per call'],
  ['retries', '--faults only: storage calls retried after a failure (each after a backoff)'],
  ['aborts', '--faults only: replica incarnations torn down (a crash at a seeded moment, or a permanent storage failure)'],
  ['restarts', '--faults only: new incarnations started at the shard\'s upper (one per abort)'],
  ['leaked by aborts', '--faults only: blobs aborted incarnations wrote and never appended (expected: they leak until cleanup)'],
  ['collected', '--faults only: leaked blobs that leaked-blob cleanup deleted; "leaked" (after the last cleanup) must be 0'],
  ['empty finishes', '--no-data finish/both only: workers with no data for an interval that opened a handle on its shared id and finished it without pushing (one per worker and interval)'],
  ['received', '--no-data finish/both only: empty finishes that returned the shared batch (the handle held the last reference, or was the barrier\'s deliverer) and handed it to the append'],
  ['skips', '--no-data finish/both only: barrier skips reported (note_skip): a worker with no data under --no-data skip, and a superseded description under either policy'],
  ['model', 'agrees = the model replayed this run\'s trace and predicted every append\'s batches and parts exactly; DIVERGES = it rejected an event or predicted one differently (where and why is printed under the table; without --bug that is a defect of the implementation or the model)'],
];

export function renderColumnDocs(): string {
  const width = Math.max(...COLUMN_DOCS.map(([c]) => c.length));
  return COLUMN_DOCS.map(([c, m]) => `  ${c.padEnd(width)}  ${m}`).join('\n');
}
