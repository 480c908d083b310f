/**
 * `sbkit model`: prints the model's state machines as Mermaid diagrams (paste into any Mermaid
 * renderer), or with `--check` checks the model exhaustively against spec/'s properties (explore/model-check.ts).
 */
import { VARIANTS } from '../../vocab/index.ts';
import { type FlagValues, choiceFlag, intFlag, optional, stringFlag, switchFlag } from '../args.ts';
import { type Command, EXIT, usageError, withArgs } from '../command.ts';
import { loadDiagrams } from '../diagrams.ts';
import {
  DEFAULT_MAX_STATES,
  DEFAULT_SHAPE,
  MODEL_BUG_NAMES,
  type ModelBugName,
  type ModelCheckRequest,
  WORKLOAD_LINES,
  modelCheckJson,
  renderModelCheck,
  runModelCheck,
} from '../model-check.ts';
import type { Io } from '../io.ts';
import { withProgress } from '../progress.ts';
import { CHECK_VARIANTS, type CheckVariant } from './check.ts';
import { reportRunError } from './errors.ts';

const USAGE = 'sbkit model';

/** Flags that only mean something with --check (given without it: exit 2). */
const CHECK_ONLY = ['variant', 'workers', 'processes', 'replicas', 'intervals', 'max-states', 'model-bug', 'faults', 'json', 'emit-diagram'] as const;

export const MODEL_FLAGS = {
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
    intFlag({ help: '--check: stop after N distinct states per variant (reported as incomplete: exit 1)', defaultValue: DEFAULT_MAX_STATES, min: 1, max: 50_000_000 }),
    DEFAULT_MAX_STATES.toLocaleString('en-US'),
  ),
  'model-bug': optional(choiceFlag<ModelBugName>({ help: `--check: switch a bug on in the model (${MODEL_BUG_NAMES.join(', ')}: the review bug of #37591, an append misreading its own indeterminate write — implies --faults); the check must then fail`, choices: MODEL_BUG_NAMES, defaultValue: 'sweep-upgrade-race', placeholder: 'NAME' }), 'none'),
  faults: switchFlag('--check: explore the fault world too: an abort and restart of a replica, an append compare-and-set that applies but answers with an error, leaked-blob cleanup'),
  json: switchFlag('--check / --coverage: print one JSON object instead of text'),
  'emit-diagram': optional(stringFlag({ help: '--check: on a violation, also write its shortest counterexample as a Mermaid sequenceDiagram (FILE.md: fenced in Markdown)', placeholder: 'FILE', defaultValue: '' })),
  coverage: switchFlag("which transitions of each machine sbkit check's runs take, per variant (replayed through the model)"),
  runs: optional(intFlag({ help: '--coverage: conformance runs per variant', defaultValue: 500, min: 1, max: 10_000_000 }), 'conformance DEFAULT_RUNS'),
  seed: optional(intFlag({ help: '--coverage: the conformance seed', defaultValue: 1, min: 0, max: 0x7fff_ffff }), '1'),
} as const;

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
    'property holds and every search completed; 1 = a violation, or --max-states was hit.',
  notes: [
    `The workload of --check (small, so every interleaving can be visited; both routes are reachable):\n${WORKLOAD_LINES.map((l) => `  ${l}`).join('\n')}`,
    'The state space grows fast: the defaults have a few hundred states per variant; --workers 3 or\n' +
      '--intervals 2 a few thousand (seconds); --workers 2 --processes 2 or --replicas 2 ~100,000 (a minute).\n' +
      'sometimes-refused-append needs --replicas 2.',
    'Examples:\n' +
      '  sbkit model --mermaid --machine builder\n' +
      '  sbkit model --check\n' +
      '  sbkit model --check --variant barrier --intervals 2 --json\n' +
      '  sbkit model --check --variant best-effort --model-bug sweep-upgrade-race   # must fail: the review bug of #37591\n' +
      '  sbkit model --check --variant best-effort --model-bug sweep-upgrade-race --emit-diagram race.md\n' +
      '  sbkit model --check --faults                          # aborts, restarts, indeterminate commits, cleanup\n' +
      '  sbkit model --check --model-bug indeterminate-cas-deletes-batches   # must fail: deletes what the shard took\n' +
      '  sbkit model --coverage',
  ],
};

type ModelValues = FlagValues<typeof MODEL_FLAGS>;

