/**
 * File inputs: a `File`, `Blob`, `Buffer`, `Uint8Array` or `ArrayBuffer` anywhere in a workflow's
 * input becomes the file input shape `{type: 'file', data: <data URI>, name, mime}`; everything
 * else (including `{type: 'url', data, name, mime}`) is sent as it is.
 */
import { WorkflowClientError } from './errors.js';

export interface FileInput {
  type: 'file';
  /** `data:<mime>;base64,<content>` */
  data: string;
  name: string;
  mime: string;
}

export interface UrlInput {
  type: 'url';
  /** A public http(s) address the service downloads the file from. */
  data: string;
  name: string;
  mime?: string;
}

/** What `Blob` and `File` have in common with Node 16's `buffer.Blob` (duck-typed: no global Blob there). */
export interface BlobLike {
  readonly size: number;
  readonly type: string;
  arrayBuffer(): Promise<ArrayBuffer>;
}

export interface FileLike extends BlobLike {
  readonly name: string;
}

export type FileContent = BlobLike | Uint8Array | ArrayBuffer;

const defaultMime = 'application/octet-stream';

/**
 * A file input from bytes or a Blob, with the name and type to give it (raw bytes have neither:
 * without this they are sent as `file` of type `application/octet-stream`).
 */
export async function fileInput(
  content: FileContent,
  fields: { name?: string; mime?: string } = {},
): Promise<FileInput> {
  const bytes = await bytesOf(content);
  const blobType = isBlobLike(content) ? content.type : '';
  const mime = fields.mime || blobType || defaultMime;
  const name = fields.name ?? (isFileLike(content) ? content.name : isBlobLike(content) ? 'blob' : 'file');
  return { type: 'file', data: `data:${mime};base64,${base64Of(bytes)}`, name, mime };
}

/** The input with every file-like value replaced by its file input shape. */
export async function withFileInputs(value: unknown, path = 'input', seen: object[] = []): Promise<unknown> {
  if (isFileContent(value)) return fileInput(value);
  if (value === null || typeof value !== 'object') return value;
  if (seen.includes(value)) {
    throw new WorkflowClientError(`The input refers to itself at ${path}`, 'VALIDATION_ERROR');
  }
  if (Array.isArray(value)) {
    const inner = [...seen, value];
    return Promise.all(value.map((item, index) => withFileInputs(item, `${path}[${index}]`, inner)));
  }
  const prototype = Object.getPrototypeOf(value);
  // Dates, class instances with toJSON and the like are left to JSON.stringify.
  if (prototype !== Object.prototype && prototype !== null) return value;
  const inner = [...seen, value];
  const converted: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    converted[key] = await withFileInputs(item, `${path}.${key}`, inner);
  }
  return converted;
}

function isFileContent(value: unknown): value is FileContent {
  return value instanceof Uint8Array || value instanceof ArrayBuffer || isBlobLike(value);
}

function isBlobLike(value: unknown): value is BlobLike {
  if (value === null || typeof value !== 'object') return false;
  const candidate = value as Partial<BlobLike>;
  return (
    typeof candidate.arrayBuffer === 'function' &&
    typeof candidate.size === 'number' &&
    typeof candidate.type === 'string'
  );
}

function isFileLike(value: unknown): value is FileLike {
  return isBlobLike(value) && typeof (value as Partial<FileLike>).name === 'string';
}

async function bytesOf(content: FileContent): Promise<Uint8Array> {
  if (content instanceof Uint8Array) return content;
  if (content instanceof ArrayBuffer) return new Uint8Array(content);
  return new Uint8Array(await content.arrayBuffer());
}

function base64Of(bytes: Uint8Array): string {
  if (typeof Buffer !== 'undefined') {
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
  }
  // Browsers: btoa over a binary string, in slices so no argument list grows too long.
  let binary = '';
  for (let start = 0; start < bytes.length; start += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(start, start + 0x8000));
  }
  return btoa(binary);
}
