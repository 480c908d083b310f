/**
 * Replay tokens: a counterexample (workload, schedule choices, bug switch) packed into one paste-able
 * string, so `sbkit check --replay <token>` reruns exactly the failing run, independent of how
 * fast-check generated it.
 */
import { BUG_NAMES, type BugName, type VariantOptionValues } from '../vocab/index.ts';
import { VARIANTS, barrierByDefault, variantMeta } from '../impl/variants/index.ts';
import type { Schedule } from './schedule.ts';
import { CONFIG_CHECK_NAMES } from './streams.ts';
import { FAULT_CODES, type FaultSchedule } from './faults.ts';
import { NO_DATA_POLICIES, SINK_VERSIONS } from '../vocab/index.ts';
import { DEFAULT_NO_DATA, DEFAULT_SINK, INLINE_SINGLE_MAX, LOAD_CLASSES, type LoadClass, type Workload } from './workload.ts';

export interface Counterexample {
  readonly workload: Workload;
  readonly schedule: Schedule;
  readonly bug?: BugName;
  /** A stream's failure (streams.ts): which check derived from the configuration, and its case. */
  readonly stream?: { readonly check: string; readonly pick: number };
}

const PREFIX = 'sb1.';

export class ReplayTokenError extends Error {
  override readonly name = 'ReplayTokenError';
}

export function encodeToken(c: Counterexample): string {
  const w = c.workload;
  const packed = {
    v: w.variant,
    s: [w.replicas, w.processes, w.workersPerProcess, w.intervals, w.threshold, w.blobTargetSize, w.inlineTotalMaxBytes, w.pushChunkUpdates],
    k: w.knob,
    ...(w.asOf === 0 ? {} : { a: w.asOf }),
    g: w.barrierFlags.map((b) => (b ? '1' : '0')).join(''),
    ...(w.inlineSingleMaxBytes === INLINE_SINGLE_MAX ? {} : { i: w.inlineSingleMaxBytes }),
    l: w.loads.map((row) => row.map((l) => LOAD_CLASSES.indexOf(l)).join('')),
    p: w.pacing,
    ...(w.noData === DEFAULT_NO_DATA ? {} : { n: w.noData }),
    ...(w.sink === DEFAULT_SINK ? {} : { sk: w.sink }),
    ...(w.sinkLoads === undefined ? {} : { sl: w.sinkLoads.map((loads) => loads.map((row) => row.map((l) => LOAD_CLASSES.indexOf(l)).join(''))) }),
    ...(w.idOrder === undefined || w.idOrder === 'time' ? {} : { io: w.idOrder }),
    ...(w.maxRuns === undefined ? {} : { mr: w.maxRuns }),
    // The variant's options (a variant without options has none): `inf` as text, JSON has no Infinity.
    ...(w.variantOptions === undefined ? {} : { vo: Object.fromEntries(Object.entries(w.variantOptions).map(([k, x]) => [k, x === Number.POSITIVE_INFINITY ? 'inf' : x])) }),
    c: c.schedule.choices,
    z: c.schedule.starve.map((a) => [a.replica, a.worker]),
    ...(c.schedule.pct === undefined ? {} : { q: c.schedule.pct.priorities, x: c.schedule.pct.changes }),
    ...(c.schedule.faults === undefined
      ? {}
      : {
          f: {
            s: c.schedule.faults.storage.join(''),
            a: c.schedule.faults.aborts.map((a) => [a.step, a.replica]),
            h: c.schedule.faults.heal,
            ...((c.schedule.faults.cas ?? []).length === 0 ? {} : { c: (c.schedule.faults.cas ?? []).join('') }),
            ...((c.schedule.faults.deletes ?? []).length === 0 ? {} : { d: (c.schedule.faults.deletes ?? []).join('') }),
          },
        }),
    ...(c.bug === undefined ? {} : { b: c.bug }),
    ...(c.stream === undefined ? {} : { st: c.stream.check, sc: c.stream.pick }),
  };
  return PREFIX + Buffer.from(JSON.stringify(packed)).toString('base64url');
}

