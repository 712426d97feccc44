/**
 * The `api` block: one HTTP request through the engine's guarded client (`deps.http`).
 *
 * Config (references resolved): `url`, `method` (GET), `headers?` and `query?` (an object, or rows
 * of `{key, value}` as a table editor keeps them), `body?` (an object or array is sent as JSON with
 * `content-type: application/json` unless one is set; a string as it is; ignored for GET and HEAD),
 * `timeoutMs?` (30 s, at most 5 min). Output: `data` (parsed when the response is JSON, else text),
 * `status`, `headers`.
 *
 * A 4xx or 5xx answer fails the block (`API request failed with status 404: <start of the body>`), so
 * an `error` edge can handle it; 1xx–3xx are answers like any other. The error carries the response
 * as `output` for an engine that passes it along the error edge.
 */
import { OutboundRequestFailedError, OutboundRequestRefusedError } from '../../net/errors';
import type { HttpRequest, HttpResponse } from '../../net/http';
import { BlockError, type BlockDefinition } from './types';

export const defaultApiTimeoutInMs = 30_000;
export const maxApiTimeoutInMs = 5 * 60 * 1000;
export const maxApiResponseBytes = 10 * 1024 * 1024;
const methods = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);
/** How much of an error response's body its message quotes. */
const maxQuotedBodyLength = 200;

export interface ApiOutput {
  data: unknown;
  status: number;
  headers: Record<string, string>;
}

/** A 4xx or 5xx answer. */
export class ApiRequestError extends BlockError {
  readonly output: ApiOutput;

  constructor(message: string, output: ApiOutput) {
    super(message);
    this.name = 'ApiRequestError';
    this.output = output;
  }
}

function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** An object, or rows of `{key, value}`; rows without a key are the empty rows of a table editor. */
function pairsOf(value: unknown, what: string): [string, unknown][] {
  if (value === undefined || value === null || value === '') return [];
  if (Array.isArray(value)) {
    return value.flatMap((row, index): [string, unknown][] => {
      if (row === null || typeof row !== 'object' || Array.isArray(row)) {
        throw new BlockError(`API ${what} row ${index + 1} must be an object with key and value`);
      }
      const { key, value: rowValue } = row as { key?: unknown; value?: unknown };
      const name = textOf(key).trim();
      return name === '' ? [] : [[name, rowValue]];
    });
  }
  if (typeof value === 'object') return Object.entries(value);
  throw new BlockError(`API ${what} must be an object or a list of {key, value}`);
}

function headersOf(value: unknown): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, header] of pairsOf(value, 'headers')) {
    if (header === undefined || header === null) continue;
    headers[name] = textOf(header);
  }
  return headers;
}

function hasHeader(headers: Record<string, string>, name: string): boolean {
  return Object.keys(headers).some((key) => key.toLowerCase() === name);
}

function urlOf(value: unknown, query: unknown): string {
  const text = textOf(value).trim();
  if (text === '') throw new BlockError('API block has no URL');
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    // The URL is not quoted: it may carry secrets from the environment.
    throw new BlockError(
      'API block URL is not a valid absolute URL (it must start with http:// or https://)',
    );
  }
  for (const [name, item] of pairsOf(query, 'query')) {
    if (item === undefined || item === null) continue;
    for (const single of Array.isArray(item) ? item : [item]) url.searchParams.append(name, textOf(single));
  }
  return url.href;
}

function methodOf(value: unknown): string {
  const method = textOf(value).trim().toUpperCase() || 'GET';
  if (!methods.has(method)) {
    throw new BlockError(
      `API method must be one of ${[...methods].join(', ')}, not ${JSON.stringify(value)}`,
    );
  }
  return method;
}

export function apiTimeoutInMs(value: unknown): number {
  const asked = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof asked !== 'number' || !Number.isFinite(asked) || asked <= 0) return defaultApiTimeoutInMs;
  return Math.min(Math.ceil(asked), maxApiTimeoutInMs);
}

function bodyOf(value: unknown, method: string, headers: Record<string, string>): string | undefined {
  if (value === undefined || value === null || value === '' || method === 'GET' || method === 'HEAD') {
    return undefined;
  }
  if (typeof value === 'string') return value;
  if (!hasHeader(headers, 'content-type')) headers['content-type'] = 'application/json';
  return JSON.stringify(value);
}

function isJson(contentType: string | undefined): boolean {
  const mediaType = (contentType ?? '').split(';')[0].trim().toLowerCase();
  return mediaType === 'application/json' || mediaType.endsWith('+json');
}

function decode(response: HttpResponse): string {
  const charset = /charset\s*=\s*"?([^";\s]+)/i.exec(response.headers['content-type'] ?? '')?.[1];
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(response.body);
  } catch {
    // An unknown charset: UTF-8 is the best guess.
    return new TextDecoder().decode(response.body);
  }
}

function dataOf(response: HttpResponse): unknown {
  const text = decode(response);
  if (isJson(response.headers['content-type']) && text.trim() !== '') {
    try {
      return JSON.parse(text);
    } catch {
      // Labeled JSON but not JSON: the text is still worth having.
    }
  }
  return text;
}

function quote(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > maxQuotedBodyLength ? `${flat.slice(0, maxQuotedBodyLength)}…` : flat;
}

export const apiBlock: BlockDefinition = {
  type: 'api',
  async execute(inputs, { deps, signal }) {
    if (!deps.http)
      throw new BlockError('API block cannot run: outbound HTTP is not configured for this engine');
    const method = methodOf(inputs.method);
    const headers = headersOf(inputs.headers);
    const url = urlOf(inputs.url, inputs.query);
    const body = bodyOf(inputs.body, method, headers);
    const request: HttpRequest = {
      url,
      method,
      headers,
      ...(body === undefined ? {} : { body }),
      timeoutInMs: apiTimeoutInMs(inputs.timeoutMs),
      maxResponseBytes: maxApiResponseBytes,
      signal,
    };
    let response: HttpResponse;
    try {
      response = await deps.http.request(request);
    } catch (error) {
      if (error instanceof OutboundRequestRefusedError || error instanceof OutboundRequestFailedError) {
        throw new BlockError(error.message);
      }
      throw new BlockError(`API request failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    const output: ApiOutput = { data: dataOf(response), status: response.status, headers: response.headers };
    if (response.status >= 400) {
      const excerpt = quote(typeof output.data === 'string' ? output.data : JSON.stringify(output.data));
      throw new ApiRequestError(
        `API request failed with status ${response.status}${excerpt === '' ? '' : `: ${excerpt}`}`,
        output,
      );
    }
    return { output };
  },
};
