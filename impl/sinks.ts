/**
 * Several MV sinks in one run (RunConfig.sinks; vocab/PROTOCOL.md "Several MV sinks"): each sink has its
 * own shard, desired collection, operators and writer incarnations; every sink of a replica shares that
 * replica's process-global registries (SharedBatches).
 *
 * Invariants:
 * - sink 0 is the run's one sink as before: the run's `shardId`, its blobs unprefixed, its events carry
 *   no `sink` field — a one-sink run is byte-for-byte what it was;
 * - sink s > 0 writes shard `${shardId}/s${s}`; with several sinks every sink's blobs live under
 *   `s${s}/` in the run's blob store, so neither the audit nor the leaked-blob cleanup of one sink ever
 *   sees another sink's blobs (a one-sink run's keys are unprefixed, as before).
 */
import type { Observer, TraceEvent } from '../vocab/index.ts';
import { SbkitError, show } from './errors.ts';
import type { Blob } from './persist/blob.ts';
import { Trace } from './runtime/trace.ts';
import type { Update } from './update.ts';

export const MAX_SINKS = 4;

/** The MV sinks of a run and their desired collections (index = sink). */
export interface ResolvedSinks {
  readonly sinks: number;
  readonly updatesBySink: readonly (readonly Update[])[];
}

/**
 * `sinks` (1 … MAX_SINKS, default 1) and `sinkUpdates` (the desired collections of sinks 1 … sinks − 1;
 * default: each sink desires the run's `updates`). Every malformed value is `invalid-config` naming it.
 */
export function resolveSinks(config: { sinks?: number; sinkUpdates?: readonly (readonly Update[])[]; updates: readonly Update[] }): ResolvedSinks {
  const sinks = config.sinks ?? 1;
  if (typeof sinks !== 'number' || !Number.isInteger(sinks) || sinks < 1 || sinks > MAX_SINKS) {
    throw new SbkitError('invalid-config', `sinks must be an integer in [1, ${MAX_SINKS}], got ${show(sinks)}`);
  }
  const more = config.sinkUpdates;
  if (more === undefined) return { sinks, updatesBySink: Array.from({ length: sinks }, () => config.updates) };
  if (!Array.isArray(more) || more.length !== sinks - 1) {
    throw new SbkitError('invalid-config', `sinkUpdates must list the updates of sinks 1 … ${sinks - 1} (${sinks - 1} lists), got ${show(more)}`);
  }
  return { sinks, updatesBySink: [config.updates, ...more] };
}

/** The consensus key of sink `sink`'s shard. */
export function shardIdOf(shardId: string, sink: number): string {
  return sink === 0 ? shardId : `${shardId}/s${sink}`;
}

/** Sink `sink`'s view of the run's blob store (one sink: the store itself). */
export function blobOf(blob: Blob, sink: number, sinks: number): Blob {
  return sinks === 1 ? blob : new PrefixedBlob(blob, `s${sink}/`);
}

/** A sink's trace: its events carry `sink` when it is > 0. */
export function traceOf(observer: Observer | undefined, sink: number): Trace {
  if (sink === 0 || observer === undefined) return new Trace(observer);
  return new Trace({ event: (e: TraceEvent) => observer.event({ ...e, sink }) });
}

/** A key space inside another blob store: every key gets `prefix`; `list` sees only those keys. */
export class PrefixedBlob implements Blob {
  constructor(
    private readonly inner: Blob,
    private readonly prefix: string,
  ) {}

  get(key: string): Promise<Uint8Array | undefined> {
    return this.inner.get(this.prefix + key);
  }

  set(key: string, value: Uint8Array): Promise<void> {
    return this.inner.set(this.prefix + key, value);
  }

  setIfAbsent(key: string, value: Uint8Array): Promise<boolean> {
    return this.inner.setIfAbsent(this.prefix + key, value);
  }

  delete(key: string): Promise<boolean> {
    return this.inner.delete(this.prefix + key);
  }

  async list(): Promise<string[]> {
    return (await this.inner.list()).filter((k) => k.startsWith(this.prefix)).map((k) => k.slice(this.prefix.length));
  }
}
