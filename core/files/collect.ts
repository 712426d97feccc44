/** The files a run took in or made, for its log entry: every file object in its input and outputs. */
import { type FileObject, isFileObject } from './types';

/** A log entry lists at most this many files; its summary is copied into three indexes. */
export const maxLoggedFiles = 100;

/** File objects found anywhere in `values` (once each, without `base64`), or null when there are none. */
export function filesIn(...values: unknown[]): FileObject[] | null {
  const found = new Map<string, FileObject>();
  const seen = new Set<object>();
  const visit = (value: unknown, depth: number): void => {
    if (found.size >= maxLoggedFiles || depth > 64 || typeof value !== 'object' || value === null) return;
    if (seen.has(value)) return;
    seen.add(value);
    if (isFileObject(value)) {
      const { base64: _base64, ...file } = value;
      if (!found.has(file.id))
        found.set(file.id, {
          id: file.id,
          key: file.key,
          name: file.name,
          url: file.url,
          type: file.type,
          size: file.size,
        });
      return;
    }
    for (const member of Array.isArray(value) ? value : Object.values(value)) visit(member, depth + 1);
  };
  for (const value of values) visit(value, 0);
  return found.size === 0 ? null : [...found.values()];
}
