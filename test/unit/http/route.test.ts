import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { adminRoutes } from '../../../catalog/admin-routes';
import { serviceRoutes } from '../../../catalog/service-routes';
import { ServiceError, ValidationError } from '../../../core/errors';
import { forgetAdminKey, sameKey } from '../../../functions/http/admin-key';
import { loggerOf } from '../../../functions/http/logger';
import { errorResponse } from '../../../functions/http/responses';
import { httpRoute, publicRoute } from '../../../functions/http/route';
import { lambdaContext, proxyEvent } from './proxy-event';
import { changeSettings } from '../../support/settings';

const context = lambdaContext;
const event = proxyEvent;
// A failed authentication takes a token of its source address: the store admits it here.
const dynamo = mockClient(DynamoDBDocumentClient);

describe('httpRoute', () => {
  beforeEach(() => {
    process.env.ADMIN_API_KEY = 'unit-admin-key';
    process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
    process.env.LIMITS_TABLE = 'limits';
    changeSettings({ RATE_LIMITS_JSON: undefined });
    forgetAdminKey();
    dynamo.reset();
    dynamo.on(UpdateCommand).callsFake((input) => {
      const values = input.ExpressionAttributeValues;
      const tat = input.ExpressionAttributeNames['#tat'];
      return { Attributes: { [tat]: values[':next'] ?? values[':now'] + values[':interval'] } };
    });
  });
  afterAll(() => dynamo.restore());

  it('answers JSON with the status the route function returns', async () => {
    const handler = httpRoute(serviceRoutes, 'getHealth', async () => ({
      statusCode: 200,
      body: { status: 'ok' },
    }));
    const result = await handler(event({ httpMethod: 'GET' }), context);
    expect(result.statusCode).toBe(200);
    expect(result.headers?.['content-type']).toBe('application/json');
    expect(JSON.parse(result.body)).toEqual({ status: 'ok' });
  });

  it('checks the admin key before it reads the body', async () => {
    const handler = httpRoute(adminRoutes, 'adminCreateUser', async () => ({ statusCode: 201, body: {} }));
    const result = await handler(event({ body: '{broken' }), context);
    expect(result.statusCode).toBe(401);
    // The default of 20 failures per address, one of them taken.
    expect(result.headers?.['X-RateLimit-Remaining']).toBe('19');
  });

  it('accepts the admin key header in any case', async () => {
    const handler = httpRoute(adminRoutes, 'adminCreateUser', async ({ body }) => ({
      statusCode: 201,
      body,
    }));
    const result = await handler(
      event({
        headers: { 'X-Admin-Key': 'unit-admin-key' },
        body: JSON.stringify({ email: 'a@b.co', name: 'A' }),
      }),
      context,
    );
    expect(result.statusCode).toBe(201);
    expect(JSON.parse(result.body)).toEqual({ email: 'a@b.co', name: 'A' });
  });

  it('maps invalid JSON to 400 INVALID_JSON', async () => {
    const handler = httpRoute(adminRoutes, 'adminCreateUser', async () => ({ statusCode: 201, body: {} }));
    const result = await handler(
      event({ headers: { 'x-admin-key': 'unit-admin-key' }, body: '{"a":' }),
      context,
    );
    expect(result.statusCode).toBe(400);
    expect(JSON.parse(result.body).code).toBe('INVALID_JSON');
  });

  it('maps a zod failure to 400 with every field path', async () => {
    const handler = httpRoute(adminRoutes, 'adminCreateUser', async () => ({ statusCode: 201, body: {} }));
    const result = await handler(
      event({
        headers: { 'x-admin-key': 'unit-admin-key' },
        body: JSON.stringify({ email: 'nope', plan: 'gold' }),
      }),
      context,
    );
    const body = JSON.parse(result.body);
    expect(result.statusCode).toBe(400);
    expect(body.code).toBe('VALIDATION_ERROR');
    expect(body.details.map((detail: { path: string }) => detail.path).sort()).toEqual([
      'email',
      'name',
      'plan',
    ]);
  });

  it('answers an unexpected error as a plain 500 without internals', async () => {
    const handler = httpRoute(serviceRoutes, 'getHealth', async () => {
      throw new Error('connection string postgres://secret@db');
    });
    const result = await handler(event({ httpMethod: 'GET' }), context);
    expect(result.statusCode).toBe(500);
    expect(JSON.parse(result.body)).toEqual({ error: 'Internal server error', code: 'INTERNAL_ERROR' });
  });
});

