/** The step function's dispatch: an event to its actor's prediction. */
import type { TraceEvent } from '../../vocab/index.ts';
import type { ModelConfig } from '../config.ts';
import type { SystemState } from '../state.ts';
import { type Prediction, fail } from './prediction.ts';
import { frontier, mintEvent, pollEvent, appendEvent, backpressureEvent, bumpEvent, deleteEvent } from './replica-events.ts';
import { stage, open, push, finishBegin, finishEnd, skip, timeoutEvent, supersededEvent, ownBatch, hand } from './worker-events.ts';
import { sweepEvent, sweepHold, sweepRelease } from './registry-events.ts';
import { faultEvent, abortEvent, restartEvent, cleanupEvent } from './fault-events.ts';

/** The model's version of `event` and the next state, or why the event's actor cannot take it now. */
export function predict(cfg: ModelConfig, s: SystemState, event: TraceEvent): Prediction {
  // A switch rather than ts-pattern's `match`: this runs for every replayed event, and matching object
  // patterns one after the other cost ~6% of a conformance run. `never` keeps it exhaustive.
  switch (event.kind) {
    case 'frontier':
      return frontier(cfg, s, event);
    case 'mint':
      return mintEvent(cfg, s, event);
    case 'poll':
      return pollEvent(cfg, s, event);
    case 'stage':
      return stage(cfg, s, event);
    case 'open':
      return open(cfg, s, event);
    case 'push':
      return push(cfg, s, event);
    case 'finish-begin':
      return finishBegin(cfg, s, event);
    case 'finish-end':
      return finishEnd(cfg, s, event);
    case 'skip':
      return skip(cfg, s, event);
    case 'timeout':
      return timeoutEvent(cfg, s, event);
    case 'superseded':
      return supersededEvent(cfg, s, event);
    case 'own-batch':
      return ownBatch(cfg, s, event);
    case 'hand':
      return hand(cfg, s, event);
    case 'append':
      return appendEvent(cfg, s, event);
    case 'delete':
      return deleteEvent(cfg, s, event);
    case 'backpressure':
      return backpressureEvent(cfg, s, event);
    case 'bump':
      return bumpEvent(cfg, s, event);
    case 'sweep':
      return sweepEvent(cfg, s, event);
    case 'sweep-hold':
      return sweepHold(cfg, s, event);
    case 'sweep-release':
      return sweepRelease(cfg, s, event);
    case 'drop':
      return fail('drop (a handle dropped without finish) is the drop-without-finish bug; every model handle finishes');
    case 'fault':
      return faultEvent(cfg, s, event);
    case 'abort':
      return abortEvent(cfg, s, event);
    case 'restart':
      return restartEvent(cfg, s, event);
    case 'cleanup':
      return cleanupEvent(cfg, s, event);
    default:
      return unknownEvent(event);
  }
}

function unknownEvent(event: never): Prediction {
  return fail(`unknown event kind ${JSON.stringify((event as { kind?: unknown }).kind)}`);
}
