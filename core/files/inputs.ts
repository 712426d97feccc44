/**
 * The shapes a file arrives in, read into one form: bytes given inline, a URL to fetch, or a file
 * the service already keeps. The four input shapes of the interface:
 *   {name, base64, type}   {name, url, type}
 *   {type: 'file', data: 'data:<mime>;base64,…', name, mime}   {type: 'url', data: <url>, name, mime}
 * and a file object from an earlier block or upload (it has `key`, or a `url` of the files bucket).
 */
import { PayloadTooLargeError, ValidationError } from '../errors';
import { type FileObject, isFileObject, maxFileBytes } from './types';

export type FileSource =
  | { kind: 'bytes'; name: string; type: string; bytes: Uint8Array }
  | { kind: 'url'; name?: string; type?: string; url: string }
  | { kind: 'stored'; file: FileObject };

const base64Pattern = /^[A-Za-z0-9+/_-]*={0,2}$/;
const dataUriPattern = /^data:([^;,]*)((?:;[^;,]*)*?);base64,(.*)$/s;

function invalid(path: string, message: string): ValidationError {
  return new ValidationError(`File input "${path}": ${message}`, [{ path, message }]);
}

function decodeBase64(text: string, path: string): Uint8Array {
  const compact = text.replace(/\s+/g, '');
  // Checked before decoding: base64 of 20 MB is about 26.7 million characters.
  if ((compact.length * 3) / 4 > maxFileBytes + 2) throw tooLarge(path);
  if (!base64Pattern.test(compact)) throw invalid(path, 'base64 is not valid base64');
  const bytes = Buffer.from(compact, compact.includes('-') || compact.includes('_') ? 'base64url' : 'base64');
  if (bytes.length > maxFileBytes) throw tooLarge(path);
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length);
}

export function tooLarge(path: string): PayloadTooLargeError {
  return new PayloadTooLargeError(
    `File "${path}" is larger than ${maxFileBytes / (1024 * 1024)} MB, the most one file may hold`,
  );
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function httpUrl(value: string, path: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid(path, 'url is not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid(path, 'url must be http or https');
  return url.toString();
}

/** Reads one file input; `path` names it in errors (`<field>[<i>]`). */
export function fileSourceOf(value: unknown, path: string): FileSource {
  if (typeof value === 'string') {
    const dataUri = value.match(dataUriPattern);
    if (dataUri)
      return {
        kind: 'bytes',
        name: 'file',
        type: dataUri[1] || 'application/octet-stream',
        bytes: decodeBase64(dataUri[3] ?? '', path),
      };
    return { kind: 'url', url: httpUrl(value, path) };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalid(
      path,
      'must be a file object: {name, base64, type}, {name, url, type} or {type, data, name, mime}',
    );
  }
  if (isFileObject(value)) return { kind: 'stored', file: value };
  const file = value as Record<string, unknown>;
  const name = text(file.name);
  if (file.type === 'file' || file.type === 'url') {
    const data = text(file.data);
    if (!data) throw invalid(path, 'data is missing');
    const mime = text(file.mime);
    if (file.type === 'url') return { kind: 'url', url: httpUrl(data, path), name, type: mime };
    const dataUri = data.match(dataUriPattern);
    if (!dataUri) throw invalid(path, 'data must be a data URI with base64 content (data:<mime>;base64,…)');
    return {
      kind: 'bytes',
      name: name ?? 'file',
      type: mime ?? (dataUri[1] || 'application/octet-stream'),
      bytes: decodeBase64(dataUri[3] ?? '', path),
    };
  }
  if (typeof file.base64 === 'string') {
    return {
      kind: 'bytes',
      name: name ?? 'file',
      type: text(file.type) ?? 'application/octet-stream',
      bytes: decodeBase64(file.base64, path),
    };
  }
  const url = text(file.url);
  if (url) return { kind: 'url', url: httpUrl(url, path), name, type: text(file.type) };
  throw invalid(path, 'give base64, url, or type "file"/"url" with data');
}

/** A files value: one file or a list of them. */
export function fileSourcesOf(value: unknown, field: string): FileSource[] {
  const list = Array.isArray(value) ? value : [value];
  return list.map((item, index) => fileSourceOf(item, `${field}[${index}]`));
}