/** `--check`: the exhaustive search on the requested shape, printed as text or JSON. */
async function checkModel(io: Io, v: ModelValues): Promise<number> {
  const clash = v.list ? '--list' : v.machine !== undefined ? '--machine' : v.mermaid ? '--mermaid' : undefined;
  if (clash !== undefined) return usageError(io, USAGE, `--check: cannot be combined with ${clash}`);
  const coverageOnly = v.runs !== undefined ? '--runs' : v.seed !== undefined ? '--seed' : undefined;
  if (coverageOnly !== undefined) return usageError(io, USAGE, `${coverageOnly}: only with --coverage`);
  const request: ModelCheckRequest = {
    variants: v.variant === undefined || v.variant === 'all' ? VARIANTS : [v.variant],
    workers: v.workers ?? DEFAULT_SHAPE.workers,
    processes: v.processes ?? DEFAULT_SHAPE.processes,
    replicas: v.replicas ?? DEFAULT_SHAPE.replicas,
    intervals: v.intervals ?? DEFAULT_SHAPE.intervals,
    maxStates: v['max-states'] ?? DEFAULT_MAX_STATES,
    modelBug: v['model-bug'],
    faults: v.faults,
  };
  try {
    const r = await withProgress(io, { json: v.json, title: 'model check' }, (update) => runModelCheck(request, { now: () => io.now(), onProgress: update }));
    const diagram = v['emit-diagram'] === undefined ? undefined : await emitModelDiagram(r, v['emit-diagram']);
    io.out(v.json ? `${JSON.stringify(modelCheckJson(r), null, 2)}\n` : renderModelCheck(r));
    if (diagram !== undefined && !v.json) io.out(`${diagram}\n`);
    return r.exitCode === 0 ? EXIT.ok : EXIT.failed;
  } catch (e) {
    return reportRunError(io, USAGE, e);
  }
}

/** Writes the shortest counterexample of the check (if any) as a sequence diagram; says what it wrote. */
async function emitModelDiagram(r: Awaited<ReturnType<typeof runModelCheck>>, file: string): Promise<string> {
  const { modelCounterexampleSequence } = await import('../model-diagram.ts');
  const seq = modelCounterexampleSequence(r);
  if (seq === undefined) return 'no counterexample: no diagram written';
  const { diagramFile } = await import('../sequence.ts');
  const { writeFile } = await import('node:fs/promises');
  await writeFile(file, diagramFile(seq, file), 'utf8');
  return `shortest counterexample written as a sequence diagram: ${file}`;
}

/** `--coverage`: explore/coverage.ts. Only --variant, --runs, --seed and --json go with it. */
async function coverageOfModel(io: Io, v: ModelValues): Promise<number> {
  const clash = v.check ? '--check' : v.list ? '--list' : v.machine !== undefined ? '--machine' : v.mermaid ? '--mermaid' : undefined;
  if (clash !== undefined) return usageError(io, USAGE, `--coverage: cannot be combined with ${clash}`);
  const stray = CHECK_ONLY.find((name) => name !== 'variant' && name !== 'json' && (name === 'faults' ? v.faults : v[name] !== undefined));
  if (stray !== undefined) return usageError(io, USAGE, `--${stray}: only with --check`);
  const { runCoverage, renderCoverage, coverageJson } = await import('../coverage.ts');
  try {
    const variants = v.variant === undefined || v.variant === 'all' ? VARIANTS : [v.variant];
    const r = await withProgress(io, { json: v.json, title: 'coverage' }, (update) => runCoverage({ variants, runs: v.runs, seed: v.seed ?? 1 }, update));
    io.out(v.json ? `${JSON.stringify(coverageJson(r), null, 2)}\n` : renderCoverage(r));
    return r.exitCode === 0 ? EXIT.ok : EXIT.failed;
  } catch (e) {
    return reportRunError(io, USAGE, e);
  }
}

/** Without `--check`: the machines' names (`--list`) or their Mermaid source. */
async function printMachines(io: Io, v: ModelValues): Promise<number> {
  const stray = CHECK_ONLY.find((name) => (name === 'json' || name === 'faults' ? v[name] : v[name] !== undefined));
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
  summary: "print the model's state machines as Mermaid diagrams, or check the model exhaustively (--check)",
  run: (argv, io) => withArgs(HELP, MODEL_FLAGS, argv, io, (v) => (v.coverage ? coverageOfModel(io, v) : v.check ? checkModel(io, v) : printMachines(io, v))),
};
