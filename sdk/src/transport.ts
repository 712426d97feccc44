/**
 * How the client sends a request: the runtime's `fetch` where there is one (Node 18+, browsers,
 * Deno, Bun), an injected one, or `nodeHttpFetch` over `node:http`/`node:https` on Node 16.
 * Only the small part of `fetch` the client uses is typed here, so that the package's typings need
 * neither the DOM library nor `@types/node`.
 */

export interface AbortSignalLike {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

export interface FetchRequestInit {
  method: string;
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignalLike;
}

/** A byte stream as `fetch` gives it (a `ReadableStream`) or as Node does (an async iterable). */
export type BodyLike =
  | AsyncIterable<Uint8Array>
  | { getReader(): { read(): Promise<{ done: boolean; value?: Uint8Array }>; cancel(): Promise<void> } };

export interface FetchResponseLike {
  readonly status: number;
  readonly statusText: string;
  readonly headers: { get(name: string): string | null };
  readonly body: BodyLike | null;
  text(): Promise<string>;
}

/** The part of `fetch` the client calls; pass any compatible implementation as `fetch`. */
export type FetchLike = (url: string, init: FetchRequestInit) => Promise<FetchResponseLike>;

/** The bytes of a body, one chunk at a time, whichever kind of stream it is. */
export async function* chunksOf(body: BodyLike): AsyncGenerator<Uint8Array> {
  if (Symbol.asyncIterator in body) {
    yield* body as AsyncIterable<Uint8Array>;
    return;
  }
  // Browsers whose ReadableStream is not async iterable.
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      if (value) yield value;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/**
 * `fetch` over `node:http`/`node:https`, for Node 16 (no global fetch). Each request has its own
 * connection, closed after the answer, so nothing keeps the process alive afterwards. Bodies are
 * asked for uncompressed (`accept-encoding: identity`).
 */
export const nodeHttpFetch: FetchLike = async (url, init) => {
  const target = new URL(url);
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    throw new TypeError(`Only http and https addresses can be called, not ${target.protocol}`);
  }
  const http = target.protocol === 'https:' ? await import('node:https') : await import('node:http');
  const signal = init.signal;
  if (signal?.aborted) throw abortError();
  return new Promise<FetchResponseLike>((resolve, reject) => {
    const headers: Record<string, string> = { 'accept-encoding': 'identity', ...init.headers };
    if (init.body !== undefined) headers['content-length'] = String(Buffer.byteLength(init.body));
    const request = http.request(target, { method: init.method, headers, agent: false }, (response) => {
      const forget = () => signal?.removeEventListener('abort', onAbort);
      response.once('end', forget);
      response.once('close', forget);
      resolve({
        status: response.statusCode ?? 0,
        statusText: response.statusMessage ?? '',
        headers: {
          get(name) {
            const value = response.headers[name.toLowerCase()];
            if (value === undefined) return null;
            return Array.isArray(value) ? value.join(', ') : value;
          },
        },
        body: response,
        async text() {
          const parts: Buffer[] = [];
          for await (const part of response) parts.push(part as Buffer);
          return Buffer.concat(parts).toString('utf8');
        },
      });
    });
    const onAbort = () => request.destroy(abortError());
    signal?.addEventListener('abort', onAbort, { once: true });
    request.once('error', (error) => {
      signal?.removeEventListener('abort', onAbort);
      reject(error);
    });
    request.end(init.body);
  });
};

function abortError(): Error {
  const error = new Error('The request was aborted');
  error.name = 'AbortError';
  return error;
}

/** The runtime's own fetch, else the `node:http` one. */
export function defaultFetch(): FetchLike {
  const global = globalThis as { fetch?: FetchLike };
  return typeof global.fetch === 'function' ? global.fetch.bind(globalThis) : nodeHttpFetch;
}
