/** `fetch` inside the QuickJS sandbox, through the guarded client, against a server on 127.0.0.1. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGuardedHttpClient, type ResolvedAddress } from '../../../adapters/http/guarded-client';
import { createQuickJsCodeRunner } from '../../../adapters/sandbox/quickjs';
import { runToCompletion } from '../../../core/engine/run';
import type { CodeRunRequest, EngineDeps } from '../../../core/engine/types';
import { block, contextOf, edge, graphOf } from '../../unit/engine/fixtures';
import { startTestServer, type TestServer } from './server';

let server: TestServer;
const runner = createQuickJsCodeRunner();

beforeAll(async () => {
  server = await startTestServer();
});

afterAll(async () => {
  await server.close();
});

function request(code: string, overrides: Partial<CodeRunRequest> = {}): CodeRunRequest {
  return { code, timeoutInMs: 5_000, memoryLimitInBytes: 64 * 1024 * 1024, ...overrides };
}

describe('sandbox fetch through the guard', () => {
  it('reaches the loopback server when the guard allows loopback (tests only)', async () => {
    const http = createGuardedHttpClient({ allowLoopback: true });
    const code = `
      const response = await fetch('${server.origin}/json');
      const body = await response.json();
      return { ok: response.ok, status: response.status, answer: response.headers.get('x-answer'), body };`;

    const { result } = await runner.run(request(code, { http }));

    expect(result).toEqual({
      ok: true,
      status: 200,
      answer: '42',
      body: { hello: 'world', list: [1, 2, 3] },
    });
  });

  it('posts a string body', async () => {
    const http = createGuardedHttpClient({ allowLoopback: true });
    const code = `
      const response = await fetch('${server.origin}/echo', {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ a: 1 }),
      });
      const echoed = await response.json();
      return [echoed.method, echoed.body, echoed.headers['content-type']];`;

    expect((await runner.run(request(code, { http }))).result).toEqual([
      'POST',
      '{"a":1}',
      'application/json',
    ]);
  });

  it('is refused by the default guard, and the code sees the refusal as a thrown error', async () => {
    const http = createGuardedHttpClient();
    const before = server.seen.length;
    const code = `
      try {
        await fetch('${server.origin}/json');
        return 'reached';
      } catch (error) {
        return error.name + ': ' + error.message;
      }`;

    const { result } = await runner.run(request(code, { http }));

    expect(result).toBe('TypeError: Request to 127.0.0.1 refused: it is a loopback address');
    expect(server.seen.length).toBe(before);
  });

  it('refuses metadata, private and encoded addresses the same way', async () => {
    const resolve = async (): Promise<ResolvedAddress[]> => [{ address: '10.0.0.8', family: 4 }];
    const http = createGuardedHttpClient({ resolve });
    const code = `
      const out = [];
      for (const url of ['http://169.254.169.254/latest/meta-data/', 'http://2130706433/', 'http://intranet.example.test/']) {
        try { await fetch(url); out.push('reached'); } catch (error) { out.push(error.message); }
      }
      return out;`;

    expect((await runner.run(request(code, { http }))).result).toEqual([
      'Request to 169.254.169.254 refused: it is a cloud metadata address',
      'Request to 127.0.0.1 refused: it is a loopback address',
      'Request to intranet.example.test refused: it resolves to a private address',
    ]);
  });

  it("counts a request against the function's time limit", async () => {
    const http = createGuardedHttpClient({ allowLoopback: true });
    const started = Date.now();

    await expect(
      runner.run(request(`await fetch('${server.origin}/hang');`, { http, timeoutInMs: 300 })),
    ).rejects.toThrow('Function timed out after 300 ms');
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('is undefined without an HTTP client', async () => {
    expect((await runner.run(request('return typeof fetch'))).result).toBe('undefined');
  });

  it('is offered to function blocks with the engine client', async () => {
    const graph = graphOf(
      [
        block('s', 'start', 'Start', { inputFormat: [] }),
        block('f', 'function', 'Fetch', {
          code: `const r = await fetch('${server.origin}/json'); return (await r.json()).hello;`,
        }),
      ],
      [edge('s', 'f')],
    );
    const deps: EngineDeps = {
      codeRunner: runner,
      now: Date.now,
      http: createGuardedHttpClient({ allowLoopback: true }),
    };

    const result = await runToCompletion(contextOf(graph), deps);

    expect(result).toMatchObject({ success: true, output: { result: 'world' } });

    const withoutHttp = await runToCompletion(
      contextOf(
        graphOf(
          [
            block('s', 'start', 'Start', { inputFormat: [] }),
            block('f', 'function', 'Fetch', { code: 'return typeof fetch' }),
          ],
          [edge('s', 'f')],
        ),
      ),
      { codeRunner: runner, now: Date.now },
    );
    expect(withoutHttp.output).toMatchObject({ result: 'undefined' });
  });
});
