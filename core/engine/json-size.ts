/**
 * The size of a value as JSON text, measured without building the text: caps on block outputs and
 * trace-span values must not themselves copy a 50 MB value to learn that it is too big.
 *
 * Strings count their UTF-16 length plus quotes (exact for ASCII, an underestimate for text that
 * needs escapes or multi-byte characters); numbers count their decimal form. The walk stops as soon
 * as the size passes `stopAboveBytes`, so measuring a huge value costs no more than a small one, and
 * it uses an explicit stack, so deeply nested values cannot overflow the call stack.
 */
export function jsonSizeInBytes(value: unknown, stopAboveBytes = Number.POSITIVE_INFINITY): number {
  // Most block outputs are a string or a number: no stack for them.
  if (typeof value === 'string') return value.length + 2;
  let size = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0 && size <= stopAboveBytes) {
    const next = pending.pop();
    switch (typeof next) {
      case 'string':
        size += next.length + 2;
        break;
      case 'number':
        size += Number.isFinite(next) ? String(next).length : 4;
        break;
      case 'boolean':
        size += next ? 4 : 5;
        break;
      case 'object':
        if (next === null) size += 4;
        else if (Array.isArray(next)) {
          size += 2 + Math.max(0, next.length - 1);
          for (let index = next.length - 1; index >= 0; index--) pending.push(next[index] ?? null);
        } else if (ArrayBuffer.isView(next)) {
          size += next.byteLength;
        } else {
          // Braces, and per member its quoted key, a colon and (all but the first) a comma.
          size += 2;
          let members = 0;
          for (const key in next) {
            const member = (next as Record<string, unknown>)[key];
            if (member === undefined || typeof member === 'function') continue;
            size += key.length + (members > 0 ? 4 : 3);
            members += 1;
            pending.push(member);
          }
        }
        break;
      default:
        // undefined, functions and symbols: JSON leaves them out.
        break;
    }
  }
  return size;
}

/** "52.4 MB", "64 KB": sizes as people read them in error messages. */
export function formatBytes(bytes: number): string {
  const units = ['bytes', 'KB', 'MB', 'GB'];
  let amount = bytes;
  let unit = 0;
  while (amount >= 1024 && unit < units.length - 1) {
    amount /= 1024;
    unit += 1;
  }
  const rounded = unit === 0 || Number.isInteger(amount) ? String(Math.round(amount)) : amount.toFixed(1);
  return `${rounded} ${units[unit]}`;
}
