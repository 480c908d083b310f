/**
 * Misuse, as a property of every run. The sink never misuses its own objects — it pushes inside its
 * descriptions, finishes once, appends or deletes a batch once — so the typed refusals of misuse
 * (push after finish, finish twice, an update outside a description, a batch appended twice, a store
 * asked to break its contract...) are code no generated run reaches, and a mutant that removes one
 * survives every other check. Each run therefore also drives a few of the implementation's objects of
 * its own through a random program of calls, some of them misuse, and a model of use predicts each
 * call's outcome from the program alone: done, or refused with which code and a message naming what
 * was wrong. After a refusal nothing changed: the data that reaches a batch (or the shard, or a store)
 * is exactly the data of the accepted calls, and every counter and status says so.
 *
 * The model of use is the contract of vocab/PROTOCOL.md and the classes' doc comments, computed here
 * over abstract states (a handle open/finished/dropped with pushes in flight; a batch owned, deleting,
 * consumed or deleted; ...), never by asking the object.
 *
 * The contracts are the implementation's, not only what the kit's own callers need: a real caller may
 * reuse its arrays, use ids anywhere in their declared range, run writers of different configurations
 * on one shard, or race claims for one replica (the last four scenarios: what a check of the kit's own
 * callers never tries). Each scenario is one unit, one file of this folder; the driver shared by all is
 * this file (the scenario and program a run picks), judge.ts (calls against predictions), draw.ts (the
 * seeded choices and updates), scheduler.ts (the spinning limit) and writer.ts (the persist objects).
 *
 * Which scenario a run tries, and its program, follow from a hash of its workload (deterministic,
 * replayable); over the default budget each scenario runs dozens of random programs. Everything runs
 * on in-memory stores under the pass-through scheduler (reuse: one that lets the builder task read only
 * when the program says), after the run itself, in well under a millisecond.
 */
import type { RunConfig } from '../../impl/run-config.ts';
import { Judge, describe } from './judge.ts';
import { SCENARIOS, type Scenario, type MisuseVerdict } from './scenario.ts';
import { Draw, restartUpdateIds } from './draw.ts';
import { restartPoints } from './scheduler.ts';
import { handles } from './handles.ts';
import { failing } from './failing.ts';
import { barrier } from './barrier.ts';
import { builder } from './builder.ts';
import { batch } from './batch.ts';
import { stores } from './stores.ts';
import { registry } from './registry.ts';
import { faults } from './faults.ts';
import { reuse } from './reuse.ts';
import { ids } from './ids.ts';
import { writers } from './writers.ts';
import { claims } from './claims.ts';
export { SCENARIOS, type MisuseVerdict, type Scenario } from './scenario.ts';

/** The hash a run's misuse follows from: its shape and data (FNV-1a), a different salt from bad input's. */
export function misuseSeed(c: RunConfig): number {
  let k = 0x811c9dc5 ^ 0x5bd1e995;
  const data = c.updates.reduce((n, u) => n + u.time * 131 + u.value.length * 7 + u.id, 0);
  const p = c.persist;
  for (const x of [c.updates.length, data, c.intervals, c.replicas, c.workersPerProcess, c.processes, c.asOf ?? 0, c.pushChunkUpdates ?? 0, p?.blobTargetSize ?? 0, p?.inlineSingleMaxBytes ?? 0, p?.inlineTotalMaxBytes ?? 0, c.variant.length]) {
    k = Math.imul(k ^ x, 16777619) >>> 0;
  }
  return k;
}

export function misuseJudged(c: RunConfig): Promise<MisuseVerdict> {
  const seed = misuseSeed(c);
  return runScenario(SCENARIOS[seed % SCENARIOS.length] as Scenario, seed);
}

/** A scenario's random program from `seed`, judged against the model of use. */
export async function runScenario(scenario: Scenario, seed: number): Promise<MisuseVerdict> {
  // Ids from 1 in every program: a replay prints the same program as the check that found it.
  restartUpdateIds();
  restartPoints();
  const judge = new Judge(scenario, new Draw(Math.imul(seed, 2654435761) >>> 0));
  // The refusals are judged by their type and message, never their stack (capturing one is most of a
  // refusal's cost); the limit is restored before anything else runs.
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    await SCENARIO[scenario](judge);
  } catch (e) {
    judge.wrong.push(`the program itself threw ${describe(e)}`);
  } finally {
    Error.stackTraceLimit = limit;
  }
  return { scenario, program: judge.program, refusals: judge.refusals, wrong: judge.wrong };
}

const SCENARIO: Record<Scenario, (j: Judge) => Promise<void>> = { handles, barrier, builder, batch, stores, registry, faults, failing, reuse, ids, writers, claims };
