/**
 * The steered strategy (`sbkit check --strategy steer`, and a share of `mixed`): runs that steer towards
 * what the check has not reached yet, in the spirit of coverage-guided fuzzing (AFL, libFuzzer).
 *
 * The coverage is a set of features per run (steer-features.ts: the reach counters, event kinds × the
 * state of the actor they fired in, hit counts, pairs of reach counters). A run that reached a feature
 * no earlier run of this job reached joins the *corpus*, keeping the parts it was drawn from (workload,
 * orders, fault schedule, rare combination). Each later run is, with the strategy's share, derived from a
 * corpus entry by one mutation — the other parts kept as they were:
 * - `reorder`: fresh orders (choices or PCT, starved actors) for the same workload;
 * - `splice`: the entry's choices up to a cut, fresh ones after it (PCT: fresh change points, the same
 *   priorities): the run follows the entry's interleaving to the cut, then goes elsewhere;
 * - `tweak`: one to three of the entry's choices within the steps its run took, redrawn;
 * - `rework`: a fresh workload under the same orders and faults;
 * - `refault`: a fresh fault schedule (with faults only);
 * - `reshape`: a fresh rare combination (rare.ts) on the same draws.
 * Otherwise the run is drawn fresh, as `mixed` draws it, and chosen among a few such draws by how new
 * its configuration is (steer-features.ts `configFeaturesOf`: the fewest earlier runs with each of its
 * features and pairs of features). An entry is picked with energy: how rare the rarest feature it
 * discovered still is (1 / the runs that reached it), lowered as it is picked again, so that the runs
 * crowd around the paths few runs took. And some runs (either kind) are shaped towards the rare
 * combination (rare.ts) whose path the runs reached least. A job opens with a sweep of shapes
 * (`QUICK_SWEEP`), each between two unshaped runs.
 *
 * Why not mutation alone: most gallery bugs fail within a handful of runs, before a corpus says much;
 * deriving three runs in four from the first entries found them later than fresh draws did
 * (conformance/gallery-stats.ts). Fresh draws chosen for novelty, a fifth of the runs derived, and the
 * least reached rare path on purpose find the gallery's slowest bugs in fewer runs than `mixed` does
 * (`SBKIT_STRATEGIES=mixed,steer npx tsx conformance/gallery-stats.ts`).
 *
 * Every choice is a function of the job's seed: fresh parts come from fast-check's random of that run,
 * whether to mutate, which entry and which mutation from a generator seeded by the job's seed, and the
 * corpus from the runs before — so one seed and `--jobs` give the same runs. A run's token carries its
 * workload and schedule as they ran, so it replays without the corpus. Fresh parts keep fast-check's
 * shrink context; the value of a run shrinks part by part.
 */
import fc from 'fast-check';
import type { Variant } from '../vocab/index.ts';
import { hashInts, mulberry32, type Rng } from '../random/prng.ts';
import { faultScheduleArb, type FaultSchedule } from './faults.ts';
import type { RunReport } from './harness.ts';
import { ANY_VARIANT, FAULT_WORLD, RARE_COMBINATIONS, RARE_PATH, STEERED_COMBINATIONS, rareArb, shapedFor, type RareCombination } from './rare.ts';
import { sharesAtAll } from '../impl/variants/index.ts';
import { ordersArb, type Schedule, type Strategy } from './schedule.ts';
import { configFeaturesOf, featuresOf } from './steer-features.ts';
import { workloadArb, type Workload, type WorkloadBounds } from './workload.ts';

export interface Run {
  readonly workload: Workload;
  readonly schedule: Schedule;
}

type Orders = Omit<Schedule, 'faults'>;

/** The parts a run was drawn from, each with fast-check's shrink context when it was drawn fresh. */
interface Parts {
  readonly w: fc.Value<Workload>;
  readonly o: fc.Value<Orders>;
  readonly f: fc.Value<FaultSchedule> | undefined;
  readonly r: fc.Value<RareCombination | null>;
}

interface Entry {
  readonly parts: Parts;
  /** The features this entry reached first (in this job). */
  readonly found: readonly string[];
  /** Steps its run took (the scheduler log's resumes): where a tweak lands. */
  readonly steps: number;
  picks: number;
}

export const MUTATIONS = ['reorder', 'splice', 'tweak', 'rework', 'refault', 'reshape'] as const;
export type Mutation = (typeof MUTATIONS)[number];
const WEIGHTS: Readonly<Record<Mutation, number>> = { reorder: 3, splice: 3, tweak: 2, rework: 2, refault: 2, reshape: 1 };

/** Per strategy: per cent of the runs derived from the corpus (once it has an entry), the fresh draws a
 * fresh run is chosen from, and one run in how many is shaped towards the least reached rare
 * combination (0: none). */
