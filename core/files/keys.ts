/**
 * The keys of kept files, made and read in one shape:
 *   files/<workspaceId>/<executionId or "uploads">/file_<32 hex>/<safe name>
 * A key that arrives from a caller (a file object, a URL of the files bucket) is taken only when it
 * has exactly this shape: no `.` or `..` segment, no percent-encoding, no empty segment, nothing a
 * later decoding could turn into another path. Which workspace it belongs to is read from the key so
 * checked, never from a prefix of the raw text.
 */
import { randomBytes } from 'node:crypto';

/** The folder of files uploaded through an upload URL, in place of an execution id. */
export const uploadsFolder = 'uploads';

/** Workspace and execution ids: letters, digits, `_` and `-` (ids of core/ids.ts, UUIDs). */
const idSegment = '[A-Za-z0-9_-]{1,128}';
const fileIdSegment = 'file_[0-9a-f]{32}';
/** What safeFileName makes: no leading dot or space, so never `.` or `..`. */
const nameSegment = '[A-Za-z0-9_-][A-Za-z0-9._ -]{0,119}';
const fileKeyPattern = new RegExp(
  `^files/(${idSegment})/(${idSegment})/(${fileIdSegment})/(${nameSegment})$`,
);
const idPattern = new RegExp(`^${idSegment}$`);

export interface FileKey {
  workspaceId: string;
  /** An execution id, or `uploads`. */
  folder: string;
  fileId: string;
  name: string;
}

/** The parts of a key of the service's shape, or undefined for anything else. */
export function parseFileKey(key: string): FileKey | undefined {
  const match = fileKeyPattern.exec(key);
  if (!match) return undefined;
  const [, workspaceId, folder, fileId, name] = match as unknown as [string, string, string, string, string];
  return { workspaceId, folder, fileId, name };
}

/** 128 random bits: a file's key cannot be guessed from anything a caller knows. */
export function newFileId(): string {
  return `file_${randomBytes(16).toString('hex')}`;
}

/** Keeps a name readable in a key and in Content-Disposition, with nothing that changes the path. */
export function safeFileName(name: string): string {
  const cleaned = name
    .replace(/[^A-Za-z0-9._ -]/g, '_')
    .replace(/^[. ]+/, '')
    .slice(0, 120);
  return cleaned === '' ? 'file' : cleaned;
}

/**
 * A new key for a file named `name` under a workspace and folder. An id outside the shape would make
 * a key the service then refuses to read back, so it is refused here, loudly.
 */
export function newFileKey(workspaceId: string, folder: string, name: string): { id: string; key: string } {
  if (!idPattern.test(workspaceId) || !idPattern.test(folder))
    throw new Error(`Cannot keep a file under workspace "${workspaceId}" and folder "${folder}"`);
  const id = newFileId();
  return { id, key: `files/${workspaceId}/${folder}/${id}/${safeFileName(name)}` };
}
