/**
 * The properties of shared batches, as data (Stateright-style: named predicates tagged always /
 * sometimes / eventually). Each names what it guards against: the PR, review bug or impl/ bug switch.
 *
 * Semantics over a SystemView (spec/view.ts), the same for the model's exhaustive search and for an
 * implementation trace in conformance/:
 * - always: `check` must hold on every view (every prefix of every run);
 * - eventually: must hold on final views (`view.final`); on others `check` returns ok;
 * - sometimes: a reachability witness — `check` is ok on views that show it; the search requires one
 *   reachable witness so the `always` properties do not pass vacuously.
 * The view holds what a trace shows (updates, batch/part counts, results); blob-level checks (every blob
 * PUT referenced or deleted) belong to conformance/, which sees the implementation's blob store.
 */
import type { UpdateId } from '../vocab/index.ts';
import { ascending, type AppendView, type SystemView } from './view.ts';

export type PropertyVerdict = { readonly ok: true } | { readonly ok: false; readonly why: string };

export interface Property {
  readonly name: string;
  readonly kind: 'always' | 'sometimes' | 'eventually';
  /** The PR, review finding or bug switch this protects against. */
  readonly guards: string;
  /** One line, saying what the property can see. */
  readonly statement: string;
  check(view: SystemView): PropertyVerdict;
}

const holds: PropertyVerdict = { ok: true };
const violated = (why: string): PropertyVerdict => ({ ok: false, why });
const notYet = violated('no witness in this view');
const list = (ids: readonly number[]): string => `[${ids.join(', ')}]`;

const desiredIn = (view: SystemView, lower: number, upper: number): UpdateId[] =>
  view.desired.filter((u) => lower <= u.time && u.time < upper).map((u) => u.id);

const sameIds = (a: readonly UpdateId[], b: readonly UpdateId[]): boolean =>
  a.length === b.length && a.every((id, i) => id === b[i]);

const okAppends = (view: SystemView): AppendView[] => view.appends.filter((a) => a.result.ok);

export const noLossNoDuplication: Property = {
  name: 'no-loss-no-duplication',
  kind: 'always',
  guards: '#37591 review: the sweep\'s weak.upgrade() race sealed intervals without their data; duplicate delivery',
  statement:
    'every successful append over [lower, upper) carries exactly the desired updates with lower ≤ time < upper, each once (the append event\'s updates)',
  check(view) {
    for (const a of okAppends(view)) {
      const want = desiredIn(view, a.lower, a.upper);
      const got = ascending(a.updates);
      if (!sameIds(want, got)) {
        return violated(
          `replica ${a.replica} appended [${a.lower}, ${a.upper}) with updates ${list(got)}, desired ${list(want)}`,
        );
      }
    }
    return holds;
  },
};

export const sealedExactlyOnce: Property = {
  name: 'sealed-exactly-once',
  kind: 'eventually',
  guards: 'append/delete on upper mismatch across replicas: nothing appended twice, nothing lost for good',
  statement: 'at the end the shard\'s upper is K and its successful appends hold every desired update exactly once',
  check(view) {
    if (!view.final) return holds;
    const upper = view.shardUppers[view.shardUppers.length - 1];
    if (upper !== view.config.intervals) {
      return violated(`the run ended with the shard's upper at ${upper}, not ${view.config.intervals}`);
    }
    const got = ascending(okAppends(view).flatMap((a) => a.updates));
    const want = view.desired.map((u) => u.id);
    return sameIds(want, got) ? holds : violated(`the shard holds ${list(got)}, desired ${list(want)}`);
  },
};

export const atMostOneReceiver: Property = {
  name: 'at-most-one-receiver',
  kind: 'always',
  guards: '#37591: only the handle dropping the last strong reference receives; #37617: only the deliverer',
  statement: 'no builder instance\'s batch is returned by more than one finish (finish-end events with a batch)',
  check(view) {
    const bad = view.builders.find((b) => b.receivers > 1);
    return bad === undefined
      ? holds
      : violated(
          `builder ${bad.sharedId} (instance ${bad.instance}) of replica ${bad.replica} process ${bad.process} ` +
            `was received ${bad.receivers} times`,
        );
  },
};

export const noBatchToNobody: Property = {
  name: 'no-batch-to-nobody',
  kind: 'always',
  guards: '#37591 review: sweep-upgrade-race (the sweep\'s reference was the last); drop-without-finish',
  statement: 'no builder instance with pushed updates is closed without a receiver (sweep-release/drop closed=true)',
  check(view) {
    const bad = view.builders.find((b) => b.deliveredToNobody);
    return bad === undefined
      ? holds
      : violated(
          `builder ${bad.sharedId} (instance ${bad.instance}) of replica ${bad.replica} process ${bad.process} ` +
            `closed with updates ${list(bad.updates)} and no receiver`,
        );
  },
};

