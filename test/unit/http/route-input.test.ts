/**
 * What httpRoute makes of odd input as a Lambda receives it from API Gateway, without the local
 * server in front: path parameters still percent-encoded, headers without values, bodies of the
 * wrong type or depth, schemas that throw.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { beforeEach, expect, it } from 'vitest';
import { z } from 'zod';
import { adminRoutes } from '../../../catalog/admin-routes';
import { forgetAdminKey } from '../../../functions/http/admin-key';
import { maxJsonDepth } from '../../../core/json-depth';
import { httpRoute, validate } from '../../../functions/http/route';
import { lambdaContext, proxyEvent } from './proxy-event';

const adminKey = 'unit-admin-key';
const context = lambdaContext;

function event(overrides: Partial<APIGatewayProxyEvent>): APIGatewayProxyEvent {
  return proxyEvent({
    resource: '/api/v1/admin/users/{userId}/api-keys',
    path: '/api/v1/admin/users/x/api-keys',
    headers: { 'x-admin-key': adminKey },
    pathParameters: { userId: 'usr_1' },
    body: '{}',
    ...overrides,
  });
}

/** A route with a path parameter and a body that answers what it was given. */
const echo = httpRoute(adminRoutes, 'adminCreateApiKey', async ({ params, body }) => ({
  statusCode: 201,
  body: { params, body },
}));

async function call(overrides: Partial<APIGatewayProxyEvent>) {
  const result = await echo(event(overrides), context);
  return { status: result.statusCode, body: JSON.parse(result.body) };
}

beforeEach(() => {
  process.env.ADMIN_API_KEY = adminKey;
  process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
  forgetAdminKey();
});

it('decodes a percent-encoded path parameter once before the route sees it', async () => {
  const answer = await call({ pathParameters: { userId: 'usr%2Fa%20b%2525' } });

  expect(answer.status).toBe(201);
  expect(answer.body.params).toEqual({ userId: 'usr/a b%25' });
});

it.each(['%E0%A4%A', '%FF%FE', '%', 'usr%zz', '%ED%A0%80'])(
  'answers the malformed path parameter %s with 400 naming it',
  async (userId) => {
    const answer = await call({ pathParameters: { userId } });

    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({
      error: 'Invalid path parameter "userId": malformed percent-encoding',
      code: 'VALIDATION_ERROR',
      details: [{ path: 'userId', message: 'Malformed percent-encoding' }],
    });
  },
);

it('answers a malformed path parameter with 400 before it checks the key', async () => {
  const answer = await call({ headers: {}, pathParameters: { userId: '%' } });

  expect(answer.status).toBe(400);
});

it('answers a missing path parameter as a validation error', async () => {
  const answer = await call({ pathParameters: null });

  expect(answer.status).toBe(400);
  expect(answer.body).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'userId' }] });
});

it('takes a header without a value as absent', async () => {
  const headers = {
    'x-admin-key': adminKey,
    'Content-Type': null,
  } as unknown as APIGatewayProxyEvent['headers'];

  const answer = await call({ headers, body: '{"name":"k"}' });

  expect(answer.status).toBe(201);
  expect(answer.body.body).toEqual({ name: 'k' });
});

it('answers a body of another media type with 415 naming application/json', async () => {
  const answer = await call({
    headers: { 'x-admin-key': adminKey, 'Content-Type': 'text/xml' },
    body: '<a/>',
  });

  expect(answer.status).toBe(415);
  expect(answer.body).toEqual({
    error: 'Content-Type "text/xml" is not supported: send the body as application/json',
    code: 'UNSUPPORTED_MEDIA_TYPE',
  });
});

it('answers a base64 body nested beyond the limit with 400 INVALID_JSON', async () => {
  const deep = '['.repeat(maxJsonDepth + 1) + ']'.repeat(maxJsonDepth + 1);

  const answer = await call({ body: Buffer.from(deep).toString('base64'), isBase64Encoded: true });

  expect(answer).toEqual({
    status: 400,
    body: { error: `Request body is nested deeper than ${maxJsonDepth} levels`, code: 'INVALID_JSON' },
  });
});

it('answers a schema that throws on the input with 400 and keeps its message internal', () => {
  const throwing = z.string().transform((): string => {
    throw new TypeError('Cannot read properties of undefined (reading "secret")');
  });

  const act = () => validate(throwing, 'x', 'body');

  expect(act).toThrow(
    expect.objectContaining({ statusCode: 400, code: 'VALIDATION_ERROR', message: 'Invalid body' }),
  );
});
