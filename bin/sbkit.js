#!/usr/bin/env node
// The `sbkit` command: runs explore/cli.ts through tsx's loader, so no build step is needed after `npm ci`.
import { register } from 'tsx/esm/api';

// Node ends a process whose event loop ran empty while `main` was still awaited with code 13 and no
// word (its 'exit' event still sees 0): something awaited a promise that can never settle (a deadlock
// outside any scheduled run). Say so. (Nothing here calls process.exit: `main` returns the exit code.)
process.on('exit', (code) => {
  // (Node 20 passes 0 here for an unsettled top-level await and exits 13 after; later Nodes may pass 13.)
  if (!finished && (code === 0 || code === 13)) {
    process.stderr.write('sbkit: stalled: a step awaited something that can never happen (a deadlock outside the scheduler\'s runs); nothing was judged. Please report it with the command line.\n');
  }
});
let finished = false;

register();
const { main } = await import('../explore/cli.ts');
process.exitCode = await main(process.argv.slice(2));
finished = true;