export const STEERING: Readonly<Record<'steer' | 'mixed', { readonly share: number; readonly candidates: number; readonly rareOneIn: number }>> = {
  steer: { share: 20, candidates: 8, rareOneIn: 4 },
  mixed: { share: 10, candidates: 4, rareOneIn: 8 },
};

/**
 * The opening sweep: the first `SWEEP_RUNS` runs of a job alternate between a run drawn as usual, first, and a run
 * drawn fresh and shaped (rare.ts), the shapes taken in this order, over and over. Each shape is the
 * one that exposes some bug fastest (`SBKIT_SEEDS=8 npx tsx conformance/gallery-stats.ts`): an id
 * reopened after the sweep, a worker exactly at the threshold, an empty finish that must return the
 * batch, a flag flipping under a late worker, a superseded description handed to the append worker,
 * and in the fault world first a lost append race whose deletes fail.
 * Random draws reach each in one run of twenty or fewer; a bug that any run exposes is still found by the
 * runs in between. A variant that shares nothing sweeps only the shapes that hold there (`ANY_VARIANT`),
 * and a check without faults none of the fault world's (`FAULT_WORLD`).
 */
export const QUICK_SWEEP: readonly RareCombination[] = ['lost-race-delete-fails', 'late-reopen', 'threshold', 'empty-last', 'flag-flip-in-flight', 'supersede-hand'];
const SWEEP_RUNS = 20;

/** Whether a strategy steers (a share of its runs derived from the corpus). */
export function steers(strategy: Strategy): strategy is 'steer' | 'mixed' {
  return strategy === 'steer' || strategy === 'mixed';
}

/**
 * One job's steering: the corpus, the runs that reached each feature, and the arbitrary of runs drawn
 * from them. `observe` must see every run of the budget, in order, before the next is drawn (fast-check
 * draws lazily, one run after the previous property returned).
 */
export class Steering {
  readonly arb: fc.Arbitrary<Run>;
  readonly corpus: Entry[] = [];
  /** Feature → runs of this job that reached it. */
  readonly seen = new Map<string, number>();
  /** Runs observed, and how many were derived from the corpus, by mutation. */
  observed = 0;
  readonly mutated: Record<Mutation, number> = { reorder: 0, splice: 0, tweak: 0, rework: 0, refault: 0, reshape: 0 };
  private readonly partsOf = new WeakMap<Run, Parts>();
  /** Runs derived from a corpus entry (not drawn fresh). */
  private readonly derivedRuns = new WeakSet<Run>();
  private readonly rng: Rng;
  private readonly share: number;
  private readonly candidates: number;
  /** Configuration feature (its number) and pair (a · 2^16 + b) → runs of this job that had it. */
  readonly configSeen = new Map<number, number>();
  private readonly configIds = new Map<string, number>();
  private readonly arbs: {
    readonly w: fc.Arbitrary<Workload>;
    readonly o: fc.Arbitrary<Orders>;
    readonly f: fc.Arbitrary<FaultSchedule> | undefined;
    readonly r: fc.Arbitrary<RareCombination | null>;
  };

  /** The rare combinations steered towards (in variants that share). */
  private readonly combinations: readonly RareCombination[];
  /** Runs drawn so far (the opening sweep shapes every other one of the first), and the sweep's shapes. */
  private drawn = 0;
  private readonly sweep: readonly RareCombination[];
  private readonly rareOneIn: number;

  constructor(variant: Variant, bounds: WorkloadBounds, strategy: 'steer' | 'mixed', faults: number | undefined, seed: number) {
    this.rareOneIn = STEERING[strategy].rareOneIn;
    this.sweep = QUICK_SWEEP.filter((c) => (sharesAtAll(variant) || ANY_VARIANT.includes(c)) && (faults !== undefined || !FAULT_WORLD.includes(c)));
    this.combinations = this.rareOneIn > 0 && sharesAtAll(variant) ? [...RARE_COMBINATIONS, ...STEERED_COMBINATIONS] : [];
    this.arbs = {
      w: workloadArb(variant, bounds),
      // The fresh runs' orders: mixed's (uniform choices two to one against PCT).
      o: ordersArb(bounds.maxReplicas, bounds.maxWorkersPerProcess * bounds.maxProcesses, 'mixed'),
      f: faults === undefined ? undefined : faultScheduleArb(faults, bounds.maxReplicas),
      r: rareArb(variant),
    };
    this.rng = mulberry32(hashInts(seed, 0x57ee7));
    this.share = STEERING[strategy].share;
    this.candidates = STEERING[strategy].candidates;
    this.arb = new SteerArbitrary(this);
  }

