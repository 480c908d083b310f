/**
 * Budgets the flags and help texts name, repeated here so that parsing flags loads nothing of
 * conformance/ (explore/cli.test.ts holds each equal to its source).
 */

/** conformance/check.ts `DEFAULT_RUNS`: runs per variant of `sbkit check`, `npm start` and the report. */
export const DEFAULT_CHECK_RUNS = 500;

/** conformance/faults.ts `DEFAULT_FAULT_RATE`: `--faults` alone, and the rate a fault-world bug switches on. */
export const DEFAULT_FAULT_RATE = 0.1;
