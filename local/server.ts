/**
 * The local stand-in for API Gateway: one Node HTTP server that turns each request into a REST API
 * proxy event, calls the route's handler module (the same one each Lambda runs), and writes back
 * its answer.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { defaultMemoryInMb, defaultTimeoutInSeconds } from '../catalog/function-defaults';
import { type RouteDefinition, routes } from '../catalog/routes';
import type { ResponseSink } from '../functions/http/streaming-route';
import { type ConsolePages, startConsolePages } from './console-pages';
import { type FormPages, startFormPages } from './form-pages';
import { localLambdaContext, startInvocationMetering } from './lambda-context';
import { moduleUrlOf } from './modules';
import { isMetering, meter } from '../adapters/metering';
import {
  apiGatewayIntegrationTimeoutInMs,
  apiGatewayPayloadLimitInBytes,
  bytesText,
  lambdaRequestLimitInBytes,
  lambdaResponseLimitInBytes,
} from './emulators/aws-limits';

type Handler = ((event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>) & {
  /** Streaming routes (functions/http/streaming-route.ts): write the answer to a sink as it comes. */
  stream?: (event: APIGatewayProxyEvent, sink: ResponseSink, context: Context) => Promise<void>;
};

interface CompiledRoute {
  route: RouteDefinition;
  pattern: RegExp;
  parameterNames: string[];
  handler: Handler;
}

/** API Gateway refuses payloads over 10 MB; reading stops a little above so the handler can say 413. */
const maxRequestBytes = apiGatewayPayloadLimitInBytes + 1024;

/**
 * How much of a refused body is read and thrown away, and for how long, so that a client still
 * sending it reads the 413 instead of a reset connection; past either, the connection is cut.
 */
const maxDiscardedBytes = 64 * 1024 * 1024;
const maxDiscardingInMs = 30_000;

/**
 * Below this, an event or an answer cannot be over Lambda's limits (JSON escaping makes a byte at
 * most six, a control character as `\u0000`, and the rest of the event is headers of a few tens of
 * KB), so it is not measured.
 */
const unmeasuredBodyInBytes = 1_000_000;

export function compilePath(path: string): { pattern: RegExp; parameterNames: string[] } {
  const parameterNames: string[] = [];
  const source = path
    .split('/')
    .map((segment) => {
      const match = /^\{(\w+)\}$/.exec(segment);
      if (!match) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      parameterNames.push(match[1]);
      return '([^/]+)';
    })
    .join('/');
  return { pattern: new RegExp(`^${source}/?$`), parameterNames };
}

/** A route's handler from elsewhere than its module (the bundle mode's Lambda artifacts, local/bundles). */
export type RouteHandlerOf = (route: RouteDefinition) => Handler;

export async function loadRoutes(root: string, handlerOf?: RouteHandlerOf): Promise<CompiledRoute[]> {
  return Promise.all(
    (routes as readonly RouteDefinition[]).map(async (route) => {
      if (handlerOf) return { route, ...compilePath(route.path), handler: handlerOf(route) };
      const module = (await import(moduleUrlOf(root, route.entry))) as { handler: Handler };
      return { route, ...compilePath(route.path), handler: module.handler };
    }),
  );
}

function findRoute(compiled: CompiledRoute[], method: string, path: string) {
  for (const candidate of compiled) {
    // The method first: a string comparison rules out most routes before any pattern runs.
    if (candidate.route.method !== method) continue;
    const match = candidate.pattern.exec(path);
    if (!match) continue;
    // Still percent-encoded, as API Gateway REST passes them: the handler decodes (see httpRoute).
    const pathParameters = Object.fromEntries(
      candidate.parameterNames.map((name, index) => [name, match[index + 1]]),
    );
    return { candidate, pathParameters };
  }
  return undefined;
}

/** Whether the body's declared length alone is over the limit, so none of it need be read. */
function declaresTooLarge(request: IncomingMessage): boolean {
  const declared = Number(request.headers['content-length']);
  return Number.isFinite(declared) && declared > maxRequestBytes;
}

/**
 * Reads the body up to the limit and stops there: nothing past it is read or kept. A chunked body
 * gives no length up front, so it is only known to be too large once the limit is passed.
 */
