/**
 * A `fetch` over an HttpClient, for SDKs that take a fetch function: calls to a user-given model
 * `baseUrl` then go through the outbound guard like every other user-controlled URL. The answer is
 * read whole before it is handed back, so a streamed answer arrives as one piece.
 */
import type { HttpClient } from '../../core/engine/types';

export interface FetchThroughOptions {
  timeoutInMs: number;
  maxResponseBytes: number;
}

function bodyOf(body: RequestInit['body']): string | Uint8Array | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  if (body instanceof URLSearchParams) return body.toString();
  throw new TypeError('This fetch sends string, byte or form bodies only');
}

export function fetchThrough(client: HttpClient, options: FetchThroughOptions): typeof fetch {
  return async (input, init = {}) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, name) => {
      headers[name] = value;
    });
    const body = bodyOf(init.body);
    const response = await client.request({
      url,
      method: init.method ?? 'GET',
      headers,
      ...(body === undefined ? {} : { body }),
      timeoutInMs: options.timeoutInMs,
      maxResponseBytes: options.maxResponseBytes,
      ...(init.signal ? { signal: init.signal } : {}),
    });
    const nullBody = response.status === 204 || response.status === 304;
    return new Response(nullBody ? null : response.body, {
      status: response.status,
      headers: response.headers,
    });
  };
}
