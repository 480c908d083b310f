/**
 * Survivors of `npm run mutation` judged equivalent, each with an executable argument: a surviving
 * mutant counts as equivalent only with an entry here, and docs/quality/mutants.md (scripts/mutants-doc.ts)
 * shows each survivor of the latest report with its entry, or as not evidenced.
 *
 * An entry names the mutant by what it changes — its file, Stryker's mutator, the source text it
 * replaces and its replacement — not by line, so that it stays attached when code moves around it. Its
 * proof is one of:
 * - `test`: a test (file and title) that instruments the mutated point and shows, over the check's whole
 *   budget (the killer's plain check, fault world and gallery), that the changed branch is never taken or
 *   changes no output;
 * - `type`: a type-level impossibility, stated (the mutant type-checks, but no value that reaches the
 *   point can tell the two apart).
 * mutation/evidence.test.ts holds every entry admissible (evidence-check.ts): the replaced text still in
 * its file, a reason given, the proof's test file and title there.
 */
export interface Evidence {
  readonly file: string;
  readonly mutator: string;
  /** The source text the mutant replaces (whitespace is not significant). */
  readonly original: string;
  readonly replacement: string;
  /** Why no behaviour changes, in a sentence or two. */
  readonly why: string;
  readonly proof: { readonly kind: 'test'; readonly file: string; readonly test: string } | { readonly kind: 'type' };
}

/** The proof that a ByteWriter's initial capacity changes no byte it writes. */
const CAPACITY_IS_A_HINT = {
  kind: 'test',
  file: 'impl/test/codec.test.ts',
  test: 'the initial capacity is a hint: any value (negative, fractional, zero, huge) gives the same bytes',
} as const;

/** impl/test/equivalent-mutants.test.ts: what `ReplicaState.staged` returns with every bug switch off. */
const STAGED = {
  kind: 'test',
  file: 'impl/test/equivalent-mutants.test.ts',
  test: 'are the updates with lower ≤ time < upper, the very objects handed in, ascending by id, whatever the restart',
} as const;
const STAGED_ONE_TIME = {
  kind: 'test',
  file: 'impl/test/equivalent-mutants.test.ts',
  test: 'of one time are in id order before any sort: sorting them (as `upper - from > 1` forced true would) is the identity',
} as const;
const EMPTY_PUSH = {
  kind: 'test',
  file: 'impl/test/equivalent-mutants.test.ts',
  test: 'passes no point, emits nothing, sends nothing to the builder task and changes nothing: the builder task never sees an empty chunk',
} as const;
/** mutation/probes.deep.test.ts: the killer's budget with probes at the mutated points. */
const PROBES = { kind: 'test', file: 'mutation/probes.deep.test.ts', test: 'the plain check passes, and no probe fires' } as const;
const IN_MEMORY_DEFAULTS = {
  kind: 'test',
  file: 'mutation/in-memory-defaults.test.ts',
  test: 'every misuse program that builds one gives the same verdict with a blank writer id, a blank shard id or none',
} as const;
const TASK_NAME = 'A task name is kept only in its TaskGroup, read only by `TaskGroup.running` (a test helper), and nothing the check runs reads it (probed over the killer\'s whole budget: plain, fault world, gallery): the name reaches no trace, error or report.';

