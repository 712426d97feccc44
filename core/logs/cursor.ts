/**
 * Log cursors: opaque, signed, and bound to the workspace and the query that issued them. A cursor
 * holds the position the next page starts after; the signature makes a tampered one a 400, and the
 * binding makes one used with another workspace, other filters or another order a 400 too (it would
 * silently skip or repeat entries). `limit`, `details` and the include flags may change between pages.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { ValidationError } from '../errors';
import { stableStringify } from '../hash';
import type { LogFilters, LogOrder } from './types';

const version = 1;

interface CursorBody {
  v: number;
  /** Workspace. */
  w: string;
  /** Digest of the filters and the order. */
  q: string;
  /** Position the next page starts after; absent: from the start of the range. */
  p?: string;
}

/** Port: the secret that signs cursors (Secrets Manager in AWS, a key file locally). */
export type CursorKeySource = () => Promise<Uint8Array>;

function queryDigest(filters: LogFilters, order: LogOrder): string {
  const { workspaceId: _workspace, ...rest } = filters;
  return createHash('sha256')
    .update(stableStringify({ ...rest, order }))
    .digest('base64url')
    .slice(0, 22);
}

function mac(key: Uint8Array, text: string): Buffer {
  return createHmac('sha256', key).update(text).digest();
}

export async function encodeCursor(
  keyOf: CursorKeySource,
  filters: LogFilters,
  order: LogOrder,
  position: string | undefined,
): Promise<string> {
  const body: CursorBody = {
    v: version,
    w: filters.workspaceId,
    q: queryDigest(filters, order),
    p: position,
  };
  const text = Buffer.from(JSON.stringify(body)).toString('base64url');
  return `${text}.${mac(await keyOf(), text).toString('base64url')}`;
}

const invalid = (message: string) =>
  new ValidationError(`Invalid cursor: ${message}`, [{ path: 'cursor', message }]);

/** The position a cursor resumes after (undefined: the start of the range); a 400 naming `cursor` if it is not ours or not this query's. */
export async function decodeCursor(
  keyOf: CursorKeySource,
  cursor: string,
  filters: LogFilters,
  order: LogOrder,
): Promise<string | undefined> {
  const [text, signature, extra] = cursor.split('.');
  if (!text || !signature || extra !== undefined) throw invalid('not a cursor this service issued');
  const given = Buffer.from(signature, 'base64url');
  const expected = mac(await keyOf(), text);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw invalid('not a cursor this service issued, or it was changed');
  }
  const body = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as CursorBody;
  if (body.v !== version)
    throw invalid('issued by an earlier version of the service; start again without it');
  if (body.w !== filters.workspaceId) throw invalid('issued for another workspace');
  if (body.q !== queryDigest(filters, order)) {
    throw invalid('issued for other filters or another order; repeat the query that returned it');
  }
  return body.p;
}
