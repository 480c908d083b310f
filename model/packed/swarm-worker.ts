/**
 * One thread of a swarm (swarm-jobs.ts): it runs its share of the searches (swarm.ts) and answers with
 * what they found.
 */
import { parentPort } from 'node:worker_threads';
import { properties as ALL_PROPERTIES } from '../../spec/properties.ts';
import { runShare, type ShareRequest } from './swarm-jobs.ts';

parentPort?.on('message', (m: ShareRequest) => {
  const properties = m.properties.map((name) => {
    const p = ALL_PROPERTIES.find((q) => q.name === name);
    if (p === undefined) throw new Error(`swarm: no property named ${name} in spec/properties.ts`);
    return p;
  });
  parentPort?.postMessage(runShare(m, properties));
});