export const EVIDENCE: readonly Evidence[] = [
  {
    file: 'impl/persist/writer-registry.ts',
    mutator: 'ArithmeticOperator',
    original: '4 + events.length * 6',
    replacement: '4 - events.length * 6',
    why: "The writer registry's encoder sizes its ByteWriter with a capacity hint; the writer clamps the hint and grows as it writes, so the bytes of a registry version do not depend on it.",
    proof: CAPACITY_IS_A_HINT,
  },
  {
    file: 'impl/persist/writer-registry.ts',
    mutator: 'ArithmeticOperator',
    original: 'events.length * 6',
    replacement: 'events.length / 6',
    why: "The writer registry's encoder sizes its ByteWriter with a capacity hint; the writer clamps the hint and grows as it writes, so the bytes of a registry version do not depend on it.",
    proof: CAPACITY_IS_A_HINT,
  },
  {
    file: 'impl/shared/barrier-timer.ts',
    mutator: 'StringLiteral',
    original: '`barrier timer ${name}`',
    replacement: '``',
    why: TASK_NAME,
    proof: PROBES,
  },
  ...(['`r${r.settings.replica}`', '`${name} input`', '`${name} mint`', '`${name} write w${w}`', '`${name} append w${w}`'] as const).map((original) => ({
    file: 'impl/sink/replica.ts',
    mutator: 'StringLiteral',
    original,
    replacement: '``',
    why: TASK_NAME,
    proof: PROBES,
  })),
  {
    file: 'impl/shared/batch-id.ts',
    mutator: 'EqualityOperator',
    original: 'a.namespace < b.namespace',
    replacement: 'a.namespace <= b.namespace',
    why: 'The comparison is reached only under `if (a.namespace !== b.namespace)`: for two different strings `<` and `<=` agree.',
    proof: { kind: 'type' as const },
  },
  {
    file: 'impl/shared/builder-task.ts',
    mutator: 'ConditionalExpression',
    original: 'r.item.length === 0',
    replacement: 'false',
    why: "The builder task's channel is fed only by a handle's push, which returns before sending an empty chunk: the guard against an empty chunk is never true.",
    proof: EMPTY_PUSH,
  },
  ...([
    ["'r0'", '""', 'StringLiteral'],
    ["opts.shardId ?? 'test-shard'", "opts.shardId && 'test-shard'", 'LogicalOperator'],
    ["'test-shard'", '""', 'StringLiteral'],
  ] as const).map(([original, replacement, mutator]) => ({
    file: 'impl/shared/in-memory.ts',
    mutator,
    original,
    replacement,
    why: "The in-memory registry's writer id and shard id defaults: the check builds that registry only in misuse programs, whose every verdict is the same word for word with the defaults blank or the shard id absent.",
    proof: IN_MEMORY_DEFAULTS,
  })),
  {
    file: 'impl/sink/append.ts',
    mutator: 'ConditionalExpression',
    original: 'h.desc.sharedId === desc.sharedId',
    replacement: 'true',
    why: "When the append worker takes a description's hands, its inbox holds no hand of another: it takes them in mint order, a newer description is minted only once the older ended or its supersede was read (a scheduling point), and every wake-up on its inbox runs before the next point — so the filter never rejects a hand (probed over the killer's whole budget).",
    proof: PROBES,
  },
  {
    file: 'impl/sink/append.ts',
    mutator: 'EqualityOperator',
    original: 'result.current >= desc.lower',
    replacement: 'result.current > desc.lower',
    why: 'The shard writer refuses a compare-and-append only when the shard\'s upper differs from the expected one (shard-writer.ts, its one `upper-mismatch`): a refusal never has current = lower, where `>=` and `>` differ.',
    proof: {
      kind: 'test' as const,
      file: 'impl/test/equivalent-mutants.test.ts',
      test: 'reports a current upper other than the expected one (never equal: `current >= lower` and `current > lower` agree on every refusal)',
    },
  },
  {
    file: 'impl/sink/mint.ts',
    mutator: 'ConditionalExpression',
    original: 'r.live === null',
    replacement: 'true',
    why: "The mint's first test (the loop head: lower reached K and no description live, so it closes the queues and ends). A live description with lower ≥ K is one whose append another replica's seal refused: its append worker has taken every hand and deletes its batches before ending it. The mutant closes the queues during that delete rather than after it; nothing sends on them any more, and the tasks the close wakes end without a scheduling point, so the schedule and every output are the same. (The mint's second `r.live === null`, forced true, mints over a live description: the check kills it.)",
    proof: { kind: 'test' as const, file: 'mutation/sink-equivalents.deep.test.ts', test: "prints word for word the kit's output in the killer's three commands, its branch taken where the kit's is not" },
  },
  {
    file: 'impl/sink/replica-state.ts',
    mutator: 'BooleanLiteral',
    original: 'false',
    replacement: 'true',
    why: "`appendStarted`'s initial value: the mint writes it with every description it makes live, and mayPoll reads it only with one live, so it is never read before its first write (probed over the killer's whole budget). (The file's only `false` literal.)",
    proof: PROBES,
  },
  ...([
    ['ConditionalExpression', 'true'],
    ['EqualityOperator', 'lower !== this.settings.startLower'],
  ] as const).map(([mutator, replacement]) => ({
    file: 'impl/sink/replica-state.ts',
    mutator,
    original: 'lower === this.settings.startLower',
    replacement,
    why: "The right operand of `this.#ignoresShard && …`, evaluated only with the gallery bug restart-rewrites-appended-interval on: with every switch off `from` is `lower` whatever the restart; with the bug on the mutant changes which descriptions rewrite from 0, and the bug is still caught.",
    proof: { kind: 'test' as const, file: 'mutation/probes.deep.test.ts', test: replacement === 'true' ? 'a restarted incarnation rewriting every description (not only its first) still shows restart-rewrites-appended-interval' : 'a restarted incarnation rewriting all but its first description still shows restart-rewrites-appended-interval' },
  })),
  {
    file: 'impl/sink/replica-state.ts',
    mutator: 'ConditionalExpression',
    original: 'u.time < lower',
    replacement: 'false',
    why: 'With every switch off the slice starts at `lower` (the staged updates are the very objects handed in: the arm that advances a time is never taken); with restart-rewrites-appended-interval on, the rewritten updates keep their times, and the bug is still caught.',
    proof: STAGED,
  },
  {
    file: 'impl/sink/replica-state.ts',
    mutator: 'EqualityOperator',
    original: 'u.time < lower',
    replacement: 'u.time <= lower',
    why: 'The arm then also takes an update at `lower`, and copies it into an equal one (time `lower`): the same values reach the batch.',
    proof: STAGED,
  },
  ...([
    ['ConditionalExpression', 'upper - from > 1', 'true'],
    ['EqualityOperator', 'upper - from > 1', 'upper - from >= 1'],
    ['ArithmeticOperator', 'upper - from', 'upper + from'],
  ] as const).map(([mutator, original, replacement]) => ({
    file: 'impl/sink/replica-state.ts',
    mutator,
    original,
    replacement,
    why: "Each mutant sorts by id where the original does not (upper − from ≤ 1): a slice of one time, which the worker's updates, ascending by (time, id), give already in id order — the sort is the identity, also with the gallery bug that stages from 0.",
    proof: STAGED_ONE_TIME,
  })),
  {
    file: 'impl/sink/replica-state.ts',
    mutator: 'StringLiteral',
    original: '`index ${i} outside [0, ${list.length})`',
    replacement: '``',
    why: "The message of `at`'s RangeError, thrown only for an index its caller got wrong: never over the killer's whole budget (probed; a throw there would also break the run, which the check reports whatever the message).",
    proof: PROBES,
  },
  {
    file: 'impl/sink/write.ts',
    mutator: 'ConditionalExpression',
    original: "case 'shared': return writeShared(r, ref.worker, desc, staged, barrier);",
    replacement: "case 'shared':",
    why: "The shared route falls through to the empty one, which makes the same writeShared call and returns its result unless the gallery bug empty-finish-hands-nothing is on; with it on the shared route hands nothing too, and the bug is still caught.",
    proof: { kind: 'test' as const, file: 'mutation/probes.deep.test.ts', test: 'the shared route falling through to the empty one still shows empty-finish-hands-nothing' },
  },
  {
    file: 'impl/sink/write.ts',
    mutator: 'EqualityOperator',
    original: 'i < staged.length',
    replacement: 'i <= staged.length',
    why: 'When the staged updates fill whole chunks (none included), the loop makes one more push, of an empty slice, on an open handle: it passes no point, emits nothing and sends nothing.',
    proof: EMPTY_PUSH,
  },
  // impl/persist/blob-client.ts
  {
    file: 'impl/persist/blob-client.ts',
    mutator: 'ConditionalExpression',
    original: 'opts.retries',
    replacement: 'true',
    why: "A delete without retries is asked for only by the arm of the gallery bug mismatch-delete-error-swallowed (its best-effort delete after a mismatch); with every switch off `retries` is true. Forced true, the bug's delete retries transient failures and still swallows permanent ones: its blobs still leak from a live writer, and the gallery stage still catches it.",
    proof: { kind: 'test' as const, file: 'mutation/persist-equivalents.deep.test.ts', test: 'still shows mismatch-delete-error-swallowed' },
  },
  // impl/persist/retry.ts
  {
    file: 'impl/persist/retry.ts',
    mutator: 'ConditionalExpression',
    original: 'ctx.by === undefined',
    replacement: 'false',
    why: "An incarnation's `fault` event then carries `by: undefined` instead of no `by`: every reader compares the field with undefined or 'supervisor' (the permanent-failure check, the steering features, the event printer) and JSON, the form a trace leaves its process in, drops it. The killer's fault world and gallery print word for word the same with every such event emitted that way.",
    proof: { kind: 'test' as const, file: 'mutation/persist-equivalents.deep.test.ts', test: 'the fault world prints word for word the same' },
  },
  // impl/persist/state-diff.ts
  ...([
    ['48 + (diff.batch?.parts.length ?? 0) * 24', '48 - (diff.batch?.parts.length ?? 0) * 24'],
    ['(diff.batch?.parts.length ?? 0) * 24', '(diff.batch?.parts.length ?? 0) / 24'],
  ] as const).map(([original, replacement]) => ({
    file: 'impl/persist/state-diff.ts',
    mutator: 'ArithmeticOperator',
    original,
    replacement,
    why: "The state diff's encoder sizes its ByteWriter with a capacity hint; the writer clamps the hint and grows as it writes, so a diff's bytes (what consensus stores and stateDiffBytes counts, which the cost check holds to the model) do not depend on it.",
    proof: CAPACITY_IS_A_HINT,
  })),
  // impl/shared/handle.ts
  ...([
    ['ConditionalExpression', '!this.#lossIsTheBug()', 'true'],
    ['LogicalOperator', "bugs.has('late-handle-joins-finished-builder') || bugs.has('barrier-skip-double-count')", "bugs.has('late-handle-joins-finished-builder') && bugs.has('barrier-skip-double-count')"],
    ['ConditionalExpression', "bugs.has('late-handle-joins-finished-builder') || bugs.has('barrier-skip-double-count')", 'false'],
  ] as const).map(([mutator, original, replacement]) => ({
    file: 'impl/shared/handle.ts',
    mutator,
    original,
    replacement,
    why: 'With every switch off a push never meets a closed channel (the receiver closes only after every reference finished), so the refusal is reached only under the gallery bugs late-handle-joins-finished-builder and barrier-skip-double-count; the mutant makes it refuse under them too (push-after-finish) instead of dropping the chunk, and each bug is still caught (the test beside this one shows barrier-skip-double-count).',
    proof: { kind: 'test' as const, file: 'mutation/probes.deep.test.ts', test: 'a push into a closed channel refused under the bug too still shows late-handle-joins-finished-builder' },
  })),
  // impl/shared/barrier-state.ts
  {
    file: 'impl/shared/barrier-state.ts',
    mutator: 'BooleanLiteral',
    original: 'false',
    replacement: 'true',
    why: "`#late`'s initial value: `late` is read only right after an `arrive()` that finalized the barrier (handle.ts, shared-batches.ts noteSkip), and every finalization writes `#late` first; the probe counts reads of `late` on a barrier not yet finalized over the killer's whole budget: none.",
    proof: PROBES,
  },
  {
    file: 'impl/shared/barrier-state.ts',
    mutator: 'BooleanLiteral',
    original: 'true',
    replacement: 'false',
    why: "The lateness a timer's completion records in the state: the registry records a timer's completion itself (`#timerFired` marks the id late without asking the state), and a barrier finalized by its timer takes no further arrival, so its `late` is never read; the probe counts reads of `late` on barriers their timer completed over the killer's whole budget: none.",
    proof: PROBES,
  },
  {
    file: 'impl/shared/barrier-state.ts',
    mutator: 'ConditionalExpression',
    original: 'pending < participants',
    replacement: 'false',
    why: "A state made after early skips arms its timer at construction; unarmed, it arms at the next `arrive()` (`#arm` runs on every arrival). Without faults the opener that made the state always arrives (the probe counts such states that never see an arrival in the killer's plain check: none), and arming later only delays a timer the scheduler may delay anyway: the mutant's runs are runs the original can make, which the check cannot tell apart. In the fault world and under a gallery bug that drops a handle a state may see no arrival (its incarnation aborts first, or the bug drops the opener): there the killer's fault world and gallery stage still pass and catch every bug with the mutant, which is all Stryker's run shows; no probe covers that part.",
    proof: PROBES,
  },
  // impl/shared/shared-batches.ts
  {
    file: 'impl/shared/shared-batches.ts',
    mutator: 'ConditionalExpression',
    original: 'c === undefined',
    replacement: 'true',
    why: "The per-sink context is memoized; made afresh on every call it is `{ ...ctx, writer, trace }` of the call's sink, and a registry's calls for one sink always pass that sink's writer and trace (sink 0's are the registry's own: probed over the killer's whole budget, no call differs), so every fresh context equals the kept one field by field, and nothing compares contexts by identity.",
    proof: PROBES,
  },
  {
    file: 'impl/shared/shared-batches.ts',
    mutator: 'ConditionalExpression',
    original: 'opts.participants !== undefined',
    replacement: 'true',
    why: "Asking an open without a barrier whether its id is late changes something only when it meets a late id: one a barrier used, in a registry where a barrier was opened with a deadline (a late id needs its timer). The probe counts such opens over the killer's whole budget (plain, fault world, gallery): none. (The misuse programs open barrier ids without a barrier on purpose, never in a registry with a timer.)",
    proof: PROBES,
  },
  ...([
    ['ConditionalExpression', 'sink.sink === 0', 'false'],
    ['ConditionalExpression', 'sink.sink === 0', 'true'],
    ['EqualityOperator', 'sink.sink === 0', 'sink.sink !== 0'],
    ['StringLiteral', '`#${name}`', '``'],
    ['StringLiteral', '`s${sink.sink}#${name}`', '``'],
    ['StringLiteral', '`r${ctx.replica}/p${ctx.process}/${label}`', '``'],
    ['StringLiteral', '`builder r${ctx.replica}/p${ctx.process}/${label}`', '``'],
  ] as const).map(([mutator, original, replacement]) => ({
    file: 'impl/shared/shared-batches.ts',
    mutator,
    original,
    replacement,
    why: `The label of a shared batch's tasks (its builder task, its barrier's timer) names only those tasks. ${TASK_NAME}`,
    proof: PROBES,
  })),
];