export function decodeToken(token: string): Counterexample {
  if (!token.startsWith(PREFIX)) throw new ReplayTokenError(`replay token must start with "${PREFIX}", got "${token.slice(0, 8)}…"`);
  let raw: unknown;
  try {
    raw = JSON.parse(Buffer.from(token.slice(PREFIX.length), 'base64url').toString('utf8'));
  } catch {
    throw new ReplayTokenError('replay token is not valid base64url JSON (was it cut when pasted?)');
  }
  const bad = (what: string): never => {
    throw new ReplayTokenError(`replay token has an invalid ${what}`);
  };
  if (typeof raw !== 'object' || raw === null) return bad('body');
  const o = raw as Record<string, unknown>;
  const variant = VARIANTS.find((v) => v === o['v']) ?? bad('variant');
  const s = o['s'];
  if (!Array.isArray(s) || s.length !== 8 || !s.every(isNat)) return bad('shape');
  const nums = s as number[];
  const [replicas, processes, workersPerProcess, intervals, threshold, blobTargetSize, inlineTotalMaxBytes, pushChunkUpdates] =
    nums as [number, number, number, number, number, number, number, number];
  const knob = o['k'];
  if (!Array.isArray(knob) || knob.length === 0 || !knob.every(isNat)) return bad('knob');
  // Fields added later default to what tokens made before them meant.
  const asOf = o['a'] ?? 0;
  if (!isNat(asOf) || (asOf > 0 && asOf >= intervals)) return bad('as-of');
  const flagsRaw = o['g'] ?? (barrierByDefault(variant) ? '1' : '0');
  if (typeof flagsRaw !== 'string' || flagsRaw.length === 0 || ![...flagsRaw].every((ch) => ch === '0' || ch === '1')) return bad('barrier flags');
  const inlineSingleMaxBytes = o['i'] ?? INLINE_SINGLE_MAX;
  if (!isNat(inlineSingleMaxBytes)) return bad('inline single max bytes');
  const loadsRaw = o['l'];
  if (!Array.isArray(loadsRaw) || loadsRaw.length !== intervals) return bad('loads');
  const loadsOf = (raw: unknown[]): LoadClass[][] =>
    raw.map((row): LoadClass[] => {
      if (typeof row !== 'string' || row.length !== processes * workersPerProcess) return bad('loads row');
      return [...row].map((ch) => LOAD_CLASSES[Number(ch)] ?? bad('load class'));
    });
  const loads = loadsOf(loadsRaw);
  // More MV sinks (absent: one), each with loads shaped like `l`.
  const sinkLoadsRaw = o['sl'];
  if (sinkLoadsRaw !== undefined && (!Array.isArray(sinkLoadsRaw) || sinkLoadsRaw.length === 0 || sinkLoadsRaw.length > 3)) return bad('sink loads');
  const sinkLoads = (sinkLoadsRaw as unknown[] | undefined)?.map((l) => (Array.isArray(l) && l.length === intervals ? loadsOf(l) : bad('sink loads')));
  const choices = o['c'];
  if (!Array.isArray(choices) || !choices.every(isNat)) return bad('choices');
  const pacing = o['p'] === 'lockstep' || o['p'] === 'free' ? o['p'] : bad('pacing');
  const noData = NO_DATA_POLICIES.find((n) => n === (o['n'] ?? DEFAULT_NO_DATA)) ?? bad('no-data policy');
  const sink = SINK_VERSIONS.find((v) => v === (o['sk'] ?? DEFAULT_SINK)) ?? bad('sink');
  const idOrderRaw = o['io'];
  if (idOrderRaw !== undefined && idOrderRaw !== 'reversed') return bad('id order');
  const maxRunsRaw = o['mr'];
  if (maxRunsRaw !== undefined && !isNat(maxRunsRaw)) return bad('max runs');
  const variantOptions = o['vo'] === undefined ? undefined : decodeOptions(variant, o['vo']) ?? bad('variant options');
  const starveRaw = o['z'];
  if (!Array.isArray(starveRaw)) return bad('starve list');
  const starve = starveRaw.map((a: unknown) => {
    if (!Array.isArray(a) || a.length !== 2 || !a.every(isNat)) return bad('starved actor');
    return { replica: a[0] as number, worker: a[1] as number };
  });
  const priorities = o['q'];
  const changes = o['x'];
  if ((priorities === undefined) !== (changes === undefined)) return bad('PCT schedule (priorities and change points go together)');
  if (priorities !== undefined && (!Array.isArray(priorities) || !priorities.every(isNat))) return bad('PCT priorities');
  if (changes !== undefined && (!Array.isArray(changes) || !changes.every(isNat))) return bad('PCT change points');
  const pct = priorities === undefined ? undefined : { priorities: priorities as number[], changes: changes as number[] };
  const faultsRaw = o['f'];
  let faults: FaultSchedule | undefined;
  if (faultsRaw !== undefined) {
    if (typeof faultsRaw !== 'object' || faultsRaw === null) return bad('fault schedule');
    const f = faultsRaw as Record<string, unknown>;
    // A string of code digits (FAULT_CODES indexes), nothing else: a blank is not an ok.
    const codes = (raw: unknown, what: string): number[] =>
      typeof raw === 'string' && /^[0-9]*$/.test(raw) && [...raw].every((ch) => FAULT_CODES[Number(ch)] !== undefined) ? [...raw].map(Number) : bad(`fault schedule (${what})`);
    const storage = codes(f['s'], 'storage codes');
    const aborts = f['a'];
    if (!Array.isArray(aborts) || !aborts.every((a: unknown) => Array.isArray(a) && a.length === 2 && a.every(isNat))) return bad('fault schedule (aborts)');
    if (!isNat(f['h'])) return bad('fault schedule (heal step)');
    const cas = f['c'] === undefined ? [] : codes(f['c'], 'compare-and-set codes');
    const deletes = f['d'] === undefined ? [] : codes(f['d'], 'delete codes');
    faults = {
      storage,
      aborts: (aborts as number[][]).map((a) => ({ step: a[0] as number, replica: a[1] as number })),
      heal: f['h'] as number,
      ...(cas.length === 0 ? {} : { cas }),
      ...(deletes.length === 0 ? {} : { deletes }),
    };
  }
  const bugRaw = o['b'];
  const bug = bugRaw === undefined ? undefined : (BUG_NAMES.find((b) => b === bugRaw) ?? bad('bug name'));
  const streamRaw = o['st'];
  if (streamRaw !== undefined && (!CONFIG_CHECK_NAMES.includes(streamRaw as string) || !isNat(o['sc']))) return bad('stream (a check derived from the configuration, and its case)');
  const stream = streamRaw === undefined ? undefined : { check: streamRaw as string, pick: o['sc'] as number };
  if (replicas < 1 || processes < 1 || workersPerProcess < 1 || intervals < 1 || pushChunkUpdates < 1) return bad('shape');
  const workload: Workload = {
    variant,
    replicas,
    processes,
    workersPerProcess,
    intervals,
    asOf,
    threshold,
    knob: knob as number[],
    barrierFlags: [...flagsRaw].map((ch) => ch === '1'),
    loads,
    blobTargetSize,
    inlineSingleMaxBytes,
    inlineTotalMaxBytes,
    pushChunkUpdates,
    pacing,
    noData,
    sink,
    ...(sinkLoads === undefined ? {} : { sinkLoads }),
    ...(idOrderRaw === undefined ? {} : { idOrder: idOrderRaw }),
    ...(maxRunsRaw === undefined ? {} : { maxRuns: maxRunsRaw as number }),
    ...(variantOptions === undefined ? {} : { variantOptions }),
  };
  const schedule = { choices: choices as number[], starve, ...(pct === undefined ? {} : { pct }), ...(faults === undefined ? {} : { faults }) };
  return { workload, schedule, ...(bug === undefined ? {} : { bug }), ...(stream === undefined ? {} : { stream }) };
}

/** A token's `vo`: options of the variant only, each a duration in ms ≥ 0 (or `inf` where allowed);
 * undefined if anything else is there. */
function decodeOptions(variant: string, raw: unknown): VariantOptionValues | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
  const out: Record<string, number> = {};
  for (const [k, x] of Object.entries(raw)) {
    const spec = variantMeta(variant).options.find((o) => o.name === k);
    if (spec === undefined) return undefined;
    if (x === 'inf' && spec.inf) out[k] = Number.POSITIVE_INFINITY;
    else if (typeof x === 'number' && Number.isFinite(x) && x >= 0) out[k] = x;
    else return undefined;
  }
  return out;
}

function isNat(x: unknown): x is number {
  return typeof x === 'number' && Number.isInteger(x) && x >= 0;
}
