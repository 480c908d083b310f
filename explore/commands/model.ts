/**
 * `sbkit model`: prints the model's state machines as Mermaid diagrams (paste into any Mermaid
 * renderer), or with `--check` checks the model exhaustively against spec/'s properties (explore/model-check.ts).
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { VARIANTS } from '../variants/index.ts';
import { type Flag, type FlagValues, bad, bytesFlag, choiceFlag, good, intFlag, optional, shardFlag, stringFlag, switchFlag } from '../args.ts';
import { type Command, EXIT, exitCodeOf, exitWith, usageError, withArgs } from '../command.ts';
import { DEFAULT_CHECK_RUNS } from '../budgets.ts';
import { loadDiagrams } from '../diagrams.ts';
import {
  DEFAULT_MAX_MEMORY,
  DEFAULT_MAX_STATES,
  DEFAULT_PLAIN_MAX_STATES,
  DEFAULT_SHAPE,
  SEARCHES,
  type SearchKind,
  MODEL_BUG_NAMES,
  type ModelBugName,
  type ModelCheckRequest,
  type ModelCheckResult,
  WORKLOAD_LINES,
  coreLines,
  modelCheckJson,
  modelCheckReasons,
  renderModelCheck,
  runModelCheck,
} from '../model-check.ts';
import type { Io } from '../io.ts';
import { DEFAULT_SEARCHES, DEFAULT_STATES_PER_SEARCH, defaultDepth, modelSwarmJson, renderModelSwarm, runModelSwarm, swarmReasons, type SwarmRequest } from '../model-swarm.ts';
import { withProgress } from '../progress.ts';
import { describeWriteError, outputFlagProblem } from '../output-paths.ts';
import { CHECK_VARIANTS, type CheckVariant } from './check.ts';
import { reportRunError } from './errors.ts';
import { VARIANT_OPTION_FLAGS, optionsFromFlags } from '../variant-options.ts';

const USAGE = 'sbkit model';

/** Flags that only mean something with --check (given without it: exit 2). */
const CHECK_ONLY = [
  'variant',
  'workers',
  'processes',
  'replicas',
  'intervals',
  'max-states',
  'model-bug',
  'faults',
  'json',
  'emit-diagram',
  'search',
  'symmetry',
  'por',
  'max-memory',
  'max-seconds',
  'shard',
  'jobs',
  'core',
  'parts',
  'first-violation',
  'swarm',
  'searches',
  'depth',
] as const;
/** Flags of the packed search only (given with --search plain: exit 2). */
const PACKED_ONLY = ['symmetry', 'por', 'max-memory', 'max-seconds', 'shard', 'jobs', 'first-violation'] as const;

/** `--combine FILE[,FILE…]` (repeatable): shard outputs to combine. */
function filesFlag(help: string): Flag<readonly string[]> {
  return {
    help,
    placeholder: 'FILES',
    takesValue: true,
    repeatable: true,
    defaultValue: [],
    parse: (raw, prev) => {
      const files = raw.split(',').map((f) => f.trim());
      if (files.some((f) => f.length === 0)) return bad(`expected comma-separated file names, got ${JSON.stringify(raw)}`);
      return good([...prev, ...files]);
    },
  };
}

const onOff = (help: string) => optional(choiceFlag<'on' | 'off'>({ help, choices: ['on', 'off'], defaultValue: 'on' }), 'on');

/** Whether a --check flag was given (switches: set; others: a value). */
const given = (v: FlagValues<typeof MODEL_FLAGS>, name: (typeof CHECK_ONLY)[number]): boolean =>
  name === 'json' ? v.json : name === 'core' ? v.core : name === 'faults' ? v.faults : name === 'first-violation' ? v['first-violation'] : name === 'swarm' ? v.swarm : v[name] !== undefined;

