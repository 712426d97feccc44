/**
 * A `fetch` over an HttpClient, for SDKs that take a fetch function: calls to a user-given model
 * `baseUrl` then go through the outbound guard like every other user-controlled URL. An event
 * stream (a streamed model answer) is handed on as it arrives, so its chunks reach the run as the
 * model sends them; any other answer is read whole first, so its failures (too large, timed out)
 * are failures of the fetch itself.
 */
import type { HttpClient, HttpRequest, HttpResponse, OpenHttpResponse } from '../../core/net/http';

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
    const request: HttpRequest = {
      url,
      method: init.method ?? 'GET',
      headers,
      ...(body === undefined ? {} : { body }),
      timeoutInMs: options.timeoutInMs,
      maxResponseBytes: options.maxResponseBytes,
      ...(init.signal ? { signal: init.signal } : {}),
    };
    if (!client.open) return responseOf(await client.request(request));
    const opened = await client.open(request);
    if (isEventStream(opened) && !hasNullBody(opened.status)) {
      return new Response(readableOf(opened.body), { status: opened.status, headers: opened.headers });
    }
    return responseOf({ ...opened, body: await wholeOf(opened.body) });
  };
}

const hasNullBody = (status: number) => status === 204 || status === 304;

function responseOf(response: HttpResponse): Response {
  return new Response(hasNullBody(response.status) ? null : response.body, {
    status: response.status,
    headers: response.headers,
  });
}

function isEventStream(response: OpenHttpResponse): boolean {
  return (response.headers['content-type'] ?? '').toLowerCase().startsWith('text/event-stream');
}

async function wholeOf(body: OpenHttpResponse['body']): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of body) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** Pulled chunk by chunk; cancelling it (the SDK gave up) stops the body and frees the connection. */
function readableOf(body: OpenHttpResponse['body']): ReadableStream<Uint8Array> {
  const chunks = body[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await chunks.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    async cancel() {
      await chunks.return?.();
    },
  });
}