export const barrierOneSharedBatchPerProcess: Property = {
  name: 'barrier-one-shared-batch-per-process',
  kind: 'always',
  guards: '#37617: the barrier makes exactly one shared batch per process per interval (barrier-skip-double-count)',
  statement:
    'with the barrier and sharing on, every append carries exactly one shared batch per process whose workers routed shared, none for others',
  check(view) {
    const W = view.config.workersPerProcess;
    for (const a of view.appends) {
      // The barrier flag as minted on the description (it may change between intervals).
      if (!a.barrier || a.maxBytes === 0) continue;
      for (let p = 0; p < view.config.processes; p++) {
        const sharing = a.routes.slice(p * W, (p + 1) * W).some((r) => r === 'shared');
        const shared = a.batches.filter((b) => b.process === p && b.route === 'shared').length;
        if (shared !== (sharing ? 1 : 0)) {
          return violated(
            `replica ${a.replica}'s append of [${a.lower}, ${a.upper}) has ${shared} shared batches from process ${p}` +
              ` (${sharing ? 'whose workers shared' : 'with no sharing worker'})`,
          );
        }
      }
    }
    return holds;
  },
};

/**
 * What a barrier with a deadline still promises (model/variants/ puts it in place of
 * barrier-one-shared-batch-per-process for such a barrier: after a timeout, late workers share among
 * themselves best-effort, so a process may hand more than one shared batch for an interval).
 */
export const barrierOneSharedBatchPerGroup: Property = {
  name: 'barrier-one-shared-batch-per-group',
  kind: 'always',
  guards: 'a barrier with a deadline: the batch it completes holds everything its group pushed (a timer that seals the batch while a handle still pushes; barrier-skip-double-count)',
  statement:
    "with the barrier and sharing on, every shared batch a process hands for an append is one whole builder instance of the description's id in the appending incarnation (the barrier's group, or a group of workers that came after it timed out), no two alike, and a process whose workers shared hands at least one",
  check(view) {
    const W = view.config.workersPerProcess;
    for (const a of view.appends) {
      if (!a.barrier || a.maxBytes === 0) continue;
      for (let p = 0; p < view.config.processes; p++) {
        const sharing = a.routes.slice(p * W, (p + 1) * W).some((r) => r === 'shared');
        const shared = a.batches.filter((b) => b.process === p && b.route === 'shared');
        const where = `replica ${a.replica}'s append of [${a.lower}, ${a.upper})`;
        if (sharing && shared.length === 0) return violated(`${where} has no shared batch from process ${p}, whose workers shared`);
        if (!sharing && shared.length > 0) return violated(`${where} has ${shared.length} shared batches from process ${p}, with no sharing worker`);
        // (a restarted mint numbers its descriptions from 0 again: only the appending incarnation's
        // builders can have made this append's batches)
        const groups = view.builders.filter(
          (b) => b.replica === a.replica && b.incarnation === a.incarnation && b.process === p && b.sharedId === a.sharedId && b.updates.length > 0,
        );
        const seen = new Set<string>();
        for (const b of shared) {
          const got = ascending(b.updates);
          const key = got.join(',');
          if (seen.has(key)) return violated(`${where} has two shared batches from process ${p} holding ${list(got)}`);
          seen.add(key);
          if (!groups.some((g) => sameIds(g.updates, got))) {
            const pushed = groups.map((g) => list(g.updates)).join(', ') || 'none';
            return violated(`${where} has a shared batch from process ${p} holding ${list(got)}: no builder instance of id ${a.sharedId} received exactly that (they received ${pushed})`);
          }
        }
      }
    }
    return holds;
  },
};

export const noLeakedParts: Property = {
  name: 'no-leaked-parts',
  kind: 'eventually',
  guards: 'drop-without-finish, append-keeps-batches-on-mismatch, sweep-upgrade-race',
  statement:
    'at the end every batch written (own batches, shared batches returned or closed for nobody) was appended or deleted, or abandoned by an abort',
  check(view) {
    if (!view.final) return holds;
    const { written, appended, deleted, abandoned } = view.batches;
    const toNobody = view.builders.filter((b) => b.deliveredToNobody).length;
    if (toNobody > 0) return violated(`${toNobody} shared batches were closed for nobody: their parts leaked`);
    return written === appended + deleted + abandoned
      ? holds
      : violated(`${written} batches written, ${appended} appended, ${deleted} deleted${abandoned > 0 ? `, ${abandoned} abandoned by aborts` : ''}`);
  },
};

