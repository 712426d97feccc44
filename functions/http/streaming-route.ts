/**
 * A route whose answer may be a stream (server-sent events): in AWS a streaming Lambda behind API
 * Gateway's REST response streaming (`awslambda.streamifyResponse`), locally the same function
 * writing to the Node response with chunked transfer. The handler either answers JSON (returns a
 * JsonResponse, as `httpRoute` handlers do) or opens the stream itself through the sink.
 *
 * The module's `handler` is, in the Lambda runtime, the streamified function; anywhere else a plain
 * function that buffers the whole answer into a proxy result (tests and tools that call handlers
 * directly). `handler.stream` is what the local server calls with a sink over its response.
 */
// First: the family's settings are read and checked before anything else loads (a wrong one fails the init).
import '../settings/routes';
import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { acceptsIdToken, type RouteDefinition, type RouteIn, routeIn } from '../../catalog/route-definition';
import { logInvocation, loggerOf } from './logger';
import { RequestLimits } from './limits';
import { type JsonResponse, toProxyResult } from './responses';
import { authorizeApiKey } from './authorize-api-key';
import { keepingAlive, opensEventStream } from './keep-alive';
import { failureResponse, type RouteInput, routeInputOf, withLimitHeaders } from './route';

/** Where a streamed answer goes: status and headers first, then the body in pieces. */
export interface ResponseSink {
  start(statusCode: number, headers: Record<string, string>): void;
  write(text: string): void;
  end(): void;
}

export type StreamingRouteFn<R> = (
  input: RouteInput<R>,
  sink: ResponseSink,
) => Promise<JsonResponse | undefined>;

export interface StreamingHandler {
  (event: APIGatewayProxyEvent, context: Context): Promise<APIGatewayProxyResult>;
  stream(event: APIGatewayProxyEvent, sink: ResponseSink, context: Context): Promise<void>;
}

/** The Lambda runtime's streaming API (a global there, absent anywhere else). */
interface LambdaStreamingRuntime {
  streamifyResponse(
    handler: (
      event: APIGatewayProxyEvent,
      responseStream: NodeJS.WritableStream,
      context: Context,
    ) => Promise<void>,
  ): unknown;
  HttpResponseStream: {
    from(
      stream: NodeJS.WritableStream,
      prelude: { statusCode: number; headers: Record<string, string> },
    ): NodeJS.WritableStream;
  };
}

export function streamingHttpRoute<
  Routes extends readonly RouteDefinition[],
  Id extends Routes[number]['id'],
>(routes: Routes, id: Id, fn: StreamingRouteFn<RouteIn<Routes, Id>>): StreamingHandler {
  const route = routeIn(routes, id);
  // A streamed answer is a run's, and runs take API keys only: this route's bundle has no ID token code.
  if (acceptsIdToken(route))
    throw new Error(`Streaming route ${id} would take ID tokens, which it cannot check`);
  const stream = async (event: APIGatewayProxyEvent, sink: ResponseSink, context: Context): Promise<void> => {
    let response: JsonResponse | undefined;
    let started = false;
    const limits = new RequestLimits();
    const logger = loggerOf(context);
    // An event stream says `: keep-alive` through its silences (./keep-alive.ts); a JSON answer never waits.
    const alive = keepingAlive(sink);
    const tracked: ResponseSink = {
      start(statusCode, headers) {
        started = true;
        alive.start(statusCode, { ...headers, ...limits.headers() });
        if (opensEventStream(headers)) alive.begin();
      },
      write: (text) => alive.write(text),
      end: () => alive.end(),
    };
    try {
      response = await fn(
        await routeInputOf<RouteIn<Routes, Id>>(route, event, limits, authorizeApiKey, logger),
        tracked,
      );
    } catch (error) {
      // Status and headers are gone already: a second prelude would corrupt the stream, so it ends.
      if (started) {
        logger.error('Streamed answer broke after it began', { error: error as Error });
        return alive.end();
      }
      response = await failureResponse(error, event, limits, logger);
    }
    if (!response) return;
    const result = toProxyResult(withLimitHeaders(response, limits));
    sink.start(result.statusCode, result.headers as Record<string, string>);
    sink.write(result.body);
    sink.end();
  };
  const logged = middy(async (input: { event: APIGatewayProxyEvent; sink: ResponseSink }, context: Context) =>
    stream(input.event, input.sink, context),
  ).use(logInvocation());
  const run = (event: APIGatewayProxyEvent, sink: ResponseSink, context: Context) =>
    logged({ event, sink }, context);

  const buffered = (async (event: APIGatewayProxyEvent, context: Context) => {
    const sink = bufferingSink();
    await run(event, sink, context);
    return sink.result();
  }) as StreamingHandler;
  buffered.stream = run;

  // Other libraries put an `awslambda` object on the global too (Powertools' InvokeStore); only the
  // Lambda runtime's has streamifyResponse.
  const runtime = (globalThis as { awslambda?: Partial<LambdaStreamingRuntime> }).awslambda;
  if (typeof runtime?.streamifyResponse !== 'function') return buffered;
  const lambda = runtime as LambdaStreamingRuntime;
  const streamed = lambda.streamifyResponse((event, responseStream, context) =>
    run(event, lambdaSink(lambda, responseStream), context),
  ) as StreamingHandler;
  streamed.stream = run;
  return streamed;
}

/** A sink that keeps everything, for callers that want one proxy result. */
function bufferingSink(): ResponseSink & { result(): APIGatewayProxyResult } {
  let statusCode = 500;
  let headers: Record<string, string> = {};
  const parts: string[] = [];
  return {
    start(status, startHeaders) {
      statusCode = status;
      headers = startHeaders;
    },
    write: (text) => void parts.push(text),
    end: () => undefined,
    result: () => ({ statusCode, headers, body: parts.join('') }),
  };
}

/** API Gateway reads status and headers from the prelude `HttpResponseStream.from` writes first. */
function lambdaSink(runtime: LambdaStreamingRuntime, responseStream: NodeJS.WritableStream): ResponseSink {
  let body: NodeJS.WritableStream | undefined;
  return {
    start(statusCode, headers) {
      body = runtime.HttpResponseStream.from(responseStream, { statusCode, headers });
    },
    write(text) {
      body?.write(text);
    },
    end() {
      body?.end();
    },
  };
}
