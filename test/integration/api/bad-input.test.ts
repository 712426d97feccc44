/**
 * Bad input is the caller's error: malformed paths, deep or oversized bodies and wrong media types
 * get a 4xx with the error body, never a 500, and the client can go on with its next request.
 */
import { Agent, type ClientRequest, request as httpRequest, type OutgoingHttpHeaders } from 'node:http';
import { describe, expect, it } from 'vitest';
import { routes } from '../../../catalog/routes';
import { strictObject } from '../../../catalog/zod';
import { errorBody } from '../../../catalog/schemas';
import { maxJsonDepth } from '../../../core/json-depth';
import { deployedWorkflow, request, threeBlockGraph, useLocalService } from '../../support/service';

const service = useLocalService();

const tenMegabytesInBytes = 10 * 1024 * 1024;
const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  socketId: number;
}

let nextSocketId = 0;

/**
 * Sends with Node's own client and tells which connection answered. `send` writes the body, or
 * only part of it: the answer is awaited either way.
 */
function rawRequest(
  options: { method: string; path: string; headers?: OutgoingHttpHeaders; agent?: Agent },
  send: (outgoing: ClientRequest) => void = (outgoing) => outgoing.end(),
): Promise<RawAnswer> {
  const url = new URL(options.path, service.get().url);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(url, {
      method: options.method,
      headers: options.headers,
      agent: options.agent,
    });
    outgoing.on('socket', (socket) => {
      const tagged = socket as unknown as { testId?: number };
      tagged.testId ??= ++nextSocketId;
    });
    outgoing.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('end', () => {
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          socketId: (outgoing.socket as unknown as { testId?: number }).testId ?? -1,
        });
        outgoing.destroy();
      });
    });
    outgoing.on('error', reject);
    send(outgoing);
  });
}

const adminJson = () => ({
  'content-type': 'application/json',
  'x-admin-key': service.get().service.adminKey,
});
const tooLargeBody = { error: 'Request body is larger than 10 MB', code: 'PAYLOAD_TOO_LARGE' };

const parameterised = routes.filter((route) => route.path.includes('{'));

