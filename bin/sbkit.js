#!/usr/bin/env node
// The `sbkit` command: runs explore/cli.ts through tsx's loader, so no build step is needed after `npm ci`.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../explore/cli.ts');
process.exitCode = await main(process.argv.slice(2));
