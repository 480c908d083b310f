/**
 * Who a step runs for, and the one helper that passes a scheduling point there.
 */
import type { PointSite, Scheduler } from '../seams.ts';

/** The replica, and where known the process and worker, on whose behalf a step runs. */
export interface Where {
  readonly replica: number;
  readonly process?: number;
  readonly worker?: number;
}

/** Passes the scheduling point `label` at `where`. */
export function pointAt(scheduler: Scheduler, label: string, where: Where, bytes?: number): Promise<void> {
  const site: PointSite = bytes === undefined ? { label, ...where } : { label, ...where, bytes };
  return scheduler.point(site);
}