function readBody(request: IncomingMessage): Promise<Buffer | 'too large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxRequestBytes) return void chunks.push(chunk);
      request.off('data', onData);
      request.pause();
      resolve('too large');
    };
    request.on('data', onData);
    request.once('end', () => resolve(Buffer.concat(chunks)));
    request.once('error', reject);
  });
}

/**
 * The unread rest of the body would be taken for the next request, so the 413 closes the
 * connection, but only once the client has sent its body: closing while it still sends would
 * reset the connection before it reads the answer. The answer is complete as soon as it is written
 * (it has its length); the rest of the body is read and dropped, up to a bound, then the
 * connection ends. A client that waits for `100 Continue` sends nothing, so its connection ends at once.
 */
function refuseTooLarge(request: IncomingMessage, response: ServerResponse, sendsBody = true): void {
  const body = JSON.stringify({ error: 'Request body is larger than 10 MB', code: 'PAYLOAD_TOO_LARGE' });
  const socket = response.socket;
  response.writeHead(413, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
    connection: 'close',
  });
  if (!sendsBody || request.readableEnded) {
    response.once('finish', () => socket?.destroy());
    return void response.end(body);
  }
  response.write(body);
  let discarded = 0;
  const close = () => {
    clearTimeout(timer);
    request.off('data', discard);
    response.end();
    // Ends the connection once the answer is out, whatever the client still sends.
    response.once('finish', () => socket?.destroy());
  };
  const discard = (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > maxDiscardedBytes) close();
  };
  const timer = setTimeout(close, maxDiscardingInMs);
  timer.unref();
  request.on('data', discard);
  request.once('end', close);
  request.once('error', close);
  request.resume();
}

/**
 * An event over Lambda's request limit is refused by Lambda before the function runs. Measured as
 * the JSON Invoke sends, so the body's escaping counts.
 */
function overLambdaRequestLimit(event: APIGatewayProxyEvent, body: Buffer): string | undefined {
  if (body.length < unmeasuredBodyInBytes) return undefined;
  const bytes = Buffer.byteLength(JSON.stringify(event));
  if (bytes <= lambdaRequestLimitInBytes) return undefined;
  return `The request is ${bytesText(bytes)} bytes as the event its function is given, over Lambda's limit of ${bytesText(lambdaRequestLimitInBytes)} bytes (6 MB) on a synchronous invocation's request: send a JSON body of at most 5 MB`;
}

/** A function's answer over Lambda's response limit never reaches API Gateway, which answers 502. */
export function overLambdaResponseLimit(result: APIGatewayProxyResult): string | undefined {
  if ((result.body?.length ?? 0) < unmeasuredBodyInBytes) return undefined;
  const bytes = Buffer.byteLength(JSON.stringify(result));
  if (bytes <= lambdaResponseLimitInBytes) return undefined;
  return `The function's answer is ${bytesText(bytes)} bytes, over Lambda's limit of ${bytesText(lambdaResponseLimitInBytes)} bytes (6 MB) on a synchronous invocation's response`;
}

/**
 * The handler's answer, or 'timed out' once API Gateway's integration timeout has passed: API
 * Gateway then answers 504 while the function goes on (its later answer, or error, is dropped).
 */
export async function answerWithin(
  answering: Promise<APIGatewayProxyResult>,
  timeoutInMs: number,
): Promise<APIGatewayProxyResult | 'timed out'> {
  let timer: NodeJS.Timeout | undefined;
  const passed = new Promise<'timed out'>((resolve) => {
    timer = setTimeout(() => resolve('timed out'), timeoutInMs);
  });
  try {
    const result = await Promise.race([answering, passed]);
    if (result === 'timed out') answering.catch(() => undefined);
    return result;
  } finally {
    clearTimeout(timer);
  }
}

