/**
 * Bad input is the caller's error: malformed paths, deep or oversized bodies and wrong media types
 * get a 4xx with the error body, never a 500, and the connection stays usable.
 */
import { Agent, request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import { routes } from '../../../catalog/routes';
import { deployedWorkflow, request, useLocalService } from '../../support/service';

const service = useLocalService();

const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

interface RawAnswer {
  status: number;
  body: string;
  socketId: number;
}

/** Sends on an agent that keeps one connection, and tells which connection answered. */
function rawRequest(agent: Agent, method: string, path: string, body?: string | Buffer): Promise<RawAnswer> {
  const url = new URL(path, service.get().url);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      url,
      {
        method,
        agent,
        headers: body ? { 'content-type': 'application/json', 'x-admin-key': 'test-admin-key' } : {},
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            body: Buffer.concat(chunks).toString('utf8'),
            socketId: (outgoing.socket as unknown as { id?: number }).id ?? -1,
          }),
        );
      },
    );
    outgoing.on('socket', (socket) => {
      const tagged = socket as unknown as { id?: number };
      tagged.id ??= Math.random();
    });
    outgoing.on('error', reject);
    outgoing.setTimeout(10_000, () => outgoing.destroy(new Error('timed out')));
    outgoing.end(body);
  });
}

/** An oversized body, then a health check, on an agent that keeps one connection when it can. */
async function oversizedBodyThenHealth(
  sizeInBytes: number,
): Promise<{ tooLarge: RawAnswer | Error; next: RawAnswer }> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const body = Buffer.alloc(sizeInBytes, 0x20);
    const tooLarge = await rawRequest(agent, 'POST', '/api/v1/admin/users', body).catch(
      (error: Error) => error,
    );
    return { tooLarge, next: await rawRequest(agent, 'GET', '/api/health') };
  } finally {
    agent.destroy();
  }
}

const parameterised = routes.filter((route) => route.path.includes('{'));

describe('bad input', () => {
  it.each(['%E0%A4%A', '%FF%FE', '%'])(
    'answers malformed percent-encoding %s with 400 on every parameterised route',
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
        error: 'Request body is nested deeper than 100 levels',
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

  it('answers the next request on the same connection after a 413', async () => {
    const { tooLarge, next } = await oversizedBodyThenHealth(11 * 1024 * 1024);

    expect(tooLarge).toMatchObject({ status: 413 });
    expect(JSON.parse((tooLarge as RawAnswer).body)).toEqual({
      error: 'Request body is larger than 10 MB',
      code: 'PAYLOAD_TOO_LARGE',
    });
    expect(next.status).toBe(200);
    expect(next.socketId).toBe((tooLarge as RawAnswer).socketId);
  });

  it('closes the connection after a 413 for a body far over the limit, and a new one is answered', async () => {
    const { tooLarge, next } = await oversizedBodyThenHealth(48 * 1024 * 1024);

    // The client may still be sending when the connection closes: then it sees no answer at all.
    if (!(tooLarge instanceof Error)) expect(tooLarge.status).toBe(413);
    expect(next.status).toBe(200);
  });

  it.each(['text/plain', 'application/xml', 'application/octet-stream'])(
    'answers a JSON route sent %s with 415',
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

  it('answers query parameters named like object members as any other', async () => {
    const names = ['__proto__', 'constructor', 'valueOf', 'toString', 'hasOwnProperty'];
    for (const name of names) {
      const answer = await request(service.get().url, 'GET', `/api/workspaces?${name}=x&${name}=y`, {
        headers: { 'x-api-key': 'sk-not-a-key' },
      });
      expect(answer.status, name).toBe(401);
    }
  });

  it('reads a body sent without a Content-Type as JSON', async () => {
    const response = await fetch(`${service.get().url}/api/v1/admin/users`, {
      method: 'POST',
      headers: { 'x-admin-key': service.get().service.adminKey },
      body: new Blob(['{"email":"untyped@example.com","name":"Untyped"}']),
    });

    expect(response.status).toBe(201);
  });
});
