/**
 * Fuzzing every route of the route table, so a route added tomorrow is covered without anyone
 * remembering it: generated bad requests (hostile path parameters, query strings, bodies, media
 * types and credentials) must each get an answer below 500 in the error shape, and the server
 * must be healthy afterwards. The seed is random on purpose; a failure prints its seed and
 * counterexample, which `fc.assert(..., { seed, path })` replays.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { type RouteDefinition, routes } from '../../catalog/routes';
import { strictObject } from '../../catalog/zod';
import { errorBody } from '../../catalog/schemas';
import { type Tenant, useLocalService } from '../support/service';

const service = useLocalService();
const totalRequests = 1000;

let tenant: Tenant;
let echoWorkflowId: string;
let otherWorkflowId: string;

/**
 * A workflow that cannot fail on what the fuzzer sends: the run's answer is its input. (Strings stay
 * far below the 5 MB a block may output, past which even an echo fails.)
 */
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
      arbitrary: fc.constantFrom(
        '%',
        '%E0%A4%A',
        '%FF%FE',
        '%C0%AF',
        '%ED%A0%80',
        '%zz',
        '%2F',
        '%2e%2e',
        '%25',
        '%252F',
        '%41'.repeat(3000),
      ),
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

const queryParameters = fc.dictionary(
  fc.oneof(
    fc.constantFrom('workspaceId', 'userId', 'limit', 'cursor', 'name'),
    fc.constantFrom('__proto__', 'constructor', 'valueOf', 'toString', 'hasOwnProperty'),
    fc.string({ maxLength: 10 }),
  ),
  fc.oneof(hostileText, fc.constant(workspacePlaceholder)),
  { maxKeys: 4 },
);

/** Query strings as sent on the wire, some that no URLSearchParams would write. */
const query = fc.oneof(
  { weight: 4, arbitrary: queryParameters.map(encodeQuery) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '%',
      'workspaceId=%',
      'workspaceId=%E0%A4%A&userId=%FF',
      '=&&=&workspaceId',
      `workspaceId=${workspacePlaceholder}&workspaceId=b`,
      'a[b]=1&a[c][d]=2',
      '__proto__[isAdmin]=true',
      `userId=${'x'.repeat(4000)}`,
    ),
  },
);

function encodeQuery(parameters: Record<string, string>): string {
  return new URLSearchParams(Object.entries(parameters)).toString();
}

/** Bodies: JSON of every shape, near-valid objects, invalid JSON, deep nesting, big strings. */
/** JSON text nested past the limit inside a string, which object and array inputs parse. */
const deepJsonText = fc
  .integer({ min: 101, max: 6000 })
  .map((depth) => '['.repeat(depth) + ']'.repeat(depth));

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
          'stream',
          'selectedOutputs',
        ),
        fc.oneof(fc.jsonValue({ maxDepth: 3 }), hostileText, fc.constant(echoGraph), deepJsonText),
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

const otherContentType = fc.constantFrom(
  'text/plain',
  'application/xml',
  'application/octet-stream',
  'multipart/form-data; boundary=x',
  'application/x-www-form-urlencoded',
);

// JSON types are drawn more often, so that most bodies get past the media type to the schemas.
const contentType = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('application/json', 'application/json; charset=utf-8', undefined) },
  { weight: 1, arbitrary: fc.constantFrom('application/problem+json', 'text/json', 'application/jsonx') },
  { weight: 2, arbitrary: otherContentType },
);

// The route's own key is drawn most often, so that most requests get past auth to validation.
const credentials = fc.oneof(
  { weight: 3, arbitrary: fc.constant('route key') },
  { weight: 2, arbitrary: fc.constantFrom('none', 'bad key', 'admin', 'api key', 'both') },
);

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

function headersFor(
  route: RouteDefinition,
  drawn: string,
  contentType: string | undefined,
): Record<string, string> {
  const headers: Record<string, string> = {};
  const credentials =
    drawn === 'route key' ? { admin: 'admin', apiKey: 'api key', none: 'none' }[route.auth] : drawn;
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
          const search = query
            .replaceAll(encodeURIComponent(workspacePlaceholder), tenant.workspaceId)
            .replaceAll(workspacePlaceholder, tenant.workspaceId);
          const response = await fetch(`${service.get().url}${path}${search ? `?${search}` : ''}`, {
            method: route.method,
            headers: headersFor(route, credentials, contentType),
            body: route.method === 'GET' ? undefined : body,
          });
          const text = await response.text();
          sent += 1;
          expect(response.status, `${route.method} ${path} → ${text.slice(0, 300)}`).toBeLessThan(500);
          if (response.status >= 400) {
            expect(response.headers.get('content-type'), text.slice(0, 300)).toMatch(/^application\/json/);
            expect(
              strictObject(errorBody.shape).safeParse(JSON.parse(text)).error,
              text.slice(0, 300),
            ).toBeUndefined();
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
