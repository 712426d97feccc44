/**
 * Fuzzing every route of the route table, so a route added tomorrow is covered without anyone
 * remembering it: generated bad requests (hostile path parameters, query strings, bodies, media
 * types and credentials) must each get an answer below 500 in the error shape, and the server
 * must be healthy afterwards.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { type RouteDefinition, routes } from '../../catalog/routes';
import { type Tenant, useLocalService } from '../support/service';

const service = useLocalService();
const totalRequests = 1000;

let tenant: Tenant;
let echoWorkflowId: string;
let otherWorkflowId: string;

/** A workflow that cannot fail whatever its input: the run's answer is its input. */
const echoGraph = {
  blocks: {
    start: {
      id: 'start',
      type: 'start',
      name: 'Start',
      config: {
        inputFormat: [
          { name: 'name', type: 'string' },
          { name: 'count', type: 'number' },
          { name: 'data', type: 'object' },
        ],
      },
    },
    reply: { id: 'reply', type: 'response', name: 'Reply', config: { data: '<start.input>' } },
  },
  edges: [{ id: 'e1', source: 'start', target: 'reply', sourceHandle: 'source' }],
  loops: {},
  parallels: {},
};

beforeAll(async () => {
  tenant = await service.get().newTenant('fuzz');
  const echo = await tenant.call('POST', '/api/workflows', {
    workspaceId: tenant.workspaceId,
    name: 'Echo',
    state: echoGraph,
  });
  echoWorkflowId = echo.body.data.id;
  await tenant.call('POST', `/api/workflows/${echoWorkflowId}/deploy`);
  const other = await tenant.call('POST', '/api/workflows', {
    workspaceId: tenant.workspaceId,
    name: 'Other',
    state: echoGraph,
  });
  otherWorkflowId = other.body.data.id;
});

const hostileText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom(
    '',
    ' ',
    '..',
    '../..',
    'null',
    'undefined',
    '0',
    '-1',
    '1e309',
    'NaN',
    'true',
    '[]',
    '{}',
    '__proto__',
    'constructor',
    '%00',
    '\u0000',
    'a'.repeat(5000),
  ),
);

/** Raw path segments, some with malformed percent-encoding that must not be decoded blindly. */
const pathSegment = (route: RouteDefinition, name: string) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...validIdsFor(route, name)).map(encodeURIComponent) },
    { weight: 3, arbitrary: hostileText.map(encodeURIComponent) },
    {
      weight: 2,
      arbitrary: fc.constantFrom('%', '%E0%A4%A', '%FF%FE', '%C0%AF', '%zz', '%2F', '%2e%2e', '%25'),
    },
  );

function validIdsFor(route: RouteDefinition, name: string): string[] {
  if (name === 'workflowId') return route.id === 'executeWorkflow' ? [echoWorkflowId] : [otherWorkflowId];
  if (name === 'workspaceId') return [tenant.workspaceId];
  if (name === 'userId') return [tenant.userId];
  return ['anything'];
}

/** Stands for the tenant's workspace id, which exists only once the service has started. */
const workspacePlaceholder = '<workspace>';

const query = fc.dictionary(
  fc.oneof(
    fc.constantFrom('workspaceId', 'userId', 'limit', 'cursor', 'name'),
    fc.constantFrom('__proto__', 'constructor', 'valueOf', 'toString', 'hasOwnProperty'),
    fc.string({ maxLength: 10 }),
  ),
  fc.oneof(hostileText, fc.constant(workspacePlaceholder)),
  { maxKeys: 4 },
);

/** Bodies: JSON of every shape, near-valid objects, invalid JSON, deep nesting, big strings. */
const body = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value)) },
  {
    weight: 4,
    arbitrary: fc
      .dictionary(
        fc.constantFrom(
          'workspaceId',
          'name',
          'state',
          'email',
          'plan',
          'userId',
          'role',
          'permissions',
          'ownerId',
          'value',
          'description',
          'deploy',
          'count',
          'data',
        ),
        fc.oneof(fc.jsonValue({ maxDepth: 3 }), hostileText, fc.constant(echoGraph)),
        { maxKeys: 5 },
      )
      .map((value) => JSON.stringify(value)),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom('{', '{"a":', '[1,]', 'nul', '"', '\u0000', '{"a":1}{"b":2}', '\ufeff{}'),
  },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 101, max: 6000 }).map((depth) => '['.repeat(depth) + ']'.repeat(depth)),
  },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 1, max: 300_000 }).map((size) => JSON.stringify({ name: 'x'.repeat(size) })),
  },
  { weight: 1, arbitrary: fc.constant(undefined) },
);

const contentType = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  undefined,
  'text/plain',
  'application/xml',
  'application/octet-stream',
  'multipart/form-data; boundary=x',
  'application/x-www-form-urlencoded',
);

const credentials = fc.constantFrom('none', 'bad key', 'admin', 'api key', 'both');

const routeById = new Map((routes as readonly RouteDefinition[]).map((route) => [route.id, route]));

// Routes are drawn by id, so that a failing case reads as a route id and not as its schemas.
const fuzzedRequest = fc.constantFrom(...routeById.keys()).chain((routeId) => {
  const route = routeById.get(routeId)!;
  const names = [...route.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
  return fc.record({
    routeId: fc.constant(routeId),
    segments: fc.tuple(...names.map((name) => pathSegment(route, name))),
    query,
    body,
    contentType,
    credentials,
  });
});

function headersFor(credentials: string, contentType: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  if (contentType) headers['content-type'] = contentType;
  if (credentials === 'bad key') headers['x-api-key'] = 'sk-not-a-key';
  if (credentials === 'admin' || credentials === 'both')
    headers['x-admin-key'] = service.get().service.adminKey;
  if (credentials === 'api key' || credentials === 'both') headers['x-api-key'] = tenant.apiKey;
  return headers;
}

describe('route fuzzing', () => {
  it(`answers ${totalRequests} generated bad requests across every route below 500, and stays healthy`, async () => {
    let sent = 0;
    await fc.assert(
      fc.asyncProperty(
        fuzzedRequest,
        async ({ routeId, segments, query, body, contentType, credentials }) => {
          const route = routeById.get(routeId)!;
          let index = 0;
          const path = route.path.replace(/\{\w+\}/g, () => segments[index++]);
          const values = Object.entries(query).map(([name, value]): [string, string] => [
            name,
            value === workspacePlaceholder ? tenant.workspaceId : value,
          ]);
          const search = new URLSearchParams(values).toString();
          const response = await fetch(`${service.get().url}${path}${search ? `?${search}` : ''}`, {
            method: route.method,
            headers: headersFor(credentials, contentType),
            body: route.method === 'GET' ? undefined : body,
          });
          const text = await response.text();
          sent += 1;
          expect(response.status, `${route.method} ${path} → ${text.slice(0, 300)}`).toBeLessThan(500);
          if (response.status >= 400) {
            expect(JSON.parse(text)).toMatchObject({ error: expect.any(String), code: expect.any(String) });
          }
        },
      ),
      { numRuns: totalRequests },
    );

    expect(sent).toBe(totalRequests);
    const health = await fetch(`${service.get().url}/api/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
  }, 180_000);
});