const FIXED_MODEL_FLAGS = {
  machine: optional(stringFlag({ help: 'print only this machine (see --list)', placeholder: 'NAME', defaultValue: '' }), 'all'),
  list: switchFlag('list the machines and exit'),
  mermaid: switchFlag('print Mermaid stateDiagram-v2 source (the default without --check)'),
  check: switchFlag('check the model exhaustively: every reachable state, every property of spec/'),
  variant: optional(choiceFlag<CheckVariant>({ help: '--check: which variant to search', choices: CHECK_VARIANTS, defaultValue: 'all' }), 'all'),
  workers: optional(intFlag({ help: '--check: workers per process', defaultValue: DEFAULT_SHAPE.workers, min: 1, max: 16 }), String(DEFAULT_SHAPE.workers)),
  processes: optional(intFlag({ help: '--check: processes per replica', defaultValue: DEFAULT_SHAPE.processes, min: 1, max: 8 }), String(DEFAULT_SHAPE.processes)),
  replicas: optional(intFlag({ help: '--check: replicas', defaultValue: DEFAULT_SHAPE.replicas, min: 1, max: 4 }), String(DEFAULT_SHAPE.replicas)),
  intervals: optional(intFlag({ help: '--check: batch intervals', defaultValue: DEFAULT_SHAPE.intervals, min: 1, max: 8 }), String(DEFAULT_SHAPE.intervals)),
  'max-states': optional(
    intFlag({ help: '--check: stop after N distinct states per variant (reported as incomplete: exit 4)', defaultValue: DEFAULT_MAX_STATES, min: 1, max: 2_000_000_000 }),
    `${DEFAULT_MAX_STATES.toLocaleString('en-US')}; plain: ${DEFAULT_PLAIN_MAX_STATES.toLocaleString('en-US')}`,
  ),
  search: optional(choiceFlag<SearchKind>({ help: '--check: packed (fast: packed states, reductions, limits) or plain (model/search.ts, the reference)', choices: SEARCHES, defaultValue: 'packed' }), 'packed'),
  symmetry: onOff('--check: symmetry reduction over workers with identical loads (the append worker among them: nothing reads it) and over replicas'),
  por: onOff('--check: partial-order reduction (confluent events taken alone; verdicts kept, counterexamples re-searched to be shortest)'),
  'max-memory': optional(bytesFlag({ help: '--check: stop a search when this process\'s RSS reaches this (reported as incomplete: exit 4)', defaultValue: DEFAULT_MAX_MEMORY, min: 64 * 1024 * 1024 }), '4GiB'),
  'max-seconds': optional(intFlag({ help: '--check: stop each search after this many seconds (reported as incomplete: exit 4; the re-search for shortest counterexamples gets as long again)', defaultValue: 3600, min: 1, max: 1_000_000 }), 'none'),
  shard: shardFlag('--check: explore only one shard of the search (the BFS frontier split by hash at a depth); combine the shards\' --json with --combine', 'the whole search'),
  jobs: optional(
    intFlag({
      help: "--check: spread each search over N threads (states owned by a hash of their builders, BFS levels kept in step: the same states, verdicts and shortest counterexample lengths); pays off on big searches and many cores, and takes more memory (each thread keeps tables of its own)",
      defaultValue: 1,
      min: 1,
      max: 64,
    }),
    '1',
  ),
  combine: filesFlag('combine the --json outputs of every --shard I/N run into one verdict (exit 1 if one found a violation, 4 if one is missing or incomplete)'),
  core: switchFlag("--check: the SPIN anchor's configuration (1 process, 1 interval, each worker 0..--parts one-part updates; see bench/spin/)"),
  parts: optional(intFlag({ help: '--core: the most parts (updates) a worker holds', defaultValue: 1, min: 1, max: 9 }), '1'),
  'model-bug': optional(choiceFlag<ModelBugName>({ help: `--check: switch a bug on in the model (${MODEL_BUG_NAMES.join(', ')}: the review bug of #37591, an append misreading its own indeterminate write — implies --faults); the check must then fail`, choices: MODEL_BUG_NAMES, defaultValue: 'sweep-upgrade-race', placeholder: 'NAME' }), 'none'),
  'first-violation': switchFlag('--check: stop at the first violated property (its counterexample still re-searched to be shortest); the other properties read UNKNOWN'),
  swarm: switchFlag(
    '--check: for a configuration too big to search exhaustively: many short depth-first searches, each with its own random successor order and depth bound, spread over --jobs; it reports the shortest violation it finds with the command that replays it, and never says a property holds (exit 1 on a violation found, else 4: no verdict)',
  ),
  searches: optional(intFlag({ help: '--swarm: searches per variant', defaultValue: DEFAULT_SEARCHES, min: 1, max: 10_000_000 }), `${DEFAULT_SEARCHES}, or as many as --max-seconds allows`),
  depth: optional(intFlag({ help: '--swarm: the deepest a search goes (each draws its own bound, log-uniform between 8 and this)', defaultValue: 100, min: 1, max: 100_000 }), '8 × workers × processes × intervals × replicas + 16'),
  faults: switchFlag('--check: explore the fault world too: an abort and restart of a replica, an append compare-and-set that applies but answers with an error, leaked-blob cleanup'),
  json: switchFlag('--check / --coverage: print one JSON object instead of text'),
  'emit-diagram': optional(stringFlag({ help: '--check: on a violation, also write its shortest counterexample as a Mermaid sequenceDiagram (FILE.md: fenced in Markdown)', placeholder: 'FILE', defaultValue: '' })),
  coverage: switchFlag("which transitions of each machine sbkit check's runs take, per variant (replayed through the model)"),
  runs: optional(intFlag({ help: '--coverage: conformance runs per variant, without faults and again with faults (below the default, a transition never taken is incomplete: exit 4)', defaultValue: DEFAULT_CHECK_RUNS, min: 1, max: 10_000_000 }), String(DEFAULT_CHECK_RUNS)),
  seed: optional(intFlag({ help: '--coverage: the conformance seed; --swarm: the seed of its first search (search k has seed + k)', defaultValue: 1, min: 0, max: 0x7fff_ffff }), '1'),
} as const;

