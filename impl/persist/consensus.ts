/**
 * Consensus (Postgres/CockroachDB in production): per key, a sequence of versions; each successful
 * command is one compare-and-set on the sequence number. This kit stores one *state diff* per version
 * (persist also writes rollups; not modelled) and rebuilds state by scanning them.
 *
 * Invariants:
 * - versions of a key have strictly increasing sequence numbers, the first being 0;
 * - compareAndSet(expected) succeeds iff the head's seqNo is `expected` (null: no version yet), and
 *   the new version's seqNo is expected + 1. A lost race is a result, not an exception.
 */
import { SbkitError } from '../errors.ts';

export type SeqNo = number;

export interface VersionedData {
  readonly seqNo: SeqNo;
  readonly data: Uint8Array;
}

export type CasResult = { readonly ok: true } | { readonly ok: false; readonly head: SeqNo | null };

export interface Consensus {
  head(key: string): Promise<VersionedData | undefined>;
  compareAndSet(key: string, expected: SeqNo | null, next: VersionedData): Promise<CasResult>;
  /** Versions with seqNo ≥ from, ascending. */
  scan(key: string, from: SeqNo): Promise<VersionedData[]>;
}

export interface ConsensusStats {
  heads: number;
  cas: number;
  casFailures: number;
  scans: number;
  bytesWritten: number;
}

/** In memory; counts every operation and byte. Copies bytes in and out, as a remote store would. */
export class MemConsensus implements Consensus {
  readonly stats: ConsensusStats = { heads: 0, cas: 0, casFailures: 0, scans: 0, bytesWritten: 0 };
  readonly #versions = new Map<string, VersionedData[]>();

  async head(key: string): Promise<VersionedData | undefined> {
    this.stats.heads += 1;
    const head = this.#versions.get(key)?.at(-1);
    return head === undefined ? undefined : copy(head);
  }

  async compareAndSet(key: string, expected: SeqNo | null, next: VersionedData): Promise<CasResult> {
    this.stats.cas += 1;
    const want = expected === null ? 0 : expected + 1;
    if (next.seqNo !== want) {
      throw new SbkitError(
        'consensus-invariant',
        `compareAndSet(${key}): new seqNo must be ${want} after ${String(expected)}, got ${next.seqNo}`,
      );
    }
    const versions = this.#versions.get(key) ?? [];
    const head = versions.at(-1)?.seqNo ?? null;
    if (head !== expected) {
      this.stats.casFailures += 1;
      return { ok: false, head };
    }
    versions.push({ seqNo: next.seqNo, data: next.data.slice() });
    this.#versions.set(key, versions);
    this.stats.bytesWritten += next.data.length;
    return { ok: true };
  }

  async scan(key: string, from: SeqNo): Promise<VersionedData[]> {
    this.stats.scans += 1;
    return (this.#versions.get(key) ?? []).filter((v) => v.seqNo >= from).map(copy);
  }
}

const copy = (v: VersionedData): VersionedData => ({ seqNo: v.seqNo, data: v.data.slice() });
