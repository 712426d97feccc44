/**
 * Files in and out of runs: store a file under its workspace and execution with an unguessable key,
 * load one from any input shape (inline bytes, a URL fetched through the outbound guard, or a file
 * the service keeps, only within its own workspace), turn a run's file inputs into file objects,
 * and hand out upload URLs for files too large for a request body.
 */
import type { InputField } from '../engine/types';
import type { HttpClient } from '../net/http';
import { PayloadTooLargeError, ValidationError } from '../errors';
import { requireWorkspaceAccess } from '../identity/access';
import type { Principal } from '../identity/service';
import type { IdentityStore } from '../identity/types';
import { OutboundRequestFailedError, OutboundRequestRefusedError } from '../net/errors';
import type { BlobStore } from './blob-store';
import { type FileSource, fileSourcesOf, tooLarge } from './inputs';
import { newFileKey, parseFileKey, uploadsFolder } from './keys';
import { type FileContent, type FileObject, type FileScope, maxFileBytes } from './types';

export interface FileDeps {
  blobs: Pick<BlobStore, 'putBytes' | 'getBytes' | 'presignGet' | 'presignPut' | 'keyOfUrl'>;
  /** The guarded client: file URLs are fetched only when they are public. */
  http: HttpClient;
  /** How long presigned URLs stay valid (`FILE_URL_EXPIRY_SECONDS`, default 3600). */
  urlExpiryInSeconds: number;
}

/** What handing out upload URLs needs of FileDeps: no HTTP client. */
export type FileUrlDeps = Pick<FileDeps, 'blobs' | 'urlExpiryInSeconds'>;

export const defaultUrlExpiryInSeconds = 3600;
const fetchTimeoutInMs = 30_000;

export { safeFileName } from './keys';

async function fileObjectOf(
  deps: FileUrlDeps,
  stored: { id: string; key: string; name: string; type: string; size: number },
): Promise<FileObject> {
  return { ...stored, url: await deps.blobs.presignGet(stored.key, deps.urlExpiryInSeconds) };
}

export async function storeFile(deps: FileDeps, scope: FileScope, content: FileContent): Promise<FileObject> {
  if (content.bytes.length > maxFileBytes) throw tooLarge(content.name);
  const { id, key } = newFileKey(scope.workspaceId, scope.executionId, content.name);
  await deps.blobs.putBytes(key, content.bytes, content.type);
  return fileObjectOf(deps, { id, key, name: content.name, type: content.type, size: content.bytes.length });
}

function notFound(path: string): ValidationError {
  const message = 'the file was not found in this workspace';
  return new ValidationError(`File input "${path}": ${message}`, [{ path, message }]);
}

function notAFileKey(path: string): ValidationError {
  const message =
    'the key is not a key of a file this service keeps (files/<workspaceId>/<executionId or uploads>/<file id>/<name>)';
  return new ValidationError(`File input "${path}": ${message}`, [{ path, message }]);
}

/**
 * The bytes of a kept file, read only when `key` has exactly the shape the service gives keys and
 * belongs to `workspaceId`: a key with `..`, an empty segment or an encoded `/` never reaches S3.
 */
async function storedBytes(
  deps: FileDeps,
  workspaceId: string,
  key: string,
  path: string,
): Promise<{ bytes: Uint8Array; fileId: string }> {
  const parsed = parseFileKey(key);
  if (!parsed) throw notAFileKey(path);
  // Another workspace's file reads exactly as a missing one.
  if (parsed.workspaceId !== workspaceId) throw notFound(path);
  const bytes = await deps.blobs.getBytes(key);
  if (!bytes) throw notFound(path);
  if (bytes.length > maxFileBytes) throw tooLarge(path);
  return { bytes, fileId: parsed.fileId };
}

function nameFromUrl(url: string): string {
  const last = new URL(url).pathname.split('/').filter(Boolean).at(-1);
  try {
    return last ? decodeURIComponent(last) : 'file';
  } catch {
    return last ?? 'file';
  }
}

async function fetchUrl(
  deps: FileDeps,
  url: string,
  path: string,
): Promise<{ bytes: Uint8Array; type?: string }> {
  try {
    const response = await deps.http.request({
      url,
      method: 'GET',
      timeoutInMs: fetchTimeoutInMs,
      maxResponseBytes: maxFileBytes,
    });
    if (response.status >= 300) {
      const message = `fetching the url answered HTTP ${response.status}`;
      throw new ValidationError(`File input "${path}": ${message}`, [{ path, message }]);
    }
    return { bytes: response.body, type: response.headers['content-type']?.split(';')[0]?.trim() };
  } catch (error) {
    if (error instanceof OutboundRequestRefusedError) {
      const message = `the url is not allowed: ${error.message}`;
      throw new ValidationError(`File input "${path}": ${message}`, [{ path, message }]);
    }
    if (error instanceof OutboundRequestFailedError) {
      if (/larger than/.test(error.message)) throw tooLarge(path);
      const message = `the url could not be fetched: ${error.message}`;
      throw new ValidationError(`File input "${path}": ${message}`, [{ path, message }]);
    }
    throw error;
  }
}

