import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { serviceRoutes } from '../../../catalog/service-routes';
import { logger, logInvocation, loggerOf } from '../../../functions/http/logger';
import { publicRoute } from '../../../functions/http/route';
import { proxyEvent } from './proxy-event';

function contextOf(awsRequestId: string): Context {
  return {
    functionName: 'getHealth',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:getHealth',
    memoryLimitInMB: '256',
    awsRequestId,
    getRemainingTimeInMillis: () => 1000,
  } as unknown as Context;
}

const pause = (delayInMs: number) => new Promise((resolve) => setTimeout(resolve, delayInMs));

describe('loggerOf and logInvocation', () => {
  let lines: Record<string, unknown>[];
  const writeOut = process.stdout.write.bind(process.stdout);
  const writeError = process.stderr.write.bind(process.stderr);

  beforeEach(() => {
    lines = [];
    // Powertools prints errors on stderr, everything else on stdout.
    const capture = ((chunk: string) =>
      lines.push(JSON.parse(String(chunk))) > 0) as typeof process.stdout.write;
    process.stdout.write = capture;
    process.stderr.write = capture;
    logger.setLogLevel('INFO');
  });
  afterEach(() => {
    process.stdout.write = writeOut;
    process.stderr.write = writeError;
    logger.setLogLevel('SILENT');
    vi.unstubAllEnvs();
  });

  it("keeps each concurrent route invocation's keys and request id on its own lines", async () => {
    // Prepare
    const handler = publicRoute(serviceRoutes, 'getHealth', async ({ logger: invocationLogger, headers }) => {
      invocationLogger.appendKeys({ executionId: headers['x-run'] });
      await pause(Number(headers['x-delay']));
      invocationLogger.info('Run finished');
      return { statusCode: 200, body: { status: 'ok' } };
    });

    // Act
    await Promise.all([
      handler(
        proxyEvent({ httpMethod: 'GET', headers: { 'x-run': 'exe_1', 'x-delay': '20' } }),
        contextOf('req-1'),
      ),
      handler(
        proxyEvent({ httpMethod: 'GET', headers: { 'x-run': 'exe_2', 'x-delay': '1' } }),
        contextOf('req-2'),
      ),
    ]);

    // Assess
    const finished = lines.filter((line) => line.message === 'Run finished');
    expect(finished.map((line) => [line.executionId, line.function_request_id])).toEqual([
      ['exe_2', 'req-2'],
      ['exe_1', 'req-1'],
    ]);
    expect(finished[0]).toMatchObject({
      function_name: 'getHealth',
      service: 'workflow-service',
      level: 'INFO',
    });
  });

  it('puts the keys a route appended on the line of its failure', async () => {
    // Prepare
    const handler = publicRoute(serviceRoutes, 'getHealth', async ({ logger: invocationLogger }) => {
      invocationLogger.appendKeys({ executionId: 'exe_9' });
      throw new Error('disk on fire');
    });

    // Act
    const result = await handler(proxyEvent({ httpMethod: 'GET' }), contextOf('req-9'));

    // Assess
    expect(result.statusCode).toBe(500);
    expect(lines.find((line) => line.message === 'Request failed')).toMatchObject({
      level: 'ERROR',
      executionId: 'exe_9',
      function_request_id: 'req-9',
    });
  });

  it('gives a new invocation a new logger even when its context object served one before', async () => {
    // Prepare
    const context = contextOf('req-1');
    const handler = middy(async (event: { executionId?: string }, invocationContext: Context) => {
      const invocationLogger = loggerOf(invocationContext);
      if (event.executionId) invocationLogger.appendKeys({ executionId: event.executionId });
      invocationLogger.info('Step ended');
    }).use(logInvocation());

    // Act
    await handler({ executionId: 'exe_1' }, context);
    await handler({}, context);

    // Assess
    const ended = lines.filter((line) => line.message === 'Step ended');
    expect(ended).toHaveLength(2);
    expect(ended[0].executionId).toBe('exe_1');
    expect(ended[1]).not.toHaveProperty('executionId');
    expect(ended[1].function_request_id).toBe('req-1');
  });

  it("hands an ended invocation's logger to the next one, with none of its keys", async () => {
    // Prepare
    const used: unknown[] = [];
    const handler = middy(async (event: { executionId?: string }, invocationContext: Context) => {
      const invocationLogger = loggerOf(invocationContext);
      used.push(invocationLogger);
      if (event.executionId) invocationLogger.appendKeys({ executionId: event.executionId });
      invocationLogger.info('Step ended');
    }).use(logInvocation());

    // Act
    await handler({ executionId: 'exe_1' }, contextOf('req-1'));
    await handler({}, contextOf('req-2'));

    // Assess
    expect(used[1]).toBe(used[0]);
    const ended = lines.filter((line) => line.message === 'Step ended');
    expect(ended[1]).not.toHaveProperty('executionId');
    expect(ended[1].function_request_id).toBe('req-2');
  });

  it("hands a failed invocation's logger on too, with none of its keys", async () => {
    // Prepare
    const handler = middy(async (event: { executionId?: string }, invocationContext: Context) => {
      const invocationLogger = loggerOf(invocationContext);
      if (event.executionId) {
        invocationLogger.appendKeys({ executionId: event.executionId });
        throw new Error('disk on fire');
      }
      invocationLogger.info('Step ended');
    }).use(logInvocation());

    // Act
    const failure = await handler({ executionId: 'exe_1' }, contextOf('req-1')).catch(
      (error: Error) => error,
    );
    await handler({}, contextOf('req-2'));

    // Assess
    expect(failure).toBeInstanceOf(Error);
    const ended = lines.filter((line) => line.message === 'Step ended');
    expect(ended).toHaveLength(1);
    expect(ended[0]).not.toHaveProperty('executionId');
    expect(ended[0].function_request_id).toBe('req-2');
  });

  it("says cold_start on the process's first invocation only, whichever logger serves it", async () => {
    // Prepare
    vi.stubEnv('AWS_LAMBDA_INITIALIZATION_TYPE', 'on-demand');
    vi.resetModules();
    const fresh = await import('../../../functions/http/logger');
    fresh.logger.setLogLevel('INFO');
    const handler = middy(async (_event: unknown, invocationContext: Context) => {
      fresh.loggerOf(invocationContext).info('Step ended');
    }).use(fresh.logInvocation());

    // Act
    await Promise.all([handler({}, contextOf('req-1')), handler({}, contextOf('req-2'))]);
    await handler({}, contextOf('req-3'));

    // Assess
    const ended = lines.filter((line) => line.message === 'Step ended');
    expect(ended.map((line) => [line.function_request_id, line.cold_start])).toEqual([
      ['req-1', true],
      ['req-2', false],
      ['req-3', false],
    ]);
  });
});
