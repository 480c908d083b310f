// Entry of a parallel packed search thread (parallel.ts): the TypeScript loader first (as bin/sbkit.js
// does), then the thread itself (parallel-worker.ts).
import { register } from 'tsx/esm/api';

register();
await import('./parallel-worker.ts');
