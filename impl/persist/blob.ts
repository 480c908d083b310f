/**
 * Blob storage (S3 in production): opaque bytes by key. Only parts live here; state lives in consensus.
 */
export interface Blob {
  get(key: string): Promise<Uint8Array | undefined>;
  set(key: string, value: Uint8Array): Promise<void>;
  /** Stores `value` only if `key` does not exist, atomically (S3: `PUT` with `If-None-Match: *`).
   * Returns false, storing nothing, when the key exists. Writers use this: they never overwrite. */
  setIfAbsent(key: string, value: Uint8Array): Promise<boolean>;
  /** Returns whether the key existed. Deleting a missing key is not an error (idempotent). */
  delete(key: string): Promise<boolean>;
  /** Every key, ascending. */
  list(): Promise<string[]>;
}

export interface BlobStats {
  gets: number;
  sets: number;
  setBytes: number;
  deletes: number;
  lists: number;
}

/** In memory; counts every operation and byte. Copies bytes in and out, as a remote store would. */
export class MemBlob implements Blob {
  readonly stats: BlobStats = { gets: 0, sets: 0, setBytes: 0, deletes: 0, lists: 0 };
  readonly #objects = new Map<string, Uint8Array>();

  get size(): number {
    return this.#objects.size;
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    this.stats.gets += 1;
    return this.#objects.get(key)?.slice();
  }

  async set(key: string, value: Uint8Array): Promise<void> {
    this.stats.sets += 1;
    this.stats.setBytes += value.length;
    this.#objects.set(key, value.slice());
  }

  /** Check and store in one step (no await between them); the store itself goes through `set`, so a
   * subclass that injects failures into `set` sees conditional PUTs too. */
  async setIfAbsent(key: string, value: Uint8Array): Promise<boolean> {
    if (this.#objects.has(key)) return false;
    await this.set(key, value);
    return true;
  }

  async delete(key: string): Promise<boolean> {
    this.stats.deletes += 1;
    return this.#objects.delete(key);
  }

  async list(): Promise<string[]> {
    this.stats.lists += 1;
    return [...this.#objects.keys()].sort();
  }
}
