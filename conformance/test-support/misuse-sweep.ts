/**
 * `node --import tsx conformance/test-support/misuse-sweep.ts SCENARIO SEEDS`: runs a misuse scenario's
 * programs for seeds 1 … SEEDS and prints each wrong outcome (`seed N: …`), then `wrong in K of SEEDS`.
 * What a test runs in a copy of the kit with a planted fault (plant.ts).
 */
import { runScenario, SCENARIOS, type Scenario } from '../misuse/index.ts';

const [scenario, seeds] = process.argv.slice(2);
if (!SCENARIOS.includes(scenario as Scenario) || !Number.isInteger(Number(seeds))) {
  process.stderr.write(`usage: misuse-sweep.ts ${SCENARIOS.join('|')} SEEDS\n`);
  process.exit(2);
}
let wrong = 0;
for (let seed = 1; seed <= Number(seeds); seed++) {
  const v = await runScenario(scenario as Scenario, seed);
  if (v.wrong.length === 0) continue;
  wrong += 1;
  process.stdout.write(`seed ${seed}: ${v.wrong.join('; ')}\n`);
}
process.stdout.write(`wrong in ${wrong} of ${seeds}\n`);