/**
 * The content of one file input. A file the service keeps (a file object, or a presigned URL of
 * the files bucket) is read by its key, and only when it belongs to `workspaceId`.
 */
export async function loadFile(
  deps: FileDeps,
  workspaceId: string,
  source: FileSource,
  path: string,
): Promise<FileContent & { stored?: FileObject }> {
  if (source.kind === 'bytes') return { name: source.name, type: source.type, bytes: source.bytes };
  if (source.kind === 'stored') {
    const { file } = source;
    const { bytes, fileId } = await storedBytes(deps, workspaceId, file.key, path);
    // The object as the service knows it (id and size from the key and the bytes, a URL it signed),
    // with nothing else the caller put in.
    const stored = await fileObjectOf(deps, {
      id: fileId,
      key: file.key,
      name: file.name,
      type: file.type,
      size: bytes.length,
    });
    return { name: file.name, type: file.type, bytes, stored };
  }
  const ownKey = await deps.blobs.keyOfUrl(source.url);
  const name = source.name ?? nameFromUrl(source.url);
  if (ownKey !== undefined) {
    const { bytes } = await storedBytes(deps, workspaceId, ownKey, path);
    return { name, type: source.type ?? 'application/octet-stream', bytes };
  }
  const fetched = await fetchUrl(deps, source.url, path);
  return { name, type: source.type ?? fetched.type ?? 'application/octet-stream', bytes: fetched.bytes };
}

/** Loads and stores every file of one files value; a file kept already in this workspace is kept as it is. */
export async function ingestFiles(
  deps: FileDeps,
  scope: FileScope,
  value: unknown,
  field: string,
): Promise<FileObject[]> {
  const sources = fileSourcesOf(value, field);
  return Promise.all(
    sources.map(async (source, index) => {
      const content = await loadFile(deps, scope.workspaceId, source, `${field}[${index}]`);
      if (content.stored) return content.stored;
      return storeFile(deps, scope, content);
    }),
  );
}

/** The run input with each `files` field of the Start block turned into stored file objects. */
export async function ingestFileInputs(
  deps: FileDeps,
  fields: InputField[],
  input: Record<string, unknown>,
  scope: FileScope,
): Promise<Record<string, unknown>> {
  const fileFields = fields.filter((field) => field.type === 'files' && input[field.name] !== undefined);
  if (fileFields.length === 0) return input;
  const result = { ...input };
  for (const field of fileFields)
    result[field.name] = await ingestFiles(deps, scope, input[field.name], field.name);
  return result;
}

export interface UploadRequest {
  workspaceId: string;
  name: string;
  type: string;
  size: number;
}

/** A presigned PUT for one file, and the file object to pass as `{name, url, type}` once it is uploaded. */
export async function createUploadUrl(
  deps: FileUrlDeps,
  request: UploadRequest,
): Promise<{ uploadUrl: string; file: FileObject }> {
  if (request.size > maxFileBytes)
    throw new PayloadTooLargeError(
      `File "${request.name}": size ${request.size} is larger than ${maxFileBytes} bytes (20 MB), the most one file may hold`,
    );
  const { id, key } = newFileKey(request.workspaceId, uploadsFolder, request.name);
  // Both are signed: S3 refuses a PUT with another length or type than the ones asked for here.
  const uploadUrl = await deps.blobs.presignPut(
    key,
    { contentType: request.type, contentLength: request.size },
    deps.urlExpiryInSeconds,
  );
  const file = await fileObjectOf(deps, {
    id,
    key,
    name: request.name,
    type: request.type,
    size: request.size,
  });
  return { uploadUrl, file };
}

/** `POST /api/files/upload-url`: for members who may write to the workspace (others get a 404). */
export async function requestUpload(
  deps: { identity: IdentityStore; files: FileUrlDeps },
  principal: Principal,
  request: UploadRequest,
): Promise<{ uploadUrl: string; file: FileObject }> {
  await requireWorkspaceAccess(deps.identity, principal.user.id, request.workspaceId, 'write');
  return createUploadUrl(deps.files, request);
}