/** The model's flags, then every registered variant's options (`--barrier-timeout T` …, explore/variant-options.ts). */
export const MODEL_FLAGS = { ...FIXED_MODEL_FLAGS, ...VARIANT_OPTION_FLAGS } as typeof FIXED_MODEL_FLAGS;

const HELP = {
  usage: USAGE,
  summary:
    "Without --check: prints the model's state machines (model/) as Mermaid diagrams, each under a\n" +
    '`%% name` line. Render them with any Mermaid viewer (a Markdown preview, mermaid.live); the report\n' +
    'embeds them too.\n\n' +
    'With --check: explores every reachable state of a small configuration breadth-first (Stateright\'s\n' +
    '`check`), per variant, and judges each property of spec/properties.ts: always (every state) and\n' +
    'eventually (every final state) print "holds" or "VIOLATED" with a shortest counterexample trace;\n' +
    'sometimes prints "witnessed (N-event example)" or "NOT witnessed". Exit 0 = every always/eventually\n' +
    'property holds and every search completed; 1 = a violation; 4 = no violation, but a search stopped at\n' +
    '--max-states, --max-memory or --max-seconds (incomplete: it never reads "holds").',
  notes: [
    `The workload of --check (small, so every interleaving can be visited; both routes are reachable):\n${WORKLOAD_LINES.map((l) => `  ${l}`).join('\n')}`,
    'The packed search (default) stores states as a few integers each and takes successors from\n' +
      "model/system.ts, memoized by what each event reads (model/packed/read-sets.ts, checked on every miss).\n" +
      'Reductions (on by default; --symmetry off / --por off): workers with identical loads are\n' +
      'interchangeable (the append worker too: nothing in the model reads it), so are replicas; confluent events (stage, own-batch,\n' +
      'hand, finish-end) are taken alone where they commute with every other enabled event. Both keep\n' +
      'every verdict; with the partial-order reduction a violation is re-searched without it so that its\n' +
      'trace is a shortest one. Every printed trace was replayed on the model. Without reductions the\n' +
      'packed search visits exactly the states of --search plain (the reference).',
    'The state space grows fast: the defaults have a few hundred states per variant; each extra worker\n' +
      'multiplies it by roughly 10-40 (less with the reductions). A search that would not fit stops at\n' +
      '--max-memory (default 4GiB RSS) or --max-states and says how far it got; it never reads "holds".\n' +
      'sometimes-refused-append needs --replicas 2.',
    'Splitting one check over machines: run `--shard I/N --json > shard-I.json` for I = 1…N (each explores\n' +
      'the states below its hash-partition of the BFS frontier), then `sbkit model --combine shard-1.json,…`.',
    `--core is the SPIN anchor's shape (bench/spin/, npm run bench:spin):\n${coreLines(2).map((l) => `  ${l}`).join('\n')}`,
    'Examples:\n' +
      '  sbkit model --mermaid --machine builder\n' +
      '  sbkit model --check\n' +
      '  sbkit model --check --variant barrier --intervals 2 --json\n' +
      '  sbkit model --check --variant best-effort --model-bug sweep-upgrade-race   # must fail: the review bug of #37591\n' +
      '  sbkit model --check --variant best-effort --model-bug sweep-upgrade-race --emit-diagram race.md\n' +
      '  sbkit model --check --faults                          # aborts, restarts, indeterminate commits, cleanup\n' +
      '  sbkit model --check --model-bug indeterminate-cas-deletes-batches   # must fail: deletes what the shard took\n' +
      '  sbkit model --check --workers 4 --shard 1/2 --json > s1.json; sbkit model --check --workers 4 --shard 2/2 --json > s2.json\n' +
      '  sbkit model --combine s1.json,s2.json\n' +
      '  sbkit model --check --workers 7 --variant best-effort --jobs 4   # one search over 4 threads\n' +
      '  sbkit model --check --core --workers 3 --parts 2 --variant best-effort\n' +
      '  sbkit model --check --workers 4 --processes 2 --variant best-effort --model-bug sweep-upgrade-race --first-violation\n' +
      '  sbkit model --check --swarm --workers 4 --processes 2 --intervals 2 --variant best-effort --model-bug sweep-upgrade-race   # too big to search exhaustively\n' +
      '  sbkit model --coverage',
  ],
};

