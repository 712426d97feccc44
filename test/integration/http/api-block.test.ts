/** The `api` block in whole runs, through the guarded client, against a server on 127.0.0.1. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGuardedHttpClient } from '../../../adapters/http/guarded-client';
import { apiBlock, apiTimeoutInMs } from '../../../core/engine/blocks/api';
import { runToCompletion } from '../../../core/engine/run';
import type { EngineDeps, TraceSpan } from '../../../core/engine/types';
import type { HttpClient } from '../../../core/net/http';
import { block, contextOf, edge, graphOf, inProcessRunner } from '../../unit/engine/fixtures';
import { startTestServer, type TestServer } from './server';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});

afterAll(async () => {
  await server.close();
});

const start = block('s', 'start', 'Start', { inputFormat: [{ name: 'term', type: 'string' }] });

/** Loopback allowed: tests only. Redirects followed as the deployment's engine client does. */
function depsWith(
  http: HttpClient = createGuardedHttpClient({ allowLoopback: true, maxRedirects: 5 }),
): EngineDeps {
  return { codeRunner: inProcessRunner(), now: Date.now, http };
}

function spanOf(spans: TraceSpan[], name: string): TraceSpan | undefined {
  return spans[0].children?.find((span) => span.name === name);
}

async function runApi(
  config: Record<string, unknown>,
  input: Record<string, unknown> = {},
  deps = depsWith(),
) {
  const graph = graphOf([start, block('a', 'api', 'Call API', config)], [edge('s', 'a')]);
  return runToCompletion(contextOf(graph, input), deps);
}

