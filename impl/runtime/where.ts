/**
 * Who a step runs for, and the one helper that passes a scheduling point there.
 */
import type { PointLabel } from '../../vocab/index.ts';
import type { PointSite, Scheduler } from '../seams.ts';

/** The replica, and where known the process and worker, on whose behalf a step runs. */
export interface Where {
  readonly replica: number;
  readonly process?: number;
  readonly worker?: number;
}

/** Passes the scheduling point `label` at `where`. */
export function pointAt(scheduler: Scheduler, label: PointLabel, where: Where, bytes?: number): Promise<void> {
  // Fields spelled out: an object spread costs ~50 ns in V8 and this runs at every scheduling point.
  const site: { -readonly [K in keyof PointSite]: PointSite[K] } = { label, replica: where.replica };
  if (where.worker !== undefined) site.worker = where.worker;
  if (where.process !== undefined) site.process = where.process;
  if (bytes !== undefined) site.bytes = bytes;
  return scheduler.point(site);
}

/** Passes the scheduling point `label` at `where` as a timer: the step waits `delay` milliseconds
 * (PointSite `delay`: a scheduler that keeps time honours it; nothing here waits on real time). */
export function timerAt(scheduler: Scheduler, label: PointLabel, where: Where, delay: number): Promise<void> {
  const site: { -readonly [K in keyof PointSite]: PointSite[K] } = { label, replica: where.replica, delay };
  if (where.worker !== undefined) site.worker = where.worker;
  if (where.process !== undefined) site.process = where.process;
  return scheduler.point(site);
}