type ModelValues = FlagValues<typeof MODEL_FLAGS>;

/** `--check`: the exhaustive search on the requested shape, printed as text or JSON. */
async function checkModel(io: Io, v: ModelValues): Promise<number> {
  const clash = v.list ? '--list' : v.machine !== undefined ? '--machine' : v.mermaid ? '--mermaid' : v.combine.length > 0 ? '--combine' : undefined;
  if (clash !== undefined) return usageError(io, USAGE, `--check: cannot be combined with ${clash}`);
  const coverageOnly = v.runs !== undefined ? '--runs' : v.seed !== undefined && !v.swarm ? '--seed' : undefined;
  if (coverageOnly !== undefined) return usageError(io, USAGE, `${coverageOnly}: only with --coverage${coverageOnly === '--seed' ? ' or --swarm' : ''}`);
  if (v.swarm) return swarmModel(io, v);
  const swarmOnly = v.searches !== undefined ? '--searches' : v.depth !== undefined ? '--depth' : undefined;
  if (swarmOnly !== undefined) return usageError(io, USAGE, `${swarmOnly}: only with --swarm`);
  const search = v.search ?? 'packed';
  const packedOnly = PACKED_ONLY.find((name) => (name === 'first-violation' ? v[name] : v[name] !== undefined));
  if (search === 'plain' && packedOnly !== undefined) return usageError(io, USAGE, `--${packedOnly}: only with --search packed`);
  if (v.parts !== undefined && !v.core) return usageError(io, USAGE, '--parts: only with --core');
  if (v.jobs !== undefined && v.shard !== undefined) return usageError(io, USAGE, '--jobs: not with --shard (each shard is one thread; run the shards side by side instead)');
  if (v.jobs !== undefined && v.core) return usageError(io, USAGE, '--jobs: not with --core (its many small searches are quicker on one thread each)');
  if (v.core && (v.processes ?? 1) !== 1) return usageError(io, USAGE, '--core: the SPIN anchor has 1 process (drop --processes)');
  if (v.core && (v.replicas ?? 1) !== 1) return usageError(io, USAGE, '--core: the SPIN anchor has 1 replica (drop --replicas)');
  if (v.core && (v.intervals ?? 1) !== 1) return usageError(io, USAGE, '--core: the SPIN anchor has 1 interval (drop --intervals)');
  const request: ModelCheckRequest = {
    variants: v.variant === undefined || v.variant === 'all' ? VARIANTS : [v.variant],
    workers: v.workers ?? DEFAULT_SHAPE.workers,
    processes: v.processes ?? DEFAULT_SHAPE.processes,
    replicas: v.replicas ?? DEFAULT_SHAPE.replicas,
    intervals: v.intervals ?? DEFAULT_SHAPE.intervals,
    maxStates: v['max-states'] ?? (search === 'plain' ? DEFAULT_PLAIN_MAX_STATES : DEFAULT_MAX_STATES),
    modelBug: v['model-bug'],
    faults: v.faults,
    search,
    ...(search === 'packed'
      ? { symmetry: v.symmetry !== 'off', por: v.por !== 'off', maxMemory: v['max-memory'] ?? DEFAULT_MAX_MEMORY }
      : {}),
    ...(v['max-seconds'] === undefined ? {} : { maxSeconds: v['max-seconds'] }),
    ...(v.shard === undefined ? {} : { shard: v.shard }),
    ...(v.jobs === undefined ? {} : { jobs: v.jobs }),
    ...(v.core ? { core: { parts: v.parts ?? 1 } } : {}),
    ...(v['first-violation'] ? { firstViolation: true } : {}),
    ...(optionsFromFlags(v) === undefined ? {} : { variantOptions: optionsFromFlags(v) }),
  };
  const unwritable = outputFlagProblem(io.cwd, [['--emit-diagram', v['emit-diagram']]]);
  if (unwritable !== undefined) return usageError(io, USAGE, unwritable);
  let r: ModelCheckResult;
  try {
    r = await withProgress(io, { json: v.json, title: 'model check' }, (update) => runModelCheck(request, { now: () => io.now(), onProgress: update }));
  } catch (e) {
    return reportRunError(io, USAGE, e);
  }
  // The result first, so that a file that cannot be written never costs the counterexample.
  io.out(v.json ? `${JSON.stringify(modelCheckJson(r), null, 2)}\n` : renderModelCheck(r));
  const reasons = modelCheckReasons(r);
  if (v['emit-diagram'] !== undefined) {
    const file = v['emit-diagram'];
    try {
      const said = await emitModelDiagram(r, resolve(io.cwd, file), file);
      if (!v.json) io.out(`${said}\n`);
    } catch (e) {
      exitWith(io, USAGE, reasons);
      io.err(`${USAGE}: --emit-diagram: ${describeWriteError(file, e)}\n`);
      return EXIT.internal;
    }
  }
  return exitWith(io, USAGE, reasons);
}