describe('api block', () => {
  it('GETs JSON and gives data, status and headers, with references resolved', async () => {
    const result = await runApi(
      { url: `${server.origin}/json`, query: { q: '<start.term>' } },
      { term: 'cats & dogs' },
    );

    expect(result.success).toBe(true);
    expect(result.output).toMatchObject({
      data: { hello: 'world', list: [1, 2, 3] },
      status: 200,
      headers: { 'content-type': 'application/json; charset=utf-8', 'x-answer': '42' },
    });
    expect(server.seen.at(-1)?.url).toBe('/json?q=cats+%26+dogs');
  });

  it('gives text as text', async () => {
    const result = await runApi({ url: `${server.origin}/text`, method: 'GET' });

    expect(result.output).toMatchObject({ data: 'plain text ✓', status: 200 });
  });

  it('sends an object body as JSON, headers and query from table rows', async () => {
    const result = await runApi(
      {
        url: `${server.origin}/echo?fixed=1`,
        method: 'post',
        headers: [
          { key: 'X-Term', value: '<start.term>' },
          { key: '', value: 'empty row' },
        ],
        query: [
          { key: 'tag', value: 'a' },
          { key: 'tag', value: 'b' },
        ],
        body: { term: '<start.term>', n: 1 },
      },
      { term: 'hello' },
    );

    expect(result.success).toBe(true);
    const { data } = result.output as { data: Record<string, any> };
    expect(data.method).toBe('POST');
    expect(data.search).toBe('?fixed=1&tag=a&tag=b');
    expect(data.headers['x-term']).toBe('hello');
    expect(data.headers['content-type']).toBe('application/json');
    expect(JSON.parse(data.body)).toEqual({ term: 'hello', n: 1 });
  });

  it('sends a string body as it is and keeps a content type that is set', async () => {
    const result = await runApi({
      url: `${server.origin}/echo`,
      method: 'PUT',
      headers: { 'Content-Type': 'text/csv' },
      body: 'a,b\n1,2',
    });
    const { data } = result.output as { data: Record<string, any> };

    expect(data.body).toBe('a,b\n1,2');
    expect(data.headers['content-type']).toBe('text/csv');
  });

  it('fails on a 404 with the status and the start of the body, and the run fails without an error edge', async () => {
    const result = await runApi({ url: `${server.origin}/status/404` });

    expect(result.success).toBe(false);
    expect(result.error).toBe('Call API: API request failed with status 404: status 404 body');
    expect(spanOf(result.traceSpans, 'Call API')?.status).toBe('error');
  });

  it('takes the error edge on a 500, where the next block sees the message', async () => {
    const graph = graphOf(
      [
        start,
        block('a', 'api', 'Call API', { url: `${server.origin}/status/500?json=1` }),
        block('ok', 'function', 'Use', { code: 'return "fine"' }),
        block('h', 'function', 'Handle', { code: 'return { handled: <callapi.error> }' }),
      ],
      [edge('s', 'a'), edge('a', 'ok'), edge('a', 'h', 'error')],
    );

    const result = await runToCompletion(contextOf(graph), depsWith());

    expect(result.success).toBe(true);
    expect(result.output).toMatchObject({
      result: { handled: 'API request failed with status 500: {"error":"Something broke","status":500}' },
    });
    expect(spanOf(result.traceSpans, 'Use')).toBeUndefined();
  });

  it('treats 2xx and 3xx as answers: a 204 and a redirect not followed', async () => {
    const empty = await runApi({ url: `${server.origin}/status/204`, method: 'DELETE' });
    expect(empty.output).toMatchObject({ data: '', status: 204 });

    const redirect = await runApi(
      { url: `${server.origin}/redirect?to=/json` },
      {},
      depsWith(createGuardedHttpClient({ allowLoopback: true })),
    );
    expect(redirect.output).toMatchObject({ status: 302, headers: { location: '/json' } });
  });

  it('follows redirects when the engine client does', async () => {
    const result = await runApi({ url: `${server.origin}/redirect?to=/json` });

    expect(result.output).toMatchObject({ status: 200, data: { hello: 'world' } });
  });

  it('is refused by the guard in its default setting', async () => {
    const result = await runApi({ url: `${server.origin}/json` }, {}, depsWith(createGuardedHttpClient()));

    expect(result.success).toBe(false);
    expect(result.error).toBe('Call API: Request to 127.0.0.1 refused: it is a loopback address');
  });

  it('times out after timeoutMs', async () => {
    const result = await runApi({ url: `${server.origin}/hang`, timeoutMs: 200 });

    expect(result.error).toBe('Call API: Request to 127.0.0.1 timed out after 200 ms');
  });

  it('fails clearly without an HTTP client, a URL, or with a bad method', async () => {
    const noClient = await runApi(
      { url: `${server.origin}/json` },
      {},
      { codeRunner: inProcessRunner(), now: Date.now },
    );
    expect(noClient.error).toBe(
      'Call API: API block cannot run: outbound HTTP is not configured for this engine',
    );

    const noUrl = await runApi({ url: '' });
    expect(noUrl.error).toBe('Call API: API block has no URL');

    const badUrl = await runApi({ url: 'example.com/path' });
    expect(badUrl.error).toBe(
      'Call API: API block URL is not a valid absolute URL (it must start with http:// or https://)',
    );

    const badMethod = await runApi({ url: `${server.origin}/json`, method: 'TRACE' });
    expect(badMethod.error).toMatch(
      /^Call API: API method must be one of GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS/,
    );
  });
});

describe('api block settings', () => {
  it('defaults the timeout to 30 s and caps it at 5 min', () => {
    expect(apiTimeoutInMs(undefined)).toBe(30_000);
    expect(apiTimeoutInMs('1500')).toBe(1_500);
    expect(apiTimeoutInMs(-1)).toBe(30_000);
    expect(apiTimeoutInMs(60 * 60 * 1000)).toBe(5 * 60 * 1000);
  });

  it('asks the client for at most 10 MB, within the timeout, and passes the run signal', async () => {
    const seen: unknown[] = [];
    const http: HttpClient = {
      async request(request) {
        seen.push(request);
        return {
          status: 200,
          headers: { 'content-type': 'application/problem+json' },
          body: new TextEncoder().encode('{"a":1}'),
        };
      },
    };
    const signal = new AbortController().signal;
    const outcome = await apiBlock.execute(
      { url: 'https://api.example.com/x', method: 'HEAD', body: { ignored: true }, timeoutMs: 1234 },
      { block: block('a', 'api', 'A'), context: contextOf(graphOf([])), deps: depsWith(http), signal },
    );

    expect(outcome.output).toEqual({
      data: { a: 1 },
      status: 200,
      headers: { 'content-type': 'application/problem+json' },
    });
    expect(seen).toEqual([
      {
        url: 'https://api.example.com/x',
        method: 'HEAD',
        headers: {},
        timeoutInMs: 1234,
        maxResponseBytes: 10 * 1024 * 1024,
        signal,
      },
    ]);
  });
});
