import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { serviceRoutes } from '../../../catalog/service-routes';
import { NotFoundError } from '../../../core/errors';
import { type ResponseSink, streamingHttpRoute } from '../../../functions/http/streaming-route';
import { lambdaContext, proxyEvent } from './proxy-event';

/** A sink that keeps every call in order. */
function recordingSink() {
  const calls: Array<[string, ...unknown[]]> = [];
  const sink: ResponseSink = {
    start: (statusCode, headers) => void calls.push(['start', statusCode, headers]),
    write: (text) => void calls.push(['write', text]),
    end: () => void calls.push(['end']),
  };
  return { sink, calls };
}

const event = () => proxyEvent({ httpMethod: 'GET' });

describe('streamingHttpRoute', () => {
  beforeEach(() => {
    process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
  });

  it('writes a JSON answer to the sink as status, headers and one body', async () => {
    // Prepare
    const handler = streamingHttpRoute(serviceRoutes, 'getHealth', async () => ({
      statusCode: 200,
      body: { status: 'ok' },
    }));
    const { sink, calls } = recordingSink();

    // Act
    await handler.stream(event(), sink, lambdaContext);

    // Assess
    expect(calls).toEqual([
      ['start', 200, { 'content-type': 'application/json', 'x-content-type-options': 'nosniff' }],
      ['write', '{"status":"ok"}'],
      ['end'],
    ]);
  });

  it('leaves the sink to a function that streams itself', async () => {
    // Prepare
    const handler = streamingHttpRoute(serviceRoutes, 'getHealth', async (_input, out) => {
      out.start(200, { 'content-type': 'text/event-stream' });
      out.write('data: 1\n\n');
      out.write('data: 2\n\n');
      out.end();
      return undefined;
    });
    const { sink, calls } = recordingSink();

    // Act
    await handler.stream(event(), sink, lambdaContext);

    // Assess
    expect(calls).toEqual([
      ['start', 200, { 'content-type': 'text/event-stream' }],
      ['write', 'data: 1\n\n'],
      ['write', 'data: 2\n\n'],
      ['end'],
    ]);
  });

  it('answers an error thrown before the stream began with the usual error body', async () => {
    // Prepare
    const handler = streamingHttpRoute(serviceRoutes, 'getHealth', async () => {
      throw new NotFoundError('Workflow not found');
    });
    const { sink, calls } = recordingSink();

    // Act
    await handler.stream(event(), sink, lambdaContext);

    // Assess
    expect(calls).toEqual([
      ['start', 404, { 'content-type': 'application/json', 'x-content-type-options': 'nosniff' }],
      ['write', '{"error":"Workflow not found","code":"NOT_FOUND"}'],
      ['end'],
    ]);
  });

  it('ends a stream that broke after it began, without a second status', async () => {
    // Prepare
    const handler = streamingHttpRoute(serviceRoutes, 'getHealth', async (_input, out) => {
      out.start(200, { 'content-type': 'text/event-stream' });
      out.write('data: 1\n\n');
      throw new Error('broken pipe');
    });
    const { sink, calls } = recordingSink();

    // Act
    await handler.stream(event(), sink, lambdaContext);

    // Assess
    expect(calls).toEqual([
      ['start', 200, { 'content-type': 'text/event-stream' }],
      ['write', 'data: 1\n\n'],
      ['end'],
    ]);
  });

  it('buffers the whole answer into a proxy result outside the Lambda runtime', async () => {
    // Prepare
    const handler = streamingHttpRoute(serviceRoutes, 'getHealth', async (_input, out) => {
      out.start(200, { 'content-type': 'text/event-stream' });
      out.write('data: 1\n\n');
      out.write('data: [DONE]\n\n');
      out.end();
      return undefined;
    });

    // Act
    const result = await handler(event(), lambdaContext);

    // Assess
    expect(result).toEqual({
      statusCode: 200,
      headers: { 'content-type': 'text/event-stream' },
      body: 'data: 1\n\ndata: [DONE]\n\n',
    });
  });
});

describe('streamingHttpRoute in the Lambda runtime', () => {
  const written: string[] = [];
  const preludes: unknown[] = [];
  let streamified: ((event: unknown, stream: unknown, context: unknown) => Promise<void>) | undefined;

  beforeEach(() => {
    process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
    written.length = 0;
    preludes.length = 0;
    // What the runtime puts on the global: streamifyResponse marks the handler, from() writes the prelude.
    (globalThis as { awslambda?: unknown }).awslambda = {
      streamifyResponse: (fn: typeof streamified) => {
        streamified = fn;
        return fn;
      },
      HttpResponseStream: {
        from: (stream: unknown, prelude: unknown) => {
          preludes.push(prelude);
          return stream;
        },
      },
    };
  });

  afterEach(() => {
    delete (globalThis as { awslambda?: unknown }).awslambda;
  });

  it('hands the runtime a streaming handler whose status and headers go in the prelude', async () => {
    // Prepare
    const handler = streamingHttpRoute(serviceRoutes, 'getHealth', async (_input, out) => {
      out.start(200, { 'content-type': 'text/event-stream' });
      out.write('data: [DONE]\n\n');
      out.end();
      return undefined;
    });
    let ended = false;
    const responseStream = {
      write: (text: string) => void written.push(text),
      end: () => {
        ended = true;
      },
    };

    // Act
    await streamified?.(event(), responseStream, lambdaContext);

    // Assess
    expect(typeof handler.stream).toBe('function');
    expect(preludes).toEqual([{ statusCode: 200, headers: { 'content-type': 'text/event-stream' } }]);
    expect(written).toEqual(['data: [DONE]\n\n']);
    expect(ended).toBe(true);
  });
});