/** `--check --swarm`: many short random searches (explore/model-swarm.ts), printed as text or JSON. */
async function swarmModel(io: Io, v: ModelValues): Promise<number> {
  const refused: [boolean, string][] = [
    [v.search === 'plain', '--swarm: the swarm runs on the packed engine (drop --search plain)'],
    [v.shard !== undefined, '--swarm: not with --shard (spread the searches with --jobs instead)'],
    [v.core, '--swarm: not with --core (its load vectors are small enough to search exhaustively)'],
    [v['first-violation'], '--swarm: not with --first-violation (the swarm reports the shortest violation it finds)'],
    [v['emit-diagram'] !== undefined, '--swarm: not with --emit-diagram'],
    [v['max-memory'] !== undefined, '--swarm: not with --max-memory (each search keeps at most its states; bound them with --max-states)'],
    [v.parts !== undefined, '--parts: only with --core'],
  ];
  const why = refused.find(([bad]) => bad);
  if (why !== undefined) return usageError(io, USAGE, why[1]);
  const shape = {
    workers: v.workers ?? DEFAULT_SHAPE.workers,
    processes: v.processes ?? DEFAULT_SHAPE.processes,
    replicas: v.replicas ?? DEFAULT_SHAPE.replicas,
    intervals: v.intervals ?? DEFAULT_SHAPE.intervals,
  };
  const request: SwarmRequest = {
    variants: v.variant === undefined || v.variant === 'all' ? VARIANTS : [v.variant],
    ...shape,
    modelBug: v['model-bug'],
    faults: v.faults,
    symmetry: v.symmetry !== 'off',
    por: v.por !== 'off',
    seed: v.seed ?? 1,
    searches: v.searches ?? (v['max-seconds'] === undefined && v['max-states'] === undefined ? DEFAULT_SEARCHES : null),
    depth: v.depth ?? defaultDepth(shape),
    statesPerSearch: DEFAULT_STATES_PER_SEARCH,
    maxStates: v['max-states'] ?? Number.POSITIVE_INFINITY,
    maxSeconds: v['max-seconds'],
    jobs: v.jobs ?? 1,
  };
  try {
    const r = await withProgress(io, { json: v.json, title: 'model swarm' }, (update) => runModelSwarm(request, { now: () => io.now(), onProgress: update }));
    io.out(v.json ? `${JSON.stringify(modelSwarmJson(r), null, 2)}\n` : renderModelSwarm(r));
    return exitWith(io, USAGE, swarmReasons(r));
  } catch (e) {
    return reportRunError(io, USAGE, e);
  }
}

