/**
 * Pacing as configured: under `lockstep` (impl RunConfig.pacing, the default) a replica's input
 * advances its desired frontier only once its sink's lower caught up with it, one description per step.
 * The model allows any pacing (a frontier step is enabled while desired < K), so the trace alone holds
 * the implementation to it: a `frontier` event of a replica whose lower is still below its desired
 * frontier is one the configuration does not allow. (`free` pacing allows it; nothing to check.)
 */
import type { TraceEvent } from '../vocab/index.ts';

/** Undefined when every frontier step of `trace` kept lockstep pacing; else the first that did not. */
export function lockstepBroken(trace: readonly TraceEvent[], asOf: number): string | undefined {
  const desired = new Map<string, number>();
  const lower = new Map<string, number>();
  for (const [i, e] of trace.entries()) {
    const k = `${e.sink ?? 0}/${e.replica}`;
    switch (e.kind) {
      case 'frontier': {
        const d = desired.get(k) ?? asOf;
        const l = lower.get(k) ?? asOf;
        if (l < d) return `event #${i}: replica ${e.replica}${e.sink === undefined ? '' : ` (sink ${e.sink})`} advanced its frontier to ${e.upper} while its lower ${l} was below its desired frontier ${d}: not lockstep pacing`;
        desired.set(k, e.upper);
        break;
      }
      case 'mint':
        lower.set(k, e.desc.lower);
        break;
      case 'append':
        if (e.result.ok) lower.set(k, e.upper);
        else lower.set(k, e.result.current);
        break;
      case 'restart':
        lower.set(k, e.lower);
        desired.set(k, e.lower);
        break;
      default:
        break;
    }
  }
  return undefined;
}
