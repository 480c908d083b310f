import { defineConfig } from 'vitest/config';
import { DEEP_TESTS, TIER, mockingTests, tierProjects } from './vitest.config.ts';

// `npm run test:deep`: only the `*.deep.test.ts` files, with the fast tier's settings and its two
// projects (vitest.config.ts says what the two tiers are). One file:
// `npx vitest run --config vitest.deep.config.ts model/packed/parallel`.
// No coverage gate here: the gate is `npm test`'s, and it must pass on the fast tier alone.
export default defineConfig({ test: { ...TIER, coverage: { enabled: false }, projects: tierProjects(DEEP_TESTS, [], mockingTests(true)) } });