/** Writes the shortest counterexample of the check (if any) as a sequence diagram; says what it wrote. */
async function emitModelDiagram(r: ModelCheckResult, path: string, file: string): Promise<string> {
  const { modelCounterexampleSequence } = await import('../model-diagram.ts');
  const seq = modelCounterexampleSequence(r);
  if (seq === undefined) return 'no counterexample: no diagram written';
  const { diagramFile } = await import('../sequence.ts');
  const { writeFile } = await import('node:fs/promises');
  await writeFile(path, diagramFile(seq, file), 'utf8');
  return `shortest counterexample written as a sequence diagram: ${file}`;
}

/** `--coverage`: explore/coverage.ts. Only --variant, --runs, --seed and --json go with it. */
async function coverageOfModel(io: Io, v: ModelValues): Promise<number> {
  const clash = v.check ? '--check' : v.list ? '--list' : v.machine !== undefined ? '--machine' : v.mermaid ? '--mermaid' : undefined;
  if (clash !== undefined) return usageError(io, USAGE, `--coverage: cannot be combined with ${clash}`);
  const stray = CHECK_ONLY.find((name) => name !== 'variant' && name !== 'json' && given(v, name));
  if (stray !== undefined) return usageError(io, USAGE, `--${stray}: only with --check`);
  const { runCoverage, renderCoverage, coverageJson, coverageReasons } = await import('../coverage.ts');
  try {
    const variants = v.variant === undefined || v.variant === 'all' ? VARIANTS : [v.variant];
    const r = await withProgress(io, { json: v.json, title: 'coverage' }, (update) => runCoverage({ variants, runs: v.runs, seed: v.seed ?? 1 }, update));
    const reasons = coverageReasons(r, v.runs ?? DEFAULT_CHECK_RUNS);
    io.out(v.json ? `${JSON.stringify({ ...(coverageJson(r) as object), exitCode: exitCodeOf(reasons), reasons: reasons.map((x) => x.text) }, null, 2)}\n` : renderCoverage(r));
    return exitWith(io, USAGE, reasons);
  } catch (e) {
    return reportRunError(io, USAGE, e);
  }
}