describe('bad input', () => {
  it.each(['%E0%A4%A', '%FF%FE', '%'])(
    'answers malformed percent-encoding %s with 400 naming the parameter on every parameterised route',
    async (bad) => {
      const { adminKey } = service.get().service;
      for (const route of parameterised) {
        const path = route.path.replace(/\{\w+\}/g, bad);

        const answer = await request(service.get().url, route.method, path, {
          headers: { 'x-admin-key': adminKey, 'x-api-key': 'sk-none' },
        });

        expect(answer.status, `${route.method} ${path}`).toBe(400);
        expect(answer.body).toMatchObject({
          code: 'VALIDATION_ERROR',
          error: expect.stringMatching(/^Invalid path parameter "\w+": malformed percent-encoding$/),
        });
      }
    },
  );

  it('decodes a percent-encoded path parameter before the route sees it', async () => {
    const tenant = await service.get().newTenant('encoded');

    const answer = await tenant.call('PUT', `/api/workspaces/${tenant.workspaceId}/environment/MY%5FVAR`, {
      value: 'x',
    });

    expect(answer.status).toBe(201);
    expect(answer.body.data.name).toBe('MY_VAR');
  });

  it('decodes a path parameter only once', async () => {
    const tenant = await service.get().newTenant('encoded');

    const answer = await tenant.call('PUT', `/api/workspaces/${tenant.workspaceId}/environment/MY%255FVAR`, {
      value: 'x',
    });

    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'name' }] });
  });

  it('answers a body nested 5,000 levels with 400 naming the limit on the graph-saving routes and execute', async () => {
    const tenant = await service.get().newTenant('deep');
    const id = await deployedWorkflow(tenant);
    const deep = `{"workspaceId":"${tenant.workspaceId}","name":"Deep","state":${nested(5000)}}`;
    const calls: Array<[string, string, Record<string, string>]> = [
      ['POST', '/api/workflows', { 'x-api-key': tenant.apiKey }],
      ['PUT', `/api/workflows/${id}`, { 'x-api-key': tenant.apiKey }],
      ['POST', '/api/v1/admin/workflows/import', { 'x-admin-key': service.get().service.adminKey }],
      ['POST', `/api/workflows/${id}/execute`, { 'x-api-key': tenant.apiKey }],
    ];

    for (const [method, path, headers] of calls) {
      const answer = await request(service.get().url, method, path, { headers, rawBody: deep });

      expect(answer.status, `${method} ${path}`).toBe(400);
      expect(answer.body).toEqual({
        error: `Request body is nested deeper than ${maxJsonDepth} levels`,
        code: 'INVALID_JSON',
      });
    }
  });

  it('answers an execute input nested 5,000 levels with 400, not an internal message', async () => {
    const tenant = await service.get().newTenant('deep');
    const id = await deployedWorkflow(tenant);

    const answer = await request(service.get().url, 'POST', `/api/workflows/${id}/execute`, {
      headers: { 'x-api-key': tenant.apiKey },
      rawBody: `{"name":${nested(5000)}}`,
    });

    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.body)).not.toContain('call stack');
  });

  it('answers an object input sent as a JSON string nested 5,000 levels with 400 naming the field', async () => {
    const tenant = await service.get().newTenant('deep');
    const state = threeBlockGraph({ inputFormat: [{ name: 'data', type: 'object' }], code: 'return 1' });
    const id = await deployedWorkflow(tenant, state);

    const answer = await tenant.call('POST', `/api/workflows/${id}/execute`, {
      data: `{"a":${nested(5000)}}`,
    });

    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({
      code: 'VALIDATION_ERROR',
      error: `Input field "data" is nested deeper than ${maxJsonDepth} levels`,
    });
  });

  it('runs an execute input nested exactly to the limit', async () => {
    const tenant = await service.get().newTenant('deep');
    const id = await deployedWorkflow(tenant);

    const answer = await request(service.get().url, 'POST', `/api/workflows/${id}/execute`, {
      headers: { 'x-api-key': tenant.apiKey },
      rawBody: `{"name":"deep","extra":${nested(maxJsonDepth - 1)}}`,
    });

    expect(answer.status).toBe(200);
    expect(answer.body.output).toEqual({ shouted: 'DEEP' });
  });

  it('answers 413 with Connection: close, and the same keep-alive agent is answered on a new connection', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const tooLarge = await rawRequest(
        { method: 'POST', path: '/api/v1/admin/users', headers: adminJson(), agent },
        (outgoing) => outgoing.end(Buffer.alloc(tenMegabytesInBytes + 4096, 0x20)),
      );

      const next = await rawRequest({ method: 'GET', path: '/api/health', agent });

      expect(tooLarge.status).toBe(413);
      expect(tooLarge.headers.connection).toBe('close');
      expect(JSON.parse(tooLarge.body)).toEqual(tooLargeBody);
      expect(next.status).toBe(200);
      expect(next.socketId).not.toBe(tooLarge.socketId);
    } finally {
      agent.destroy();
    }
  });

  it('answers the next fetch of the same client after a 413', async () => {
    const tooLarge = await fetch(`${service.get().url}/api/v1/admin/users`, {
      method: 'POST',
      headers: adminJson(),
      body: Buffer.alloc(11 * 1024 * 1024, 0x20),
    });
    await tooLarge.text();

    const next = await fetch(`${service.get().url}/api/health`);

    expect(tooLarge.status).toBe(413);
    expect(next.status).toBe(200);
  });

  it('answers 413 on a declared length over 10 MB without reading the body', async () => {
    // Only a little of the body is ever sent: an answer proves the server did not wait for it.
    const answer = await rawRequest(
      {
        method: 'POST',
        path: '/api/v1/admin/users',
        headers: { ...adminJson(), 'content-length': String(tenMegabytesInBytes + 4096) },
      },
      (outgoing) => outgoing.write(Buffer.alloc(1024, 0x20)),
    );

    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toEqual(tooLargeBody);
  });

  it('answers 413 once a chunked body passes 10 MB, without reading the rest', async () => {
    const answer = await rawRequest(
      { method: 'POST', path: '/api/v1/admin/users', headers: adminJson() },
      (outgoing) => outgoing.write(Buffer.alloc(tenMegabytesInBytes + 64 * 1024, 0x20)),
    );

    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toEqual(tooLargeBody);
  });

  it('refuses a body over 10 MB announced with Expect: 100-continue before it is sent', async () => {
    let toldToContinue = false;

    const answer = await rawRequest(
      {
        method: 'POST',
        path: '/api/v1/admin/users',
        headers: {
          ...adminJson(),
          expect: '100-continue',
          'content-length': String(tenMegabytesInBytes + 4096),
        },
      },
      (outgoing) => {
        outgoing.on('continue', () => {
          toldToContinue = true;
        });
        outgoing.flushHeaders();
      },
    );

    expect(answer.status).toBe(413);
    expect(toldToContinue).toBe(false);
  });

  it('goes on with a body under the limit announced with Expect: 100-continue', async () => {
    const body = JSON.stringify({ email: 'continued@example.com', name: 'Continued' });

    const answer = await rawRequest(
      {
        method: 'POST',
        path: '/api/v1/admin/users',
        headers: {
          ...adminJson(),
          expect: '100-continue',
          'content-length': String(Buffer.byteLength(body)),
        },
      },
      (outgoing) => {
        outgoing.on('continue', () => outgoing.end(body));
        outgoing.flushHeaders();
      },
    );

    expect(answer.status).toBe(201);
  });

  it.each(['text/plain', 'application/xml', 'application/octet-stream'])(
    'answers a JSON route sent %s with 415 naming the expected type',
    async (type) => {
      const answer = await request(service.get().url, 'POST', '/api/v1/admin/users', {
        headers: { 'x-admin-key': service.get().service.adminKey, 'content-type': type },
        rawBody: '{"email":"typed@example.com","name":"Typed"}',
      });

      expect(answer.status).toBe(415);
      expect(answer.body).toEqual({
        error: `Content-Type "${type}" is not supported: send the body as application/json`,
        code: 'UNSUPPORTED_MEDIA_TYPE',
      });
    },
  );

  it.each(['application/json; charset=utf-8', 'application/vnd.workflow+json'])(
    'reads a body sent as %s as JSON',
    async (type) => {
      const answer = await request(service.get().url, 'POST', '/api/v1/admin/users', {
        headers: { 'x-admin-key': service.get().service.adminKey, 'content-type': type },
        rawBody: JSON.stringify({ email: `${type.length}-typed@example.com`, name: 'Typed' }),
      });

      expect(answer.status).toBe(201);
    },
  );

  it('reads a body sent without a Content-Type as JSON', async () => {
    const response = await fetch(`${service.get().url}/api/v1/admin/users`, {
      method: 'POST',
      headers: { 'x-admin-key': service.get().service.adminKey },
      body: new Blob(['{"email":"untyped@example.com","name":"Untyped"}']),
    });

    expect(response.status).toBe(201);
  });

  it('answers headers over 16 KB with 431 in the error shape', async () => {
    const answer = await request(service.get().url, 'GET', '/api/health', {
      headers: { 'x-padding': 'a'.repeat(20 * 1024) },
    });

    expect(answer.status).toBe(431);
    expect(answer.body).toEqual({
      error: 'Request headers are larger than 16 KB',
      code: 'HEADERS_TOO_LARGE',
    });
  });

  it('answers malformed HTTP with 400 in the error shape', async () => {
    const answer = await rawRequest(
      { method: 'GET', path: '/api/health', headers: { 'transfer-encoding': 'x' } },
      (outgoing) => outgoing.end(),
    );

    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toEqual({ error: 'Malformed HTTP request', code: 'VALIDATION_ERROR' });
  });

  it('answers query parameters named like object members as any other', async () => {
    const names = ['__proto__', 'constructor', 'valueOf', 'toString', 'hasOwnProperty'];
    for (const name of names) {
      const answer = await request(service.get().url, 'GET', `/api/workspaces?${name}=x&${name}=y`, {
        headers: { 'x-api-key': 'sk-not-a-key' },
      });

      expect(answer.status, name).toBe(401);
    }
  });

  it('answers malformed, repeated and unknown query parameters below 500 in the error shape', async () => {
    const tenant = await service.get().newTenant('query');
    const queries = [
      'workspaceId=%',
      'workspaceId=%E0%A4%A&x=%FF',
      '=&&=&workspaceId',
      'workspaceId=a&workspaceId=b',
    ];
    for (const query of queries) {
      const answer = await request(service.get().url, 'GET', `/api/workflows?${query}&unknown=1`, {
        headers: { 'x-api-key': tenant.apiKey },
      });

      expect(answer.status, query).toBeGreaterThanOrEqual(400);
      expect(answer.status, query).toBeLessThan(500);
      expect(strictObject(errorBody.shape).safeParse(answer.body).error).toBeUndefined();
    }
  });
});
