/**
 * What a process remembers of a lookup for a bounded time (core/identity/lookup-cache.ts,
 * core/workflows/record-cache.ts): an entry is used until `ttlInMs` after it was read, then read
 * again. Lookups that find nothing are not kept; 0 keeps nothing at all.
 */
import { BoundedMap } from './bounded-map';

export interface ExpiryOptions {
  /** How long an entry is used before it is read again; 0 keeps nothing. */
  ttlInMs: number;
  nowInMs: () => number;
  maxEntries?: number;
}

export class ExpiringMap<V> {
  private readonly entries: BoundedMap<string, { value: V; expiresAtInMs: number }>;

  constructor(private readonly options: ExpiryOptions) {
    this.entries = new BoundedMap(options.maxEntries ?? 10_000);
  }

  async get(key: string, load: () => Promise<V | undefined>): Promise<V | undefined> {
    const nowInMs = this.options.nowInMs();
    const hit = this.entries.get(key);
    if (hit && hit.expiresAtInMs > nowInMs) return hit.value;
    const value = await load();
    if (value === undefined || this.options.ttlInMs <= 0) this.entries.delete(key);
    else this.entries.set(key, { value, expiresAtInMs: nowInMs + this.options.ttlInMs });
    return value;
  }

  delete(key: string): void {
    this.entries.delete(key);
  }
}

/**
 * `write`, with `forget(key)` before and after it: a read that began before the write and ends
 * after it may have kept the old value again, and the second forget drops that.
 */
export async function forgettingAround<T>(
  forget: (key: string) => void,
  key: string,
  write: () => Promise<T>,
): Promise<T> {
  forget(key);
  const result = await write();
  forget(key);
  return result;
}