export function toEvent(
  request: IncomingMessage,
  url: URL,
  route: RouteDefinition,
  pathParameters: Record<string, string>,
  body: Buffer,
): APIGatewayProxyEvent {
  // Without a prototype: a header or query parameter may be called `valueOf` or `__proto__`.
  const headers: Record<string, string> = Object.create(null);
  const multiValueHeaders: Record<string, string[]> = Object.create(null);
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    const values = Array.isArray(value) ? value : [value];
    headers[name] = values.join(',');
    multiValueHeaders[name] = values;
  }
  const query: Record<string, string> = Object.create(null);
  const multiQuery: Record<string, string[]> = Object.create(null);
  for (const [name, value] of url.searchParams) {
    query[name] = value;
    multiQuery[name] = [...(multiQuery[name] ?? []), value];
  }
  const hasQuery = Object.keys(query).length > 0;
  const isText =
    body.length === 0 ||
    /json|text|x-www-form-urlencoded/.test(headers['content-type'] ?? 'application/json');
  const requestId = randomUUID();
  return {
    resource: route.path,
    path: url.pathname,
    httpMethod: route.method,
    headers,
    multiValueHeaders,
    queryStringParameters: hasQuery ? query : null,
    multiValueQueryStringParameters: hasQuery ? multiQuery : null,
    pathParameters: Object.keys(pathParameters).length > 0 ? pathParameters : null,
    stageVariables: null,
    body: body.length === 0 ? null : isText ? body.toString('utf8') : body.toString('base64'),
    isBase64Encoded: !isText,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      authorizer: null,
      protocol: 'HTTP/1.1',
      httpMethod: route.method,
      identity: {
        sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
      } as APIGatewayProxyEvent['requestContext']['identity'],
      path: url.pathname,
      stage: 'local',
      requestId,
      requestTimeEpoch: Date.now(),
      resourceId: route.id,
      resourcePath: route.path,
    },
  };
}

/** The memory the route's function is given in AWS (lib/constructs/service-function.ts). */
function routeMemoryInMb(route: RouteDefinition): number {
  return route.memoryInMb ?? defaultMemoryInMb;
}

/** The API request and its function's invocation, for the cost model when it listens (adapters/metering.ts). */
function startInvocation(route: RouteDefinition) {
  if (!isMetering()) return undefined;
  meter({ kind: 'apiRequest', routeId: route.id });
  return startInvocationMetering(route.id, routeMemoryInMb(route));
}

/**
 * A stream's writes go out at once as chunks (chunked transfer), as API Gateway streams them. A
 * JSON answer comes as start, write and end in one go: what comes before the current job ends is
 * held, so such an answer leaves in one write with its length (a socket write costs about a tenth
 * of a millisecond of CPU on loopback), and a stream's status and headers go out right after its start.
 */
export function nodeSink(response: ServerResponse): ResponseSink {
  let held: { statusCode: number; headers: Record<string, string>; body: string } | undefined;
  const sendHeld = () => {
    if (!held) return;
    const { statusCode, headers, body } = held;
    held = undefined;
    // The local server answered on its own already: the handler broke.
    if (response.headersSent) return;
    response.writeHead(statusCode, headers);
    if (body) response.write(body);
    else response.flushHeaders();
  };
  return {
    start(statusCode, headers) {
      held = { statusCode, headers, body: '' };
      queueMicrotask(sendHeld);
    },
    write(text) {
      if (held) held.body += text;
      else response.write(text);
    },
    end() {
      if (!held) return void response.end();
      const { statusCode, headers, body } = held;
      held = undefined;
      if (response.headersSent) return;
      response.writeHead(statusCode, { ...headers, 'content-length': String(Buffer.byteLength(body)) });
      response.end(body);
    },
  };
}

function sendJson(response: ServerResponse, statusCode: number, body: unknown): void {
  response.writeHead(statusCode, { 'content-type': 'application/json', 'x-content-type-options': 'nosniff' });
  response.end(JSON.stringify(body));
}

/** What Node's parser refuses, answered with the status Node would give it. */
const clientErrors: Record<string, [status: number, reason: string, error: string, code: string]> = {
  HPE_HEADER_OVERFLOW: [
    431,
    'Request Header Fields Too Large',
    'Request headers are larger than 16 KB',
    'HEADERS_TOO_LARGE',
  ],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [
    413,
    'Payload Too Large',
    'Chunk extensions are too large',
    'PAYLOAD_TOO_LARGE',
  ],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', 'Request timed out', 'TIMEOUT'],
};

