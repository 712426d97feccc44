/**
 * How the SDK clients reach an emulator that runs in the same process (the local stack's dynalite and
 * fauxqs) without a socket: the request the SDK built and serialised is handed to the emulator's own
 * HTTP request listener as an in-memory request/response pair, and the answer comes back to the SDK
 * as the response it would have read from the wire. Everything above the transport (the real client,
 * its middleware, retries, error parsing) is the same as over TCP; what is saved is the connection,
 * Node's HTTP writing and parsing on both sides and their timers, and the SigV4 signature, which the
 * emulators do not check ({@link unsignedSigner}).
 *
 * The emulators keep listening on their HTTP endpoints for everything outside the process (tests,
 * the AWS CLI); a client only takes this path when its endpoint belongs to an emulator registered
 * by this process, and one stopped since answers as an endpoint that refuses connections would.
 */
import { EventEmitter } from 'node:events';
import type { IncomingHttpHeaders, OutgoingHttpHeader, RequestListener } from 'node:http';
import { Readable } from 'node:stream';
import { installInProcessClients } from './in-process-endpoints';

export interface InProcessRequest {
  method: string;
  /** Path and query string. */
  url: string;
  headers: Record<string, string>;
  body?: Buffer;
}

export interface InProcessResponse {
  statusCode: number;
  statusMessage?: string;
  headers: Record<string, string>;
  body: Buffer;
}

/** Answers one request of an emulator in this process. */
export type InProcessDispatch = (request: InProcessRequest) => Promise<InProcessResponse>;

const dispatches = new Map<string, InProcessDispatch>();

/** Makes `endpoint` reachable in process; answers the function that takes it back (on stop). */
export function registerInProcessEndpoint(endpoint: string, dispatch: InProcessDispatch): () => void {
  const key = normalized(endpoint);
  dispatches.set(key, dispatch);
  return () => {
    if (dispatches.get(key) === dispatch) dispatches.delete(key);
  };
}

/** Whether a client pointed at `endpoint` can use {@link InProcessHttpHandler}. */
export function isInProcessEndpoint(endpoint: string | undefined): endpoint is string {
  return endpoint !== undefined && dispatches.has(normalized(endpoint));
}

function normalized(endpoint: string): string {
  return new URL(endpoint).origin;
}

/**
 * A dispatch through a lean request/response pair: the body as a readable stream, headers in lower
 * case, and an answer given with `statusCode`, the header methods, `writeHead`, `write` and `end`, then
 * 'finish' and 'close'. That is all dynalite's listener and fauxqs's fastify app use of Node's HTTP
 * API (the integration tests call every operation the service uses through it); a complete emulation
 * such as light-my-request's (fastify's `inject`) cost about as much as the emulators' own work.
 */
export function plainDispatch(listener: RequestListener): InProcessDispatch {
  return (request) =>
    new Promise((resolve, reject) => {
      const req = new PlainRequest(request);
      const res = new PlainResponse(resolve);
      try {
        listener(req as never, res as never);
      } catch (error) {
        reject(error);
      }
    });
}

class PlainRequest extends Readable {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders = {};
  readonly httpVersion = '1.1';
  readonly socket = { remoteAddress: '127.0.0.1', encrypted: false };

  constructor(request: InProcessRequest) {
    super();
    this.method = request.method;
    this.url = request.url;
    for (const [name, value] of Object.entries(request.headers)) this.headers[name.toLowerCase()] = value;
    if (request.body && request.body.length > 0) this.push(request.body);
    this.push(null);
  }

  override _read(): void {}
}

class PlainResponse extends EventEmitter {
  statusCode = 200;
  statusMessage = '';
  headersSent = false;
  writableEnded = false;
  private readonly headers = new Map<string, OutgoingHttpHeader>();
  private readonly chunks: Buffer[] = [];

  constructor(private readonly answer: (response: InProcessResponse) => void) {
    super();
  }

  setHeader(name: string, value: OutgoingHttpHeader | number): this {
    this.headers.set(name.toLowerCase(), typeof value === 'number' ? String(value) : value);
    return this;
  }

  getHeader(name: string): OutgoingHttpHeader | undefined {
    return this.headers.get(name.toLowerCase());
  }

  getHeaders(): Record<string, OutgoingHttpHeader> {
    return Object.fromEntries(this.headers);
  }

  hasHeader(name: string): boolean {
    return this.headers.has(name.toLowerCase());
  }

  removeHeader(name: string): void {
    this.headers.delete(name.toLowerCase());
  }

  writeHead(
    statusCode: number,
    reasonOrHeaders?: string | Record<string, OutgoingHttpHeader | number>,
    headers?: Record<string, OutgoingHttpHeader | number>,
  ): this {
    this.statusCode = statusCode;
    if (typeof reasonOrHeaders === 'string') this.statusMessage = reasonOrHeaders;
    const given = typeof reasonOrHeaders === 'object' ? reasonOrHeaders : headers;
    for (const [name, value] of Object.entries(given ?? {})) this.setHeader(name, value);
    this.headersSent = true;
    return this;
  }