export const uppersOnlyAdvance: Property = {
  name: 'uppers-only-advance',
  kind: 'always',
  guards: 'compare_and_append: ok iff the shard upper equals lower; lowers strictly increase',
  statement:
    'appends are ok exactly when their lower is the shard\'s upper, refusals report that upper, and the shard\'s upper only advances',
  check(view) {
    for (const a of view.appends) {
      // `shardUpper`: the shard's upper when the compare-and-set ran, as every earlier event tells
      // (appends and bumps of all replicas).
      const upper = a.shardUpper;
      if (a.lower >= a.upper) return violated(`replica ${a.replica} appended an empty range [${a.lower}, ${a.upper})`);
      if (a.result.ok) {
        if (a.lower !== upper) return violated(`replica ${a.replica} appended at ${a.lower} while the shard was at ${upper}`);
      } else if (a.result.current !== upper) {
        return violated(`replica ${a.replica}'s refused append reported upper ${a.result.current}, the shard was at ${upper}`);
      } else if (upper < a.lower) {
        return violated(`replica ${a.replica}'s append at ${a.lower} was refused with the shard behind at ${upper} instead of bumping it`);
      }
    }
    const back = view.shardUppers.findIndex((u, i) => i > 0 && u <= (view.shardUppers[i - 1] as number));
    return back < 0 ? holds : violated(`the shard's upper went from ${view.shardUppers[back - 1]} to ${view.shardUppers[back]}`);
  },
};

export const barrierEveryFinishReturns: Property = {
  name: 'barrier-every-finish-returns',
  kind: 'eventually',
  guards: '#37617: no timeout — if every worker reports exactly once, every finish returns (barrier-lost-wakeup)',
  statement: 'at the end every finish that began has returned (finish-begin vs finish-end events), unless its incarnation was aborted',
  check(view) {
    if (!view.final) return holds;
    const { begun, ended, abandoned } = view.finishes;
    return begun === ended + abandoned ? holds : violated(`${begun - ended - abandoned} of ${begun} finishes never returned${abandoned > 0 ? ` (besides ${abandoned} abandoned by aborts)` : ''}`);
  },
};

export const severalBatchesForOneId: Property = {
  name: 'sometimes-several-batches-for-one-id',
  kind: 'sometimes',
  guards: '#37591 best-effort: a builder(id) after every earlier handle finished starts a new batch',
  statement: 'some (process, sharedId) has a second builder instance with data (open created twice)',
  check(view) {
    return view.builders.some((b) => b.instance > 0 && b.updates.length > 0) ? holds : notYet;
  },
};

export const fallbackAndSharedInOneAppend: Property = {
  name: 'sometimes-fallback-and-shared-in-one-append',
  kind: 'sometimes',
  guards: '#37591 threshold/fallback: the append worker appends own and shared batches together',
  statement: 'some append carries both a shared batch and an own batch',
  check(view) {
    const both = view.appends.some(
      (a) => a.batches.some((b) => b.route === 'shared') && a.batches.some((b) => b.route === 'own'),
    );
    return both ? holds : notYet;
  },
};

export const intervalSealedWithData: Property = {
  name: 'sometimes-interval-sealed-with-data',
  kind: 'sometimes',
  guards: 'non-vacuity of no-loss-no-duplication',
  statement: 'some successful append carries updates',
  check(view) {
    return okAppends(view).some((a) => a.updates.length > 0) ? holds : notYet;
  },
};

export const refusedAppend: Property = {
  name: 'sometimes-refused-append',
  kind: 'sometimes',
  guards: 'non-vacuity of the mismatch path (needs two replicas)',
  statement: 'some append is refused with an upper mismatch and its batches are deleted',
  check(view) {
    return view.appends.some((a) => !a.result.ok && a.deleted !== null && a.deleted > 0) ? holds : notYet;
  },
};

export const nothingDuplicated: Property = {
  name: 'nothing-duplicated',
  kind: 'always',
  guards: 'restart-rewrites-appended-interval; indeterminate compare-and-set retried blindly',
  statement: 'no update is in the shard twice: no id in two successful appends, none duplicated in the storage audit',
  check(view) {
    const seen = new Map<UpdateId, AppendView>();
    for (const a of okAppends(view)) {
      for (const id of a.updates) {
        const first = seen.get(id);
        if (first !== undefined) {
          return violated(`update ${id} was appended twice: by replica ${first.replica} in [${first.lower}, ${first.upper}) and by replica ${a.replica} in [${a.lower}, ${a.upper})`);
        }
        seen.set(id, a);
      }
    }
    const dup = view.storage?.duplicated ?? 0;
    return dup === 0 ? holds : violated(`the shard holds ${dup} update(s) more often than desired`);
  },
};