/**
 * Requests Node's parser refuses (headers over 16 KB, malformed HTTP) get the error body too; the
 * connection cannot carry another request, so it is closed.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
  const [status, reason, message, code] = clientErrors[error.code ?? ''] ?? [
    400,
    'Bad Request',
    'Malformed HTTP request',
    'VALIDATION_ERROR',
  ];
  const body = JSON.stringify({ error: message, code });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json\r\nx-content-type-options: nosniff\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

export interface LocalServer {
  url: string;
  server: Server;
  close(): Promise<void>;
}

export async function startLocalServer(options: {
  port: number;
  host?: string;
  root: string;
  /** API Gateway's integration timeout of non-streaming routes; tests shorten it. */
  integrationTimeoutInMs?: number;
  handlerOf?: RouteHandlerOf;
}): Promise<LocalServer> {
  const integrationTimeoutInMs = options.integrationTimeoutInMs ?? apiGatewayIntegrationTimeoutInMs;
  const compiled = await loadRoutes(options.root, options.handlerOf);
  const formPages: FormPages = await startFormPages();
  const consolePages: ConsolePages = await startConsolePages();
  const server = createServer(async (request, response) => {
    try {
      const url = URL.canParse(request.url ?? '/', 'http://localhost')
        ? new URL(request.url ?? '/', 'http://localhost')
        : undefined;
      if (!url) return sendJson(response, 400, { error: 'Malformed request URL', code: 'VALIDATION_ERROR' });
      // The form pages' static site: CloudFront serves it in AWS, beside the API.
      if (await formPages.serve(request.method ?? 'GET', url.pathname, response)) return;
      // The console: the same site in AWS, under /console/.
      if (await consolePages.serve(request.method ?? 'GET', url.pathname, response)) return;
      const found = findRoute(compiled, request.method ?? 'GET', url.pathname);
      // An unknown method on a known path is a 404 too, as API Gateway answers it (lib/api-stack.ts).
      if (!found) {
        return sendJson(response, 404, {
          error: `No route for ${request.method} ${url.pathname}`,
          code: 'NOT_FOUND',
        });
      }
      if (declaresTooLarge(request)) return refuseTooLarge(request, response);
      const body = await readBody(request);
      if (body === 'too large') return refuseTooLarge(request, response);
      const { route, handler } = found.candidate;
      const event = toEvent(request, url, route, found.pathParameters, body);
      const tooLargeEvent = overLambdaRequestLimit(event, body);
      if (tooLargeEvent) return sendJson(response, 413, { error: tooLargeEvent, code: 'PAYLOAD_TOO_LARGE' });
      const context = localLambdaContext(
        route.id,
        route.timeoutInSeconds ?? defaultTimeoutInSeconds,
        routeMemoryInMb(route),
      );
      const invocation = startInvocation(route);
      if (route.streaming && handler.stream) {
        await handler.stream(event, nodeSink(response), context);
        return invocation?.end();
      }
      // API Gateway stops waiting for a non-streaming route at its integration timeout (504).
      const result = await answerWithin(handler(event, context), integrationTimeoutInMs);
      invocation?.end();
      if (result === 'timed out') {
        return sendJson(response, 504, {
          error: `The route did not answer within API Gateway's integration timeout of ${integrationTimeoutInMs / 1000} s`,
          code: 'TIMEOUT',
        });
      }
      const tooLargeAnswer = overLambdaResponseLimit(result);
      if (tooLargeAnswer) return sendJson(response, 502, { error: tooLargeAnswer, code: 'INTERNAL_ERROR' });
      response.writeHead(result.statusCode, result.headers as Record<string, string>);
      response.end(result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body);
    } catch {
      // A client that went away while sending its body has no one left to answer.
      if (request.socket.destroyed) return;
      // Handlers answer their own errors; reaching here means the handler itself broke.
      if (!response.headersSent)
        sendJson(response, 500, { error: 'Internal server error', code: 'INTERNAL_ERROR' });
      else response.end();
    }
  });
  server.on('clientError', answerClientError);
  // A client that waits for `100 Continue` before sending a body that is too large is refused
  // straight away and never sends it; any other is told to go on, as Node does by default.
  server.on('checkContinue', (request, response) => {
    if (declaresTooLarge(request)) return refuseTooLarge(request, response, false);
    response.writeContinue();
    server.emit('request', request, response);
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((done) => server.listen(options.port, options.host ?? '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://localhost:${port}`,
    server,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => void formPages.close().then(done, done));
      }),
  };
}
