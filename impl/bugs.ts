/**
 * The bug gallery: realistic defects behind switches. Each is configuration (RunConfig.bugs), off by
 * default, and costs a production path one `bugs.has(...)` test at the one place it matters.
 * PROTOCOL.md "Bugs of the gallery" defines them; each has a targeted test in impl/test/ (bugs.test.ts, or
 * the file of its feature: sinks.test.ts, runs.test.ts).
 */
import type { BugName } from '../vocab/index.ts';
import { BUG_NAMES } from '../vocab/index.ts';
import { SbkitError, show } from './errors.ts';

/** One line each: what goes wrong, and what a user would see. */
export const BUG_DESCRIPTIONS: Record<BugName, string> = {
  'sweep-upgrade-race':
    'The registry sweep tests liveness with a temporary strong reference (weak.upgrade()); a finish() that runs while it is held is not last, so every handle gets null: the interval is sealed without that data (lost for good) and its parts leak.',
  'drop-without-finish':
    "The description's append worker drops its shared handle instead of calling finish(): when it held the last reference the batch is built for nobody (data lost, parts leaked); under the barrier the other workers wait forever.",
  'late-handle-joins-finished-builder':
    'builder() reuses a dead registry entry whose channel is already closed: a worker that opens after the others finished pushes into nothing, and its updates are silently missing from the shard.',
  'barrier-lost-wakeup':
    'A barrier waiter re-checks `finalized`, yields, and only then registers for the notification: if the last finisher notifies in between, the waiter sleeps forever and the interval never appends.',
  'barrier-skip-double-count':
    'A skip recorded before the barrier state existed is subtracted twice when the state is created: the barrier finalizes before every worker finished, a late pusher\'s updates are lost and its finish() fails with barrier-over-report.',
  'append-keeps-batches-on-mismatch':
    'On an upper mismatch the append worker drops its batches instead of deleting them: their blobs stay in storage, referenced by nothing (leaked blobs).',
  'threshold-inclusive':
    'The sharing threshold compares bytes <= maxBytes instead of <: a worker whose staged bytes equal the threshold shares instead of writing its own batch (wrong route, different part counts).',
  'indeterminate-cas-deletes-batches':
    "compare-and-append takes an indeterminate compare-and-set (a timeout after the write applied) for an upper mismatch: the append worker deletes the batches the shard now references, and that data is lost for good (state points at deleted blobs).",
  'restart-rewrites-appended-interval':
    'A restarted incarnation ignores what the shard already holds: its first description rewrites every desired update below its upper (advanced to its lower), so updates another incarnation already appended are in the shard twice.',
  'cleanup-deletes-in-flight-part':
    "Leaked-blob cleanup deletes every blob no state references, without asking whether its writer can still append: a live writer's part that is written but not yet appended is deleted, and the append then references a missing blob (data lost).",
  'mismatch-delete-error-swallowed':
    'After an upper mismatch the append worker deletes its batches best-effort: a transient blob error is logged and swallowed instead of retried, so blobs leak from a live writer (not from a teardown) until some cleanup finds them.',
  'empty-finish-hands-nothing':
    "With the no-data policy 'finish', a worker with no data hands nothing after its empty finish (it had nothing to write) instead of what the finish returned: when its handle held the last reference, or was the barrier's deliverer, the shared batch goes to nobody — the other workers' updates are missing from the shard and its parts leak.",
  'barrier-flag-read-per-worker':
    "Each worker reads the barrier flag when it writes instead of taking the value minted on the description: after the flag flips, one shared id gets both modes — a best-effort-created state finishes before the barrier's workers arrived, or a barrier-created state waits forever for best-effort handles that never arrive.",
  'stale-hand-appended':
    "The append worker appends a superseded description like the live one instead of deleting what was handed for it: its lower already passed, so the compare-and-append is refused, and the refusal ends the newer description that is still live under its workers (the mint then mints over it: intervals written twice or a sink that never finishes).",
  'batch-ids-collide-across-sinks':
    "Each sink names its shared batches by its mint sequence number alone instead of an id unique to the process (Materialize: a fresh Uuid per description): two MV sinks of one process give their descriptions the same ids, so in the process-global registry, keyed by id, one sink's builder() finds the other sink's live entry and fails the description check (conflicting descriptions: another shard), one sink's early barrier skips are applied to the other's barrier, or a completed barrier of one refuses the other's reports.",
  'own-batch-ignores-max-runs':
    "A worker's own (fallback) batch is built like the shared batch, with max_runs hard-coded to None instead of persist_batch_max_runs: with the config at 2 or more, own batches stop compacting their runs — a batch of more parts than that keeps one run per part (more runs for readers and compaction to merge) where the model compacts them.",
  'timer-seals-pushing-handle':
    "The barrier's timer completes the barrier when it fires, without waiting for the handles that joined and still push: the batch is built and handed while a handle's updates are still on their way, so they are lost (or its finish fails on a completed barrier).",
  'late-worker-joins-completed-barrier':
    "A worker that opens after its barrier completed at the deadline is not recognised as late: it joins (or re-creates) the barrier's entry as a participant instead of sharing best-effort with the other late workers, so it waits on a barrier that already completed or its report is refused.",
};

/** The switched-on bugs of one run. */
export class BugSwitches {
  static readonly none = new BugSwitches([]);
  readonly #on: ReadonlySet<BugName>;

  /** Throws `unknown-bug` for a name the gallery does not have (configs may come from JSON). */
  constructor(names: readonly string[]) {
    const on = new Set<BugName>();
    for (const name of names) {
      const known = BUG_NAMES.find((b) => b === name);
      if (known === undefined) {
        throw new SbkitError('unknown-bug', `unknown bug ${show(name)}; known: ${BUG_NAMES.join(', ')}`);
      }
      on.add(known);
    }
    this.#on = on;
  }

  has(name: BugName): boolean {
    return this.#on.has(name);
  }

  get list(): readonly BugName[] {
    return [...this.#on];
  }
}
