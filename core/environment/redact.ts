/**
 * Keeps environment values out of logs: every occurrence of a secret inside the strings of a JSON
 * value (trace spans, outputs, error messages) becomes `[REDACTED]` before it is logged or stored.
 */

export const REDACTED = '[REDACTED]';

/** Secrets shorter than this are left alone: redacting "a" or "ok" everywhere would hide everything. */
export const MIN_REDACTED_LENGTH = 4;

/**
 * A copy of `value` in which every string (object keys included) has each secret of at least
 * MIN_REDACTED_LENGTH characters replaced by `[REDACTED]`, also in the forms a secret commonly takes
 * when it is put into JSON text or a URL. Numbers, booleans and null are kept; `value` is not changed.
 */
export function redactSecrets(value: unknown, secrets: string[]): unknown {
  const needles = searchTerms(secrets);
  if (needles.length === 0) return value;
  const redactString = (text: string): string => {
    let result = text;
    for (const needle of needles) if (result.includes(needle)) result = result.split(needle).join(REDACTED);
    return result;
  };
  const seen = new WeakSet<object>();
  const walk = (item: unknown): unknown => {
    if (typeof item === 'string') return redactString(item);
    if (item === null || typeof item !== 'object') return item;
    if (seen.has(item)) return '[Circular]';
    seen.add(item);
    try {
      if (Array.isArray(item)) return item.map(walk);
      if (item instanceof Error) {
        return { name: item.name, message: redactString(item.message), ...(walk({ ...item }) as object) };
      }
      const json = (item as { toJSON?: () => unknown }).toJSON;
      if (typeof json === 'function') return walk(json.call(item));
      return Object.fromEntries(Object.entries(item).map(([key, inner]) => [redactString(key), walk(inner)]));
    } finally {
      seen.delete(item);
    }
  };
  return walk(value);
}

/** The secrets and their JSON-escaped and URL-encoded forms, longest first, without duplicates. */
function searchTerms(secrets: string[]): string[] {
  const terms = new Set<string>();
  for (const secret of secrets) {
    if (typeof secret !== 'string' || secret.length < MIN_REDACTED_LENGTH) continue;
    terms.add(secret);
    terms.add(JSON.stringify(secret).slice(1, -1));
    terms.add(encodeURIComponent(secret));
  }
  // Longest first, so a secret that contains another is replaced whole.
  return [...terms].filter((term) => term.length >= MIN_REDACTED_LENGTH).sort((a, b) => b.length - a.length);
}