  /** A run's parts drawn fresh, in fast-check's order (workload, orders, faults, rare combination). */
  fresh(mrng: fc.Random, bias: number | undefined): Parts {
    const w = this.arbs.w.generate(mrng, bias);
    const o = this.arbs.o.generate(mrng, bias);
    const f = this.arbs.f?.generate(mrng, bias);
    const r = this.arbs.r.generate(mrng, bias);
    return { w, o, f, r };
  }

  draw(mrng: fc.Random, bias: number | undefined): fc.Value<Run> {
    const swept = this.swept(this.drawn++);
    if (swept !== undefined) return this.valueOf({ ...this.fresh(mrng, bias), r: new fc.Value(swept, undefined) });
    // Decided by the steering's own generator, so that a fresh run draws from fast-check's random
    // exactly what the base strategy draws.
    if (this.corpus.length > 0 && this.rng.below(100) < this.share) {
      const v = this.valueOf(this.rare(this.mutant(mrng, bias)));
      this.derivedRuns.add(v.value);
      return v;
    }
    let best = this.fresh(mrng, bias);
    if (this.candidates > 1) {
      let bestScore = this.novelty(this.valueOf(best).value);
      for (let k = 1; k < this.candidates; k++) {
        const parts = this.fresh(mrng, bias);
        const score = this.novelty(this.valueOf(parts).value);
        if (score > bestScore) [best, bestScore] = [parts, score];
      }
    }
    return this.valueOf(this.rare(best));
  }

  /** The shape of the opening sweep for the run drawn `k`-th (from 0), if it is one of its shaped runs. */
  swept(k: number): RareCombination | undefined {
    if (this.sweep.length === 0 || k % 2 === 0 || k >= SWEEP_RUNS) return undefined;
    return this.sweep[((k - 1) / 2) % this.sweep.length];
  }

  /** In one run in `rareOneIn`, the rare combination (rare.ts) whose path the runs so far reached
   * least, shaped onto the run. */
  rare(parts: Parts): Parts {
    if (this.combinations.length === 0 || this.rng.below(this.rareOneIn) !== 0) return parts;
    const reached = (c: RareCombination): number => this.seen.get(`reach:${RARE_PATH[c]}`) ?? 0;
    const least = Math.min(...this.combinations.map(reached));
    const ties = this.combinations.filter((c) => reached(c) === least);
    return { ...parts, r: new fc.Value(ties[this.rng.below(ties.length)] as RareCombination, undefined) };
  }

  /** How new a drawn run's configuration is: Σ 1 / (1 + runs that had it) over its features and pairs. */
  novelty(run: Run): number {
    let score = 0;
    for (const f of this.configKeys(run)) score += 1 / (1 + (this.configSeen.get(f) ?? 0));
    return score;
  }

  valueOf(parts: Parts): fc.Value<Run> {
    const faults = parts.f?.value;
    const run = shapedFor(parts.r.value, parts.w.value, faults === undefined ? parts.o.value : { ...parts.o.value, faults });
    this.partsOf.set(run, parts);
    return new fc.Value(run, parts);
  }

  /** Whether this run was derived from a corpus entry. */
  derived(run: Run): boolean {
    return this.derivedRuns.has(run);
  }

  /** A run's configuration features (steer-features.ts) and every pair of them, as numbers. */
  configKeys(run: Run): number[] {
    const ids = configFeaturesOf(run.workload, run.schedule).map((f) => {
      let id = this.configIds.get(f);
      if (id === undefined) this.configIds.set(f, (id = this.configIds.size + 1));
      return id;
    });
    const keys = [...ids];
    for (let i = 0; i < ids.length; i++) for (let j = 0; j < ids.length; j++) if ((ids[i] as number) < (ids[j] as number)) keys.push((ids[i] as number) * 65536 + (ids[j] as number));
    return keys;
  }

  /** The features of a run of the budget: a run that found one joins the corpus. */
  observe(run: Run, report: RunReport): void {
    this.observed += 1;
    for (const f of this.configKeys(run)) this.configSeen.set(f, (this.configSeen.get(f) ?? 0) + 1);
    const found: string[] = [];
    for (const f of featuresOf(report)) {
      const n = this.seen.get(f) ?? 0;
      if (n === 0) found.push(f);
      this.seen.set(f, n + 1);
    }
    const parts = this.partsOf.get(run);
    if (found.length === 0 || parts === undefined) return;
    this.corpus.push({ parts, found, steps: report.schedulerLog === '' ? 0 : report.schedulerLog.split('\n').length, picks: 0 });
  }

