/** `sbkit crash-test`: replica processes on PostgreSQL and files, SIGKILLed and restarted; then audit, cleanup, model. */
import { mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BUG_NAMES, type BugName, type Variant } from '../../vocab/index.ts';
import { bestEffortMeta } from '../../vocab/variants/best-effort.ts';
import { VARIANTS } from '../variants/index.ts';
import { SbkitError } from '../../impl/errors.ts';
import { parseConsensusSpec } from '../../impl/persist/backends.ts';
import { bytesFlag, choiceFlag, intFlag, optional } from '../args.ts';
import { defaultPgUrl, fileBlobFlag, openBackends, postgresFlag } from '../backend-flags.ts';
import { type Command, exitWith, usageError, withArgs } from '../command.ts';
import { renderCrashReport, describeCrashSetup } from '../crash/render.ts';
import { crashReasons, runCrashTest } from '../crash/crash-test.ts';
import { DEFAULT_SEED, DEFAULT_THRESHOLD } from '../setup-flags.ts';
import { reportRunError } from './errors.ts';

const USAGE = 'sbkit crash-test';

export const CRASH_FLAGS = {
  replicas: intFlag({ help: 'replica processes writing the shard', defaultValue: 2, min: 1, max: 8 }),
  kills: intFlag({ help: 'SIGKILLs, at seeded moments (each followed by a restart)', defaultValue: 10, min: 0, max: 1000 }),
  seconds: intFlag({ help: 'the time bound of the whole run (wall clock); reaching it stops every process and the run is incomplete (exit 4)', defaultValue: 120, min: 1, max: 3600 }),
  seed: intFlag({ help: 'seed of the workload and of the kill plan (when, whom)', defaultValue: DEFAULT_SEED, min: 0, max: 0xffff_ffff }),
  consensus: optional(postgresFlag('the shard\'s consensus: a postgres:// URL (?table=NAME to choose the table)'), '$SBKIT_PG_URL, else the server `npm run pg:start` started'),
  blob: optional(fileBlobFlag('the blob directory: file:DIR (each run makes its own sub-directory for blobs and traces)'), 'file:$TMPDIR/sbkit-crash (the OS temp directory)'),
  variant: choiceFlag<Variant>({ help: 'the variant the replicas run', choices: VARIANTS, defaultValue: bestEffortMeta.name }),
  workers: intFlag({ help: 'workers per process (timely -w)', defaultValue: 4, min: 1, max: 64 }),
  processes: intFlag({ help: 'processes per replica (timely -n)', defaultValue: 1, min: 1, max: 8 }),
  intervals: intFlag({ help: 'batch intervals (K)', defaultValue: 400, min: 8, max: 100_000 }),
  'interval-ms': intFlag({ help: 'a replica\'s input advances the frontier at most once per this many ms (its batch interval; 0: as fast as storage allows, so kills land in the middle of the work)', defaultValue: 0, min: 0, max: 10_000 }),
  rows: intFlag({ help: 'updates per interval, spread over workers by key hash', defaultValue: 200, min: 0, max: 100_000 }),
  'row-bytes': bytesFlag({ help: 'encoded bytes per update, about', defaultValue: 100, min: 1 }),
  threshold: bytesFlag({ help: 'shared_batch_max_bytes', defaultValue: DEFAULT_THRESHOLD, min: 0 }),
  bug: optional(choiceFlag<BugName>({ help: 'switch on a bug of the gallery in every replica process (a canary: the run must fail)', choices: BUG_NAMES, defaultValue: 'restart-rewrites-appended-interval', placeholder: 'NAME' })),
} as const;

const HELP = {
  usage: USAGE,
  summary:
    'Jepsen-style: R replica processes (node, one replica\'s sink each) write one shard in PostgreSQL and a\n' +
    'blob directory; a supervisor SIGKILLs them at seeded moments and restarts each as a new incarnation\n' +
    '(it claims a new writer id and starts at the shard\'s upper). Then: the audit of the real database and\n' +
    'files (0 lost, 0 duplicated), leaked-blob cleanup (leaks created and collected), and every trace,\n' +
    'joined across incarnations and put in the shard\'s order, replayed on the model and judged by the\n' +
    'spec\'s properties. Exit 0 only if every kill happened and everything holds; 1 if anything failed; 4 if\n' +
    'the time bound stopped the run or the replicas sealed the shard before every kill (incomplete: nothing\n' +
    'it could judge failed). The seed fixes the workload and the kill plan; the interleaving is the machine\'s.',
  notes: ['Examples:\n  npm run pg:start && sbkit crash-test\n  sbkit crash-test --replicas 3 --kills 20 --seconds 300 --seed 7\n  sbkit crash-test --consensus postgres://u:p@db:5432/sbkit?table=crash --blob file:/var/tmp/sbkit'],
};

export const crashTestCommand: Command = {
  name: 'crash-test',
  help: HELP,
  flags: CRASH_FLAGS,
  summary: 'replica processes on PostgreSQL + files, SIGKILLed and restarted; audit, cleanup, model replay',
  run: (argv, io) => withArgs(HELP, CRASH_FLAGS, argv, io, async (v) => {
    const consensus = v.consensus ?? defaultPgUrl();
    if (consensus === undefined) {
      return usageError(io, USAGE, '--consensus: no PostgreSQL given and none found: start one with `npm run pg:start`, set SBKIT_PG_URL, or pass --consensus postgres://…');
    }
    const processesShare = 'replica processes share the shard: an in-memory store cannot be shared';
    try {
      if (parseConsensusSpec(consensus).kind !== 'postgres') return usageError(io, USAGE, `--consensus: must be a postgres:// URL (${processesShare})`);
    } catch (e) {
      // Only the default can be malformed here (a given flag was parsed already): SBKIT_PG_URL or .sbkit/pg/url.
      return usageError(io, USAGE, `--consensus (from SBKIT_PG_URL or .sbkit/pg/url): ${e instanceof Error ? e.message : String(e)}`);
    }
    let blob = v.blob;
    if (blob === undefined) {
      const dir = path.join(os.tmpdir(), 'sbkit-crash');
      mkdirSync(dir, { recursive: true });
      blob = `file:${dir}`;
    }
    try {
      const opened = await openBackends(consensus, blob, 'sbkit-crash-check');
      await opened.close();
    } catch (e) {
      if (e instanceof SbkitError) return usageError(io, USAGE, e.message);
      throw e;
    }
    const workload = {
      variant: v.variant,
      replicas: v.replicas,
      processes: v.processes,
      workersPerProcess: v.workers,
      intervals: v.intervals,
      rows: v.rows,
      rowBytes: v['row-bytes'],
      threshold: v.threshold,
      seed: v.seed,
      intervalMs: v['interval-ms'],
      bugs: v.bug === undefined ? [] : [v.bug],
    };
    io.out(`${describeCrashSetup(workload, v.kills, v.seconds)}\n`);
    try {
      const report = await runCrashTest({ workload, kills: v.kills, seconds: v.seconds, consensus, blob, progress: (line) => io.err(`${line}\n`) });
      io.out(renderCrashReport(report));
      return exitWith(io, USAGE, crashReasons(report));
    } catch (e) {
      return reportRunError(io, USAGE, e);
    }
  }),
};
