/**
 * Swarm testing (Groce, Zhang, Eide, Chen, Regehr: "Swarm Testing", ISSTA 2012): every run first draws
 * which features and knob regimes it enables, then draws its workload within them. One configuration
 * with every feature on at its usual rate makes each rare combination rare in every run: a barrier flag
 * flipping (one run in five), in a workload of one worker with nothing to write, under free pacing. A
 * swarm makes each feature on in about half the runs and off in the others, so that every combination
 * of a few features has a fair share of runs — and a feature that *suppresses* a bug (a second replica
 * whose appends win the race, a tiny load that keeps a worker from being empty) is off in half of them.
 *
 * The features are general (shape, load classes, flag flips, tunables), never a gallery bug's trigger.
 * A swarm is a value of the workload's record (workload.ts), so it is drawn from the seed and shrinks
 * with the rest: every bit shrinks to `false`, which means "no restriction, the usual distribution".
 * The resulting workload is an ordinary Workload: replay tokens carry the workload, not the swarm.
 *
 * Small shapes matter twice: they are where most bugs are found and shrink to (the gallery's shrunk
 * counterexamples are one replica, one process, one or two workers), and they run several times faster,
 * so a check spends its time on more, cheaper runs.
 */
import fc from 'fast-check';
import { CUT_EDGE, INLINE_EDGE, LOAD_CLASSES, type LoadClass } from './load-classes.ts';

export interface Swarm {
  /** One replica only. */
  readonly oneReplica: boolean;
  /** One process only. */
  readonly oneProcess: boolean;
  /** At most two workers per process. */
  readonly fewWorkers: boolean;
  /** At most three intervals. */
  readonly fewIntervals: boolean;
  /** The first worker of every process has no data in any interval (a no-data worker through every
   * description, also when free pacing merges intervals). */
  readonly idleWorker: boolean;
  /** The barrier flag is drawn per desired frontier (it may flip) instead of the variant's own mode. */
  readonly flagFlips: boolean;
  /** The persist limits at their edges: inline_writes_single_max_bytes and blob_target_size one below,
   * at or one above the edge loads' sizes (by `singleEdge`, `targetEdge`), and the large and boundary
   * loads replaced by the edge loads (inline-edge, cut-edge), so that a part lands on a limit. */
  readonly persistEdges: boolean;
  readonly singleEdge: -1 | 0 | 1;
  readonly targetEdge: -1 | 0 | 1;
  /** Load classes this run leaves out (by LOAD_CLASSES index): a left-out class becomes `none` (an
   * empty worker), or `tiny` where `none` itself is left out. */
  readonly omitLoads: readonly boolean[];
}

/** The swarms (a function, not a constant: workload.ts and this module import each other). */
export function swarmArb(): fc.Arbitrary<Swarm> {
  return fc.record({
    oneReplica: fc.boolean(),
    oneProcess: fc.boolean(),
    fewWorkers: fc.boolean(),
    fewIntervals: fc.boolean(),
    idleWorker: fc.boolean(),
    flagFlips: fc.boolean(),
    persistEdges: fc.boolean(),
    singleEdge: fc.constantFrom<-1 | 0 | 1>(0, -1, 1),
    targetEdge: fc.constantFrom<-1 | 0 | 1>(0, -1, 1),
    // A class is left out in one run in three: a run keeps four or five of the seven.
    omitLoads: fc.array(fc.oneof({ weight: 2, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }), {
      minLength: LOAD_CLASSES.length,
      maxLength: LOAD_CLASSES.length,
    }),
  });
}

/** The shape bounds under a swarm. */
export function swarmShape(s: Swarm, shape: { replicas: number; processes: number; workersPerProcess: number; intervals: number }): typeof shape {
  return {
    replicas: s.oneReplica ? 1 : shape.replicas,
    processes: s.oneProcess ? 1 : shape.processes,
    workersPerProcess: s.fewWorkers ? Math.min(2, shape.workersPerProcess) : shape.workersPerProcess,
    intervals: s.fewIntervals ? Math.min(3, shape.intervals) : shape.intervals,
  };
}

/** The persist tunables under a swarm (the drawn ones, unless the limits are at their edges). */
export function swarmPersist(s: Swarm, drawn: { readonly inlineSingleMaxBytes: number; readonly blobTargetSize: number }): { inlineSingleMaxBytes: number; blobTargetSize: number } {
  if (!s.persistEdges) return { inlineSingleMaxBytes: drawn.inlineSingleMaxBytes, blobTargetSize: drawn.blobTargetSize };
  return { inlineSingleMaxBytes: INLINE_EDGE + s.singleEdge, blobTargetSize: CUT_EDGE + s.targetEdge };
}

/**
 * The barrier flag by desired frontier: the variant's own mode, or under `flagFlips` the drawn values,
 * made to flip within the frontiers the run reads (0 … intervals) when they happen not to.
 */
export function swarmFlags(s: Swarm, drawn: readonly boolean[], intervals: number, own: boolean): boolean[] {
  if (!s.flagFlips) return [own];
  const flags = [...drawn];
  const last = Math.min(intervals, flags.length - 1);
  if (last > 0 && flags.slice(0, last + 1).every((b) => b === flags[0])) flags[last] = !flags[last];
  return flags;
}

/** A load under a swarm: a left-out class becomes an empty worker (or a tiny one, when empty workers are
 * left out too); the idle worker's loads are empty; edge loads replace large and boundary ones when the
 * persist limits are at their edges. */
export function swarmLoad(s: Swarm, load: LoadClass, worker: number, workersPerProcess: number): LoadClass {
  if (s.idleWorker && worker % workersPerProcess === 0) return 'none';
  if (s.persistEdges && (load === 'large' || load === 'boundary')) load = load === 'large' ? 'inline-edge' : 'cut-edge';
  if (s.omitLoads[LOAD_CLASSES.indexOf(load)] !== true) return load;
  return s.omitLoads[LOAD_CLASSES.indexOf('none')] === true ? 'tiny' : 'none';
}