describe('errorResponse', () => {
  it('shows errors below 500 with their code, details and headers', () => {
    const response = errorResponse(new ValidationError('Bad', [{ path: 'a', message: 'Required' }]));
    expect(response).toMatchObject({
      statusCode: 400,
      body: { error: 'Bad', code: 'VALIDATION_ERROR', details: [{ path: 'a' }] },
    });
  });

  it('hides a service error of 500 or more', () => {
    const response = errorResponse(new ServiceError('database password is hunter2', 503, 'UNAVAILABLE'));
    expect(response.statusCode).toBe(500);
    expect(JSON.stringify(response.body)).not.toContain('hunter2');
  });
});

describe('sameKey', () => {
  it('accepts the same key and refuses any other, whatever its length', () => {
    expect(sameKey('abc', 'abc')).toBe(true);
    expect(sameKey('abd', 'abc')).toBe(false);
    expect(sameKey('a', 'abc')).toBe(false);
    expect(sameKey('', 'abc')).toBe(false);
  });
});

describe('logger', () => {
  it('keeps the keys of concurrent invocations apart', async () => {
    const lines: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((chunk: string) => lines.push(String(chunk)) > 0) as typeof process.stdout.write;
    const run = async (executionId: string, delayInMs: number) => {
      const invocationLogger = loggerOf({ awsRequestId: executionId });
      invocationLogger.setLogLevel('INFO');
      invocationLogger.appendKeys({ executionId });
      await new Promise((resolve) => setTimeout(resolve, delayInMs));
      invocationLogger.info('done');
    };
    try {
      await Promise.all([run('first', 20), run('second', 1)]);
    } finally {
      process.stdout.write = write;
    }
    const logged = lines.map((line) => JSON.parse(line)).filter((line) => line.message === 'done');
    expect(logged.map((line) => line.executionId).sort()).toEqual(['first', 'second']);
  });

  it("prints an invocation's entries on stdout as one JSON line each, with the service and level", async () => {
    // Prepare
    const lines: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((chunk: string) => lines.push(String(chunk)) > 0) as typeof process.stdout.write;
    const run = async () => {
      const invocationLogger = loggerOf({});
      invocationLogger.setLogLevel('INFO');
      invocationLogger.appendKeys({ executionId: 'exe_1' });
      invocationLogger.info('slow step', { stepInMs: 12 });
    };

    // Act
    try {
      await run();
    } finally {
      process.stdout.write = write;
    }

    // Assess
    expect(lines).toHaveLength(1);
    expect(lines[0].endsWith('\n')).toBe(true);
    expect(lines[0].trim().includes('\n')).toBe(false);
    expect(JSON.parse(lines[0])).toMatchObject({
      level: 'INFO',
      message: 'slow step',
      service: 'workflow-service',
      executionId: 'exe_1',
      stepInMs: 12,
    });
  });
});

describe('publicRoute', () => {
  beforeEach(() => {
    process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
    process.env.LIMITS_TABLE = 'limits';
    changeSettings({ RATE_LIMITS_JSON: undefined });
  });

  it('answers a route that takes no credentials, without asking for any', async () => {
    // Prepare
    const handler = publicRoute(serviceRoutes, 'getHealth', async () => ({
      statusCode: 200,
      body: { status: 'ok' },
    }));

    // Act
    const result = await handler(event({ httpMethod: 'GET' }), context);

    // Assess
    expect(result.statusCode).toBe(200);
    expect(JSON.parse(result.body)).toEqual({ status: 'ok' });
  });

  it('refuses at start a route that takes credentials', () => {
    // Act
    const serving = () =>
      // @ts-expect-error: the route table says adminCreateUser takes the admin key
      publicRoute(adminRoutes, 'adminCreateUser', async () => ({ statusCode: 201, body: {} }));

    // Assess
    expect(serving).toThrow('Route adminCreateUser takes credentials: serve it with httpRoute');
  });
});