export const noReferencedBlobDeleted: Property = {
  name: 'no-referenced-blob-deleted',
  kind: 'always',
  guards: 'indeterminate-cas-deletes-batches; cleanup-deletes-in-flight-part',
  statement:
    'no batch the shard took is deleted (a refused append with the range and batches of a successful one), and shard state references no missing blob',
  check(view) {
    for (const a of view.appends) {
      if (a.result.ok || a.deleted === null || a.deleted === 0) continue;
      const taken = okAppends(view).find((o) => o.replica === a.replica && o.lower === a.lower && o.upper === a.upper && sameIds(o.updates, a.updates));
      if (taken !== undefined) {
        return violated(`replica ${a.replica} deleted the ${a.deleted} batch(es) of [${a.lower}, ${a.upper}), which the shard took: it read its own write as a mismatch`);
      }
    }
    const missing = view.storage?.referencedDeleted ?? 0;
    return missing === 0 ? holds : violated(`shard state references ${missing} blob(s) that were deleted: their data is lost for good`);
  },
};

export const convergesAfterFaults: Property = {
  name: 'converges-after-faults',
  kind: 'eventually',
  guards: 'the fault world: restarts self-correct from the shard upper (VOPR-style liveness phase)',
  statement:
    'once faults stop and every replica finished (restarted to completion), the shard\'s upper is K and it holds exactly the desired updates below it: nothing lost, nothing duplicated (audit included)',
  check(view) {
    if (!view.final) return holds;
    const upper = view.shardUppers[view.shardUppers.length - 1] ?? 0;
    if (upper !== view.config.intervals) return violated(`pending: the shard's upper is ${upper}, not ${view.config.intervals}`);
    const got = ascending(okAppends(view).flatMap((a) => a.updates));
    const want = desiredIn(view, 0, upper);
    if (!sameIds(want, got)) return violated(`the shard holds ${list(got)}, desired ${list(want)}`);
    const { lost = 0, duplicated = 0 } = view.storage ?? {};
    if (lost > 0 || duplicated > 0) return violated(`the storage audit finds ${lost} lost and ${duplicated} duplicated update(s)`);
    return holds;
  },
};

export const leaksOnlyFromAborts: Property = {
  name: 'leaks-only-from-aborts',
  kind: 'always',
  guards: 'mismatch-delete-error-swallowed, append-keeps-batches-on-mismatch: a leak without a teardown is a bug',
  statement: 'every leaked blob (written, never referenced, not deleted) was written by an incarnation that was aborted (teardown, crash)',
  check(view) {
    const live = view.storage?.leakedFromLive ?? 0;
    return live === 0 ? holds : violated(`${live} blob(s) leaked from writers that were never aborted`);
  },
};

export const leaksCollected: Property = {
  name: 'leaks-collected',
  kind: 'eventually',
  guards: "#37617 teardown: leaks are by design until persist's leaked-blob cleanup collects them",
  statement: 'once cleanup has run at the end, no leaked blob is left',
  check(view) {
    if (!view.final) return holds;
    const left = view.storage?.leakedAfterCleanup;
    return left === undefined || left === null || left === 0 ? holds : violated(`${left} leaked blob(s) are still there after the final cleanup`);
  },
};

export const replicaRestarted: Property = {
  name: 'sometimes-replica-restarted',
  kind: 'sometimes',
  guards: 'non-vacuity of the fault world: an abort and a restart as a new incarnation',
  statement: 'some replica was aborted and restarted, and then the shard still reached K',
  check(view) {
    const upper = view.shardUppers[view.shardUppers.length - 1] ?? 0;
    return view.faults.restarts > 0 && upper === view.config.intervals ? holds : notYet;
  },
};

export const indeterminateCommit: Property = {
  name: 'sometimes-indeterminate-commit',
  kind: 'sometimes',
  guards: 'non-vacuity of the idempotency token: a compare-and-set that applied but answered with an error',
  statement: 'some append committed through a compare-and-set whose answer was lost',
  check(view) {
    return view.faults.indeterminateCommits > 0 ? holds : notYet;
  },
};

export const properties: readonly Property[] = [
  noLossNoDuplication,
  sealedExactlyOnce,
  atMostOneReceiver,
  noBatchToNobody,
  barrierOneSharedBatchPerProcess,
  noLeakedParts,
  uppersOnlyAdvance,
  barrierEveryFinishReturns,
  nothingDuplicated,
  noReferencedBlobDeleted,
  convergesAfterFaults,
  leaksOnlyFromAborts,
  leaksCollected,
  severalBatchesForOneId,
  fallbackAndSharedInOneAppend,
  intervalSealedWithData,
  refusedAppend,
  replicaRestarted,
  indeterminateCommit,
];

/** Properties a variant may be judged by in place of one of `properties` (model/variants/: a barrier with
 * a deadline is judged by barrier-one-shared-batch-per-group instead of barrier-one-shared-batch-per-process). */
export const replacementProperties: readonly Property[] = [barrierOneSharedBatchPerGroup];

/** A property of `properties` or `replacementProperties` by name. */
export const propertyByName = (name: string): Property | undefined => [...properties, ...replacementProperties].find((p) => p.name === name);