  write(chunk: string | Uint8Array): boolean {
    this.headersSent = true;
    this.chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk));
    return true;
  }

  end(chunk?: string | Uint8Array | (() => void)): this {
    if (this.writableEnded) return this;
    if (chunk !== undefined && typeof chunk !== 'function') this.write(chunk);
    this.headersSent = true;
    this.writableEnded = true;
    const headers: Record<string, string> = {};
    for (const [name, value] of this.headers)
      headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
    this.answer({
      statusCode: this.statusCode,
      statusMessage: this.statusMessage,
      headers,
      body: Buffer.concat(this.chunks),
    });
    this.emit('finish');
    this.emit('close');
    return this;
  }
}

/** The SDK's HttpRequest (@smithy/protocol-http), as far as a transport reads it. */
interface SdkHttpRequest {
  method: string;
  path: string;
  query?: Record<string, string | string[] | null>;
  headers: Record<string, string>;
  body?: unknown;
}

/** The SDK's HttpResponse: a body of bytes is taken as is, without a stream to collect. */
interface SdkHttpResponse {
  statusCode: number;
  reason?: string;
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * The SDK's HttpHandler (the `requestHandler` client option) for an in-process emulator.
 */
export class InProcessHttpHandler {
  private readonly key: string;

  constructor(private readonly endpoint: string) {
    this.key = normalized(endpoint);
  }

  async handle(request: SdkHttpRequest): Promise<{ response: SdkHttpResponse }> {
    const dispatch = dispatches.get(this.key);
    if (!dispatch) {
      // A refused connection's code, so the SDK's retries and the callers treat it as they did over TCP.
      throw Object.assign(new Error(`The local emulator at ${this.endpoint} is not running`), {
        code: 'ECONNREFUSED',
      });
    }
    const answer = await dispatch({
      method: request.method,
      url: request.path + queryString(request.query),
      headers: request.headers,
      body: await bodyOf(request.body),
    });
    return {
      response: {
        statusCode: answer.statusCode,
        reason: answer.statusMessage,
        headers: answer.headers,
        body: answer.body,
      },
    };
  }

  updateHttpClientConfig(): void {}

  httpHandlerConfigs(): Record<string, never> {
    return {};
  }

  destroy(): void {}
}

/**
 * The SDK's `signer` client option for an in-process emulator: the emulators check that a request
 * carries SigV4's headers, never the signature itself, so computing the HMACs is skipped. A client
 * pointed at AWS never gets this signer (only a registered in-process endpoint does).
 */
export const unsignedSigner = {
  async sign<R extends { headers: Record<string, string> }>(
    request: R,
    options: { signingDate?: Date; signingRegion?: string; signingService?: string } = {},
  ): Promise<R> {
    const headers = signatureHeaders(
      Math.floor((options.signingDate?.getTime() ?? Date.now()) / 1000),
      options.signingRegion ?? 'local',
      options.signingService ?? 'local',
    );
    request.headers['x-amz-date'] = headers.amzDate;
    request.headers.authorization = headers.authorization;
    return request;
  },
};

/** The headers of the last second, region and service signed for: calls come many to a second. */
let lastSignature: { key: string; amzDate: string; authorization: string } | undefined;

function signatureHeaders(second: number, region: string, service: string) {
  const key = `${second}/${region}/${service}`;
  if (lastSignature?.key !== key) {
    const amzDate = new Date(second * 1000).toISOString().replace(/[-:]|\.\d{3}/g, '');
    const scope = `${amzDate.slice(0, 8)}/${region}/${service}/aws4_request`;
    lastSignature = {
      key,
      amzDate,
      authorization: `AWS4-HMAC-SHA256 Credential=local/${scope}, SignedHeaders=host, Signature=unsigned`,
    };
  }
  return lastSignature;
}

function queryString(query: SdkHttpRequest['query']): string {
  if (!query) return '';
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === null) search.append(name, '');
    else for (const item of Array.isArray(value) ? value : [value]) search.append(name, item);
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

async function bodyOf(body: unknown): Promise<Buffer | undefined> {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return Buffer.from(body);
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (typeof (body as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function') {
    const chunks: Buffer[] = [];
    for await (const chunk of body as AsyncIterable<string | Uint8Array>) chunks.push(Buffer.from(chunk));
    return Buffer.concat(chunks);
  }
  throw new TypeError('The in-process transport sends string, byte or stream bodies only');
}

/**
 * Middleware of no use to a call answered in this process, dropped from a client of an in-process
 * endpoint: the user agent (built and escaped per call; the emulators ignore it), the recursion
 * detection header (Lambda's trace id, absent locally) and the client's logger hook (the service's
 * clients have no logger). About 0.06 ms of CPU per call. Retries, serialisation, signing headers
 * and error parsing stay.
 */
const unusedInProcess = ['getUserAgentMiddleware', 'recursionDetectionMiddleware', 'loggerMiddleware'];

/** Returns the client, without {@link unusedInProcess}'s middleware when its endpoint is in this process. */
export function leanForInProcess<C extends { middlewareStack: { remove(name: string): boolean } }>(
  client: C,
  endpoint: string | undefined,
): C {
  if (isInProcessEndpoint(endpoint)) {
    for (const name of unusedInProcess) client.middlewareStack.remove(name);
  }
  return client;
}

installInProcessClients({
  optionsFor: (endpoint) =>
    isInProcessEndpoint(endpoint)
      ? { requestHandler: new InProcessHttpHandler(endpoint), signer: unsignedSigner }
      : undefined,
  lean: leanForInProcess,
});
