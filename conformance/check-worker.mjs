// Entry of a `sbkit check --jobs N` worker thread: the TypeScript loader first (as bin/sbkit.js does),
// then the job itself (check-worker.ts).
import { register } from 'tsx/esm/api';

register();
await import('./check-worker.ts');