/** `--combine`: one verdict from the shards' JSON files. */
async function combineShards(io: Io, v: ModelValues): Promise<number> {
  const stray = CHECK_ONLY.find((name) => name !== 'json' && given(v, name));
  if (stray !== undefined) return usageError(io, USAGE, `--${stray}: not with --combine (the shards' files say how they ran)`);
  const clash = v.list ? '--list' : v.machine !== undefined ? '--machine' : v.mermaid ? '--mermaid' : undefined;
  if (clash !== undefined) return usageError(io, USAGE, `--combine: cannot be combined with ${clash}`);
  const files: { file: string; text: string }[] = [];
  for (const file of v.combine) {
    try {
      files.push({ file, text: await readFile(resolve(io.cwd, file), 'utf8') });
    } catch (e) {
      return usageError(io, USAGE, `--combine: cannot read ${file} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    }
  }
  const { combineModelChecks, CombineError } = await import('../model-combine.ts');
  try {
    const r = combineModelChecks(files);
    io.out(v.json ? `${JSON.stringify(modelCheckJson(r), null, 2)}\n` : renderModelCheck(r));
    return exitWith(io, USAGE, modelCheckReasons(r));
  } catch (e) {
    if (e instanceof CombineError) return usageError(io, USAGE, `--combine: ${e.message}`);
    return reportRunError(io, USAGE, e);
  }
}

/** Without `--check`: the machines' names (`--list`) or their Mermaid source. */
async function printMachines(io: Io, v: ModelValues): Promise<number> {
  const stray = CHECK_ONLY.find((name) => given(v, name));
  if (stray !== undefined) return usageError(io, USAGE, `--${stray}: only with --check`);
  const coverageOnly = v.runs !== undefined ? '--runs' : v.seed !== undefined ? '--seed' : undefined;
  if (coverageOnly !== undefined) return usageError(io, USAGE, `${coverageOnly}: only with --coverage`);
  const d = await loadDiagrams();
  if (d.kind === 'unavailable') {
    io.err(`${USAGE}: ${d.reason}\n`);
    return EXIT.internal;
  }
  if (v.list) {
    io.out(`${d.diagrams.map((x) => x.name).join('\n')}\n`);
    return EXIT.ok;
  }
  const chosen = v.machine === undefined ? d.diagrams : d.diagrams.filter((x) => x.name === v.machine);
  if (chosen.length === 0) {
    return usageError(io, USAGE, `--machine: no machine named ${JSON.stringify(v.machine)}; known: ${d.diagrams.map((x) => x.name).join(', ')}`);
  }
  io.out(chosen.map((x) => `%% ${x.name}\n${x.mermaid.trimEnd()}\n`).join('\n'));
  return EXIT.ok;
}

export const modelCommand: Command = {
  name: 'model',
  help: HELP,
  flags: MODEL_FLAGS,
  summary: "print the model's state machines as Mermaid diagrams, or check the model exhaustively (--check)",
  run: (argv, io) =>
    withArgs(HELP, MODEL_FLAGS, argv, io, (v) =>
      v.coverage ? coverageOfModel(io, v) : v.check ? checkModel(io, v) : v.combine.length > 0 ? combineShards(io, v) : printMachines(io, v),
    ),
};
