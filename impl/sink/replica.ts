/**
 * Starts one replica's sink: the input and mint tasks, and per worker a write and an append task.
 * (Builder tasks and sweeps are started by each process's SharedBatches as needed.)
 */
import { runAppender } from './append.ts';
import { runInput, runMint } from './mint.ts';
import type { ReplicaState } from './replica-state.ts';
import { runWriter } from './write.ts';

export function startReplica(r: ReplicaState): void {
  const { spawn } = r.deps;
  const name = `r${r.settings.replica}`;
  spawn(`${name} input`, () => runInput(r));
  spawn(`${name} mint`, () => runMint(r));
  for (let w = 0; w < r.workers; w++) {
    spawn(`${name} write w${w}`, () => runWriter(r, w));
    spawn(`${name} append w${w}`, () => runAppender(r, w));
  }
}
