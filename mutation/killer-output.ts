/**
 * The killer's three commands (mutation/check.stryker.mjs: the plain check, the fault world and the
 * gallery; seed 1, one job, unshrunk) run one after another in this process, each with its exit code and
 * what it printed. Evidence tests run it in a copy of the kit with a mutant planted
 * (`npx tsx mutation/killer-output.ts` prints the outputs as JSON) and compare with the kit's own.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { main } from '../explore/cli.ts';
import { captureIo } from '../explore/io.ts';

export const KILLER_COMMANDS: readonly (readonly string[])[] = [
  ['check', '--jobs', '1', '--seed', '1', '--no-shrink'],
  ['check', '--jobs', '1', '--seed', '1', '--no-shrink', '--faults'],
  ['bugs', '--check', '--seed', '1', '--no-shrink'],
];

export interface KillerOutput {
  readonly command: string;
  readonly code: number;
  readonly output: string;
}

export async function killerOutputs(): Promise<KillerOutput[]> {
  const outputs: KillerOutput[] = [];
  for (const argv of KILLER_COMMANDS) {
    const io = captureIo();
    const code = await main(argv, io);
    outputs.push({ command: `sbkit ${argv.join(' ')}`, code, output: io.stdout() + io.stderr() });
  }
  return outputs;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.stdout.write(`${JSON.stringify(await killerOutputs())}\n`);
}
