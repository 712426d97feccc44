import { createHash } from 'node:crypto';

/** JSON with object keys sorted, so equal values always give equal text. */
export function stableStringify(value: unknown): string {
  return JSON.stringify(value, (_key, inner) => {
    if (inner && typeof inner === 'object' && !Array.isArray(inner)) {
      return Object.fromEntries(
        Object.keys(inner)
          .sort()
          .map((key) => [key, inner[key]]),
      );
    }
    return inner;
  });
}

export function contentHash(value: unknown): string {
  return createHash('sha256').update(stableStringify(value)).digest('hex');
}