  /** An entry by energy: the rarity of the rarest feature it found (a protocol path, or a pair of them,
   * weighs four times an event-level feature), halved with every fourth pick. */
  pick(): Entry {
    let total = 0;
    const energy = this.corpus.map((e) => {
      let rarest = 0;
      for (const f of e.found) rarest = Math.max(rarest, weightOf(f) / (this.seen.get(f) ?? 1));
      const x = rarest / 2 ** (e.picks / 4);
      total += x;
      return x;
    });
    let at = this.rng.next() * total;
    for (let i = 0; i < energy.length; i++) {
      at -= energy[i] as number;
      if (at < 0) return this.corpus[i] as Entry;
    }
    return this.corpus[this.corpus.length - 1] as Entry;
  }

  mutant(mrng: fc.Random, bias: number | undefined): Parts {
    const entry = this.pick();
    entry.picks += 1;
    const p = entry.parts;
    const usable = MUTATIONS.filter((m) => m !== 'refault' || this.arbs.f !== undefined);
    const total = usable.reduce((n, m) => n + WEIGHTS[m], 0);
    let at = this.rng.below(total);
    const m = usable.find((x) => (at -= WEIGHTS[x]) < 0) ?? 'reorder';
    this.mutated[m] += 1;
    switch (m) {
      case 'reorder':
        return { ...p, o: this.arbs.o.generate(mrng, bias) };
      case 'rework':
        return { ...p, w: this.arbs.w.generate(mrng, bias) };
      case 'refault':
        return { ...p, f: this.arbs.f?.generate(mrng, bias) };
      case 'reshape':
        return { ...p, r: this.arbs.r.generate(mrng, bias) };
      case 'splice': {
        const o = p.o.value;
        const other = this.arbs.o.generate(mrng, bias).value;
        if (o.pct !== undefined) {
          const pct = other.pct ?? { priorities: o.pct.priorities, changes: [] };
          return { ...p, o: new fc.Value({ ...o, pct: { priorities: o.pct.priorities, changes: pct.changes } }, undefined) };
        }
        const cut = this.rng.below(Math.min(o.choices.length, Math.max(1, entry.steps)) + 1);
        return { ...p, o: new fc.Value({ ...o, choices: [...o.choices.slice(0, cut), ...other.choices.slice(cut)] }, undefined) };
      }
      case 'tweak': {
        const o = p.o.value;
        if (o.pct !== undefined) {
          const priorities = [...o.pct.priorities];
          if (priorities.length > 0) priorities[this.rng.below(priorities.length)] = this.rng.below(1000);
          return { ...p, o: new fc.Value({ ...o, pct: { ...o.pct, priorities } }, undefined) };
        }
        const steps = Math.max(1, entry.steps);
        const choices = [...o.choices];
        for (let k = 1 + this.rng.below(3); k > 0; k--) {
          const at = this.rng.below(steps);
          while (choices.length <= at) choices.push(0);
          choices[at] = this.rng.below(64);
        }
        return { ...p, o: new fc.Value({ ...o, choices }, undefined) };
      }
    }
  }

  /** Shrinks a run part by part (as fast-check's tuple does), each with its context, or without one
   * where the part's arbitrary can. */
  shrink(parts: Parts): fc.Stream<fc.Value<Run>> {
    const one = <T>(arb: fc.Arbitrary<T>, v: fc.Value<T>): fc.Stream<fc.Value<T>> =>
      v.context !== undefined || arb.canShrinkWithoutContext(v.value) ? arb.shrink(v.value, v.context) : fc.Stream.nil();
    const { w, o, f, r } = this.arbs;
    return one(w, parts.w)
      .map((x) => this.valueOf({ ...parts, w: x }))
      .join(one(o, parts.o).map((x) => this.valueOf({ ...parts, o: x })))
      .join(f === undefined || parts.f === undefined ? fc.Stream.nil<fc.Value<Run>>() : one(f, parts.f).map((x) => this.valueOf({ ...parts, f: x })))
      .join(one(r, parts.r).map((x) => this.valueOf({ ...parts, r: x })));
  }
}

/** Reach counters and their pairs are what the check counts; event-level features only tell runs apart. */
function weightOf(feature: string): number {
  return feature.startsWith('reach:') || feature.startsWith('pair:') ? 1 : 0.25;
}

class SteerArbitrary extends fc.Arbitrary<Run> {
  constructor(private readonly steering: Steering) {
    super();
  }

  generate(mrng: fc.Random, biasFactor: number | undefined): fc.Value<Run> {
    return this.steering.draw(mrng, biasFactor);
  }

  canShrinkWithoutContext(value: unknown): value is Run {
    return false;
  }

  shrink(_value: Run, context: unknown): fc.Stream<fc.Value<Run>> {
    return context === undefined ? fc.Stream.nil() : this.steering.shrink(context as Parts);
  }
}
