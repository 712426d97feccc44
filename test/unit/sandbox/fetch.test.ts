/** Sandbox `fetch` against a fake HttpClient: what the code sees, and the limits around it. */
import { describe, expect, it } from 'vitest';
import { createQuickJsCodeRunner } from '../../../adapters/sandbox/quickjs';
import { failureOf, request, runner } from './support';
import type { HttpClient, HttpRequest, HttpResponse } from '../../../core/net/http';
import { OutboundRequestRefusedError } from '../../../core/net/errors';

function fakeHttp(answer: (request: HttpRequest) => Promise<HttpResponse> | HttpResponse) {
  const requests: HttpRequest[] = [];
  const http: HttpClient = {
    async request(outbound) {
      requests.push(outbound);
      return answer(outbound);
    },
  };
  return { http, requests };
}

function jsonResponse(status: number, value: unknown): HttpResponse {
  return {
    status,
    headers: { 'content-type': 'application/json', 'x-request-id': 'abc' },
    body: new TextEncoder().encode(JSON.stringify(value)),
  };
}

describe('sandbox fetch', () => {
  it('is not there without an HTTP client', async () => {
    const { result } = await runner.run(request('return typeof fetch'));

    expect(result).toBe('undefined');
  });

  it('is there with one', async () => {
    const { http } = fakeHttp(() => jsonResponse(200, {}));

    expect((await runner.run(request('return typeof fetch', { http }))).result).toBe('function');
  });

  it('returns a Response-like object backed by the client', async () => {
    const { http, requests } = fakeHttp(() => jsonResponse(200, { items: [1, 2] }));
    const code = `
      const response = await fetch('https://api.example.com/things?x=1', {
        method: 'post',
        headers: { 'Content-Type': 'application/json', Authorization: 'Bearer t' },
        body: JSON.stringify({ name: 'x' }),
      });
      const data = await response.json();
      return {
        ok: response.ok,
        status: response.status,
        statusText: response.statusText,
        contentType: response.headers.get('Content-Type'),
        missing: response.headers.get('x-missing'),
        has: response.headers.has('X-Request-Id'),
        text: await response.text(),
        data,
      };`;

    const { result } = await runner.run(request(code, { http }));

    expect(result).toEqual({
      ok: true,
      status: 200,
      statusText: 'OK',
      contentType: 'application/json',
      missing: null,
      has: true,
      text: '{"items":[1,2]}',
      data: { items: [1, 2] },
    });
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({
      url: 'https://api.example.com/things?x=1',
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: 'Bearer t' },
      body: '{"name":"x"}',
      maxResponseBytes: 5 * 1024 * 1024,
    });
  });

  it('answers a 404 as a response, not an error', async () => {
    const { http } = fakeHttp(() => jsonResponse(404, { error: 'nope' }));
    const code = `const r = await fetch('https://api.example.com/x'); return [r.ok, r.status, r.statusText, (await r.json()).error];`;

    expect((await runner.run(request(code, { http }))).result).toEqual([false, 404, 'Not Found', 'nope']);
  });

  it('accepts headers as pairs and runs several requests together', async () => {
    const { http, requests } = fakeHttp(async (outbound) => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      return {
        status: 200,
        headers: { 'content-type': 'text/plain' },
        body: new TextEncoder().encode(outbound.url),
      };
    });
    const code = `
      const urls = ['https://a.example.com/', 'https://b.example.com/', 'https://c.example.com/'];
      const texts = await Promise.all(urls.map((url) => fetch(url, { headers: [['x-n', '1']] }).then((r) => r.text())));
      return texts;`;

    const { result } = await runner.run(request(code, { http }));

    expect(result).toEqual(['https://a.example.com/', 'https://b.example.com/', 'https://c.example.com/']);
    expect(requests.map((outbound) => outbound.headers)).toEqual([
      { 'x-n': '1' },
      { 'x-n': '1' },
      { 'x-n': '1' },
    ]);
  });

  it('rejects with a TypeError carrying the client message, which the code can catch', async () => {
    const { http } = fakeHttp(() => {
      throw new OutboundRequestRefusedError('Request to 10.0.0.1 refused: it is a private address');
    });
    const code = `
      try {
        await fetch('http://10.0.0.1/');
        return 'no error';
      } catch (error) {
        return { isTypeError: error instanceof TypeError, message: error.message };
      }`;

    expect((await runner.run(request(code, { http }))).result).toEqual({
      isTypeError: true,
      message: 'Request to 10.0.0.1 refused: it is a private address',
    });
  });

  it('fails the function with that message when the code does not catch it', async () => {
    const { http } = fakeHttp(() => {
      throw new OutboundRequestRefusedError('Request to 127.0.0.1 refused: it is a loopback address');
    });
    const error = await failureOf(runner.run(request(`await fetch('http://127.0.0.1/');`, { http })));

    expect(error.message).toBe('TypeError: Request to 127.0.0.1 refused: it is a loopback address');
  });

  it('takes string bodies only', async () => {
    const { http, requests } = fakeHttp(() => jsonResponse(200, {}));
    const code = `
      try { await fetch('https://api.example.com/', { method: 'POST', body: { a: 1 } }); }
      catch (error) { return error.message; }`;

    expect((await runner.run(request(code, { http }))).result).toBe(
      'fetch body must be a string (use JSON.stringify for objects)',
    );
    expect(requests).toHaveLength(0);
  });

  it('allows at most 20 requests per run', async () => {
    const { http, requests } = fakeHttp(() => jsonResponse(200, {}));
    const code = `
      const outcomes = [];
      for (let i = 0; i < 22; i++) {
        try { await fetch('https://api.example.com/' + i); outcomes.push('ok'); }
        catch (error) { outcomes.push(error.message); }
      }
      return outcomes;`;

    const { result } = (await runner.run(request(code, { http }))) as { result: string[] };

    expect(result.slice(0, 20).every((outcome) => outcome === 'ok')).toBe(true);
    expect(result.slice(20)).toEqual([
      'fetch: at most 20 requests per run',
      'fetch: at most 20 requests per run',
    ]);
    expect(requests).toHaveLength(20);
  });

  it("gives each request only what is left of the function's time", async () => {
    const { http, requests } = fakeHttp(() => jsonResponse(200, {}));
    const code = `await new Promise((resolve) => setTimeout(resolve, 100)); await fetch('https://api.example.com/');`;

    await runner.run(request(code, { http, timeoutInMs: 1_000 }));

    // What is left (at most 900 ms) and a little grace, so that the function's time-out wins.
    expect(requests[0].timeoutInMs).toBeLessThanOrEqual(950);
    expect(requests[0].timeoutInMs).toBeGreaterThan(500);
  });

  it('times the function out while a request hangs, and a late answer is dropped', async () => {
    let answer: (response: HttpResponse) => void = () => {};
    const { http } = fakeHttp(() => new Promise<HttpResponse>((resolve) => (answer = resolve)));
    const started = Date.now();

    const error = await failureOf(
      runner.run(request(`await fetch('https://slow.example.com/');`, { http, timeoutInMs: 150 })),
    );

    expect(error.message).toBe('Function timed out after 150 ms');
    expect(error.kind).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(1_500);
    // The sandbox is gone; answering now must not touch it.
    answer(jsonResponse(200, {}));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect((await runner.run(request('return 1'))).result).toBe(1);
  });

  it('stops when the run is cancelled while a request is under way', async () => {
    const { http } = fakeHttp(() => new Promise<HttpResponse>(() => {}));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);

    const error = await failureOf(
      runner.run(request(`await fetch('https://slow.example.com/');`, { http, signal: controller.signal })),
    );

    expect(error.message).toBe('Function was cancelled');
    expect(error.kind).toBe('cancelled');
  });

  it('cannot be reached through the code replacing JSON', async () => {
    const { http } = fakeHttp(() => jsonResponse(200, { fine: true }));
    const code = `
      JSON.parse = () => ({ hijacked: true });
      JSON.stringify = () => '{}';
      const r = await fetch('https://api.example.com/');
      return (await r.text()).length;`;

    expect((await runner.run(request(code, { http }))).result).toBe('{"fine":true}'.length);
  });

  it("is made ahead with a prepared sandbox yet serves only its own run: that run's client, count and time", async () => {
    // Prepare
    const prepared = createQuickJsCodeRunner({ prepareAhead: true, maxFetchesPerRun: 1 });
    const first = fakeHttp(() => jsonResponse(200, { from: 'first' }));
    const second = fakeHttp(() => jsonResponse(200, { from: 'second' }));
    const fetchTwice = `
      const answer = await (await fetch('https://api.example.com/a')).json();
      try { await fetch('https://api.example.com/b'); } catch (error) { return [answer.from, error.message]; }
      return [answer.from, 'no limit'];`;
    const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

    // Act: the second run gets a sandbox prepared with its fetch, as the first had a client; so does the third.
    const withFirst = await prepared.run(request(fetchTwice, { http: first.http }));
    await nextTurn();
    const withSecond = await prepared.run(request(fetchTwice, { http: second.http, timeoutInMs: 1_500 }));
    await nextTurn();
    const without = await prepared.run(request('return typeof fetch'));

    // Assess
    expect(withFirst.result).toEqual(['first', 'fetch: at most 1 requests per run']);
    expect(without.result).toBe('undefined');
    expect(withSecond.result).toEqual(['second', 'fetch: at most 1 requests per run']);
    expect(first.requests.map((sent) => sent.url)).toEqual(['https://api.example.com/a']);
    expect(second.requests.map((sent) => sent.url)).toEqual(['https://api.example.com/a']);
    // The request's time is what is left of its own run's limit, not of an earlier run's.
    expect(second.requests[0].timeoutInMs).toBeGreaterThan(1_000);
    expect(second.requests[0].timeoutInMs).toBeLessThanOrEqual(1_550);
  });
});
