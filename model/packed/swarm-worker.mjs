// Entry of a swarm search thread (swarm-jobs.ts): the TypeScript loader first (as bin/sbkit.js does),
// then the thread itself (swarm-worker.ts).
import { register } from 'tsx/esm/api';

register();
await import('./swarm-worker.ts');
