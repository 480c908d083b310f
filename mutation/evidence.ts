/**
 * Survivors of `npm run mutation` judged equivalent, each with an executable argument: a surviving
 * mutant counts as equivalent only with an entry here, and docs/quality/mutants.md (scripts/mutants-doc.ts)
 * shows each survivor of the latest report with its entry, or as not evidenced.
 *
 * An entry names the mutant by what it changes — its file, Stryker's mutator, the source text it
 * replaces and its replacement — not by line, so that it stays attached when code moves around it. Its
 * proof is one of:
 * - `test`: a test (file and title) that instruments the mutated point and shows, over the check's whole
 *   budget (the killer's plain check, fault world and gallery), that the changed branch is never taken or
 *   changes no output;
 * - `type`: a type-level impossibility, stated (the mutant type-checks, but no value that reaches the
 *   point can tell the two apart).
 * mutation/evidence.test.ts holds every entry admissible (evidence-check.ts): the replaced text still in
 * its file, a reason given, the proof's test file and title there.
 */
export interface Evidence {
  readonly file: string;
  readonly mutator: string;
  /** The source text the mutant replaces (whitespace is not significant). */
  readonly original: string;
  readonly replacement: string;
  /** Why no behaviour changes, in a sentence or two. */
  readonly why: string;
  readonly proof: { readonly kind: 'test'; readonly file: string; readonly test: string } | { readonly kind: 'type' };
}

/** The proof that a ByteWriter's initial capacity changes no byte it writes. */
const CAPACITY_IS_A_HINT = {
  kind: 'test',
  file: 'impl/test/codec.test.ts',
  test: 'the initial capacity is a hint: any value (negative, fractional, zero, huge) gives the same bytes',
} as const;

export const EVIDENCE: readonly Evidence[] = [
  {
    file: 'impl/persist/writer-registry.ts',
    mutator: 'ArithmeticOperator',
    original: '4 + events.length * 6',
    replacement: '4 - events.length * 6',
    why: "The writer registry's encoder sizes its ByteWriter with a capacity hint; the writer clamps the hint and grows as it writes, so the bytes of a registry version do not depend on it.",
    proof: CAPACITY_IS_A_HINT,
  },
  {
    file: 'impl/persist/writer-registry.ts',
    mutator: 'ArithmeticOperator',
    original: 'events.length * 6',
    replacement: 'events.length / 6',
    why: "The writer registry's encoder sizes its ByteWriter with a capacity hint; the writer clamps the hint and grows as it writes, so the bytes of a registry version do not depend on it.",
    proof: CAPACITY_IS_A_HINT,
  },
];
