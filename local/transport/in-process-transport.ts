/**
 * How the SDK clients reach an emulator that runs in the same process (the local emulators' dynalite and
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
import { installInProcessClients } from '../../adapters/aws/in-process-endpoints';

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

/** The dispatch registered for `endpoint`, if any (the storage-call bench wraps it). */
export function inProcessDispatchOf(endpoint: string): InProcessDispatch | undefined {
  return dispatches.get(normalized(endpoint));
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

/** What {@link leanForInProcess} uses of an SDK client (the plain clients and lib-dynamodb's). */
interface SdkClientLike {
  config: object;
  middlewareStack: MiddlewareStackLike;
  send(command: unknown, ...rest: unknown[]): Promise<unknown>;
}

interface MiddlewareStackLike {
  remove(name: string): boolean;
  concat(from: unknown): unknown;
}

/** A command's resolved middleware chain: called with the command, answers its output. */
type ResolvedHandler = (command: unknown) => Promise<{ output: unknown }>;

interface SdkCommandLike {
  resolveMiddleware(stack: unknown, config: object, options: undefined): ResolvedHandler;
}

/** lib-dynamodb's commands: a plain DynamoDB command inside, and (un)marshalling middleware added to it. */
interface DocumentCommandLike {
  clientCommand: SdkCommandLike;
  middlewareStack: unknown;
  addMarshallingMiddleware(config: object): void;
}

const isDocumentCommand = (command: object): command is DocumentCommandLike =>
  typeof (command as Partial<DocumentCommandLike>).addMarshallingMiddleware === 'function' &&
  typeof (command as Partial<DocumentCommandLike>).clientCommand?.resolveMiddleware === 'function';

/**
 * Returns the client made cheaper per call when its endpoint is in this process: without
 * {@link unusedInProcess}'s middleware, with its config given fast properties ({@link withFastProperties})
 * and its middleware chain resolved once per command class ({@link resolvingOncePerCommand}). A
 * lib-dynamodb document client shares its plain client's config and middleware, so it is called once,
 * on the document client.
 */
export function leanForInProcess<C extends { middlewareStack: { remove(name: string): boolean } }>(
  client: C,
  endpoint: string | undefined,
): C {
  if (isInProcessEndpoint(endpoint)) {
    for (const name of unusedInProcess) client.middlewareStack.remove(name);
    const sdkClient = client as unknown as SdkClientLike;
    withFastProperties(sdkClient.config);
    resolvingOncePerCommand(sdkClient);
  }
  return client;
}

/**
 * The SDK builds a client's config by adding properties to one object, resolver after resolver;
 * past a dozen, V8 keeps such an object as a hash table ("dictionary mode"). Every call copies it
 * (`{ ...config }`) in the endpoint, serialisation and parsing middleware and reads it in the others,
 * about 40 µs of CPU per call on a hash table. An object used as a prototype, once reads through it
 * are optimised, is given fast properties again by V8, so the config is made the prototype of a
 * throwaway object and read through it until that happens. The config keeps its identity, its
 * properties and their accessors: nothing else can tell, and where an engine does not do this,
 * nothing changes.
 */
function withFastProperties(object: object): void {
  const Holder = function Holder() {} as unknown as new () => Record<string, unknown>;
  Holder.prototype = object;
  const holder = new Holder();
  // Enough reads for V8 to give the read its feedback and inline cache (a handful are not; Node 20 needs some hundreds).
  for (let read = 0; read < 2_000; read++) void holder.apiVersion;
}

const resolvedHandlers = new WeakMap<object, Map<unknown, ResolvedHandler>>();

/**
 * `send` resolves the client's and the command's middleware into a chain anew on every call
 * (copying and sorting the stack, a closure per middleware): about 35 µs of CPU per call, 45 for a
 * document command, which resolves twice. A client of an in-process endpoint keeps the chain of each
 * command class and calls it with each command, as the SDK's own `cacheMiddleware` option does for
 * the plain clients (lib-dynamodb refuses that option: its chain ignores the command it is called
 * with, so here a document command's inner chain is kept and called with the command's plain
 * DynamoDB command, whose input it marshals). As with `cacheMiddleware`, the calls of one class
 * share the chain's context, in which the middleware write what is the same for every call of
 * that class (the endpoint, the signing scheme). A change to the client's middleware drops the
 * kept chains; a call with options (an abort signal) or a callback resolves its own.
 */
function resolvingOncePerCommand(client: SdkClientLike): void {
  const stack = client.middlewareStack;
  const methods = stack as unknown as Record<string, (...args: unknown[]) => unknown>;
  let handlers = resolvedHandlers.get(stack);
  if (!handlers) {
    const kept = new Map<unknown, ResolvedHandler>();
    for (const name of ['add', 'addRelativeTo', 'remove', 'removeByTag', 'use'] as const) {
      const change = methods[name] as (...args: unknown[]) => unknown;
      methods[name] = (...args: unknown[]) => {
        kept.clear();
        return change.apply(stack, args);
      };
    }
    resolvedHandlers.set(stack, kept);
    handlers = kept;
  }
  const byClass = handlers;
  const send = client.send.bind(client);
  client.send = (command: unknown, ...rest: unknown[]) => {
    if (rest.length > 0 || typeof command !== 'object' || command === null) return send(command, ...rest);
    const document = isDocumentCommand(command);
    let handler = byClass.get(command.constructor);
    if (!handler) {
      if (document) {
        command.addMarshallingMiddleware(client.config);
        handler = command.clientCommand.resolveMiddleware(
          stack.concat(command.middlewareStack),
          client.config,
          undefined,
        );
      } else {
        handler = (command as SdkCommandLike).resolveMiddleware(stack, client.config, undefined);
      }
      byClass.set(command.constructor, handler);
    }
    return handler(document ? command.clientCommand : command).then((result) => result.output);
  };
}

installInProcessClients({
  optionsFor: (endpoint) =>
    isInProcessEndpoint(endpoint)
      ? { requestHandler: new InProcessHttpHandler(endpoint), signer: unsignedSigner }
      : undefined,
  lean: leanForInProcess,
});
