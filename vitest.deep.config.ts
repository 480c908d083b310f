import { defineConfig } from 'vitest/config';
import { DEEP_TESTS, NOT_TESTS, TIER } from './vitest.config.ts';

// `npm run test:deep`: only the `*.deep.test.ts` files, each in a process of its own, with the fast
// tier's settings (vitest.config.ts says what the two tiers are). One file:
// `npx vitest run --config vitest.deep.config.ts model/packed/parallel`.
// No coverage gate here: the gate is `npm test`'s, and it must pass on the fast tier alone.
export default defineConfig({ test: { ...TIER, include: [DEEP_TESTS], exclude: NOT_TESTS, coverage: { enabled: false } } });
