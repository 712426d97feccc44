/** The files a run took in or made, for its log entry: every file object in its input and outputs. */
import { parseFileKey } from './keys';
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

/** Presigns a GET of a kept file for the configured time. */
export type FilePresigner = (key: string) => Promise<string>;

/**
 * `value` with the URL of every file object of `workspaceId` presigned anew: a stored answer (a job's
 * output, a log entry) is read long after its URLs were made, and they expire. A run's output is
 * whatever its blocks made, so an object that only looks like a file (a function block can return
 * any key) is presigned only when its key has the service's shape and names this workspace; others
 * keep the URL they came with. Values without files come back as they are.
 */
export async function withFreshFileUrls<T>(
  value: T,
  presign: FilePresigner | undefined,
  workspaceId: string,
): Promise<T> {
  if (!presign || filesIn(value) === null) return value;
  const ownKey = (key: string) => parseFileKey(key)?.workspaceId === workspaceId;
  const refresh = async (current: unknown, depth: number): Promise<unknown> => {
    if (depth > 64 || typeof current !== 'object' || current === null) return current;
    if (isFileObject(current))
      return ownKey(current.key) ? { ...current, url: await presign(current.key) } : current;
    if (Array.isArray(current)) return Promise.all(current.map((item) => refresh(item, depth + 1)));
    const entries = await Promise.all(
      Object.entries(current).map(
        async ([name, member]) => [name, await refresh(member, depth + 1)] as const,
      ),
    );
    return Object.fromEntries(entries);
  };
  return (await refresh(value, 0)) as T;
}
