/**
 * The synthesized stacks match the catalog: one function per route and worker, every route on the
 * REST API wired to its own function, the tables, queues and bucket as the catalog and the design
 * ask, and the two state machines built from the one definition.
 */
import { Stack } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { executionDefinition } from '../../catalog/execution-definition';
import { defaultStepBudgetInMs, expressExecutionLimitInSeconds } from '../../catalog/function-defaults';
import { stepBudgetInMs } from '../../functions/wiring/step';
import {
  buckets,
  keys,
  logRetention,
  logSummaryAttributes,
  queues,
  secrets,
  tables,
} from '../../catalog/resources';
import { type RouteDefinition, routeAccess, routes, workers } from '../../catalog/routes';
import { apiStageName, apiThrottling } from '../../lib/api-stack';
import {
  defaultMemoryInMb,
  defaultTimeoutInSeconds,
  type ServiceFunction,
  serviceName,
} from '../../lib/constructs/service-function';
import { edgeSecretEnvVar } from '../../catalog/site';
import { routeFunctionName } from '../../lib/route-functions-stack';
import { adminKeySecretEnvVar } from '../../lib/service-resources';
import { type CfnResource, logicalIdOf, ofType, synthesizeApp } from './app';

const allRoutes = routes as readonly RouteDefinition[];
const synthesized = synthesizeApp();
const { stacks, all, byStack } = synthesized;

function routeFunction(route: RouteDefinition): ServiceFunction {
  return stacks.routes[route.tag].functions[route.id];
}

function functionNameOf(route: RouteDefinition): string {
  return routeFunctionName(stacks.routes[route.tag].stackName, route.id);
}

function resourceOf(fn: ServiceFunction): CfnResource {
  const stack = Stack.of(fn);
  return byStack(stack).resources[logicalIdOf(fn.function)];
}

/** Expected environment variable names of a function with the given access. */
function envVarsFor(access: RouteDefinition['access']): string[] {
  // Limits kept on user and organization items need the entities table's name, once.
  const tableNames = new Set([
    ...Object.keys(access.tables ?? {}),
    ...(access.ownerLimits ? ['entities'] : []),
  ]);
  return [
    ...[...tableNames].map((name) => tables[name as keyof typeof tables].envVar),
    ...Object.keys(access.buckets ?? {}).map((name) => buckets[name as keyof typeof buckets].envVar),
    ...Object.keys(access.queues ?? {}).map((name) => queues[name as keyof typeof queues].envVar),
    ...Object.keys(access.stateMachines ?? {}).map(
      (name) =>
        ({
          executionSync: 'EXECUTION_SYNC_STATE_MACHINE_ARN',
          executionAsync: 'EXECUTION_ASYNC_STATE_MACHINE_ARN',
        })[name as 'executionSync' | 'executionAsync'],
    ),
    ...Object.keys(access.keys ?? {}).map((name) => keys[name as keyof typeof keys].envVar),
    ...Object.keys(access.secrets ?? {}).map((name) => secrets[name as keyof typeof secrets].envVar),
    ...(access.schedules === 'manage'
      ? ['SCHEDULE_GROUP_NAME', 'SCHEDULER_ROLE_ARN', 'SCHEDULE_TARGET_QUEUE_ARN']
      : []),
  ];
}

describe('synthesis for tests', () => {
  it('skips asset bundling (no esbuild runs) while keeping every function', () => {
    for (const { stack } of all) expect(stack.bundlingRequired).toBe(false);
  });

  it('is environment-agnostic', () => {
    for (const { stack } of all) {
      expect(stack.environment).toBe('aws://unknown-account/unknown-region');
    }
  });
});

describe('functions', () => {
  // The service's own functions; the site stack's one function is CDK's BucketDeployment handler,
  // checked in test/infra/site.test.ts.
  const functions = all
    .filter(({ stack }) => stack !== stacks.site)
    .flatMap(({ resources }) => ofType(resources, 'AWS::Lambda::Function'));

  it('are exactly one per route plus one per worker', () => {
    // Nothing else in these stacks creates Lambdas (no log-retention or bucket-notification helpers),
    // and every function is one of ours: handler index.handler on nodejs22.x.
    expect(functions).toHaveLength(allRoutes.length + Object.keys(workers).length);
    const expected = [
      ...allRoutes.map((route) => logicalIdOf(routeFunction(route).function)),
      ...Object.values(stacks.execution.workers).map((worker) => logicalIdOf(worker.function)),
    ];
    expect(new Set(expected).size).toBe(expected.length);
    expect(functions.map(([id]) => id).sort()).toEqual([...expected].sort());
  });

  it('run nodejs22.x on arm64 with active tracing, a log group and the base environment', () => {
    for (const [, fn] of functions) {
      const properties = fn.Properties as Record<string, unknown>;
      expect(properties.Runtime).toBe('nodejs22.x');
      expect(properties.Handler).toBe('index.handler');
      expect(properties.Architectures).toEqual(['arm64']);
      expect(properties.TracingConfig).toEqual({ Mode: 'Active' });
      expect(properties.LoggingConfig).toMatchObject({ LogGroup: { Ref: expect.any(String) } });
      const variables = (properties.Environment as { Variables: Record<string, unknown> }).Variables;
      expect(variables.POWERTOOLS_SERVICE_NAME).toBe(serviceName);
      expect(variables.NODE_OPTIONS).toBe('--enable-source-maps');
    }
  });

  it('each have a log group with a retention', () => {
    for (const { resources } of all) {
      for (const [, fn] of ofType(resources, 'AWS::Lambda::Function')) {
        const logGroupId = (fn.Properties.LoggingConfig as { LogGroup: { Ref: string } }).LogGroup.Ref;
        expect(resources[logGroupId].Type).toBe('AWS::Logs::LogGroup');
        expect(resources[logGroupId].Properties.RetentionInDays).toBeGreaterThan(0);
      }
    }
  });

  it('take memory and timeout from the catalog, or 256 MB and 10 s', () => {
    for (const route of allRoutes) {
      const properties = resourceOf(routeFunction(route)).Properties;
      expect(properties.MemorySize, route.id).toBe(route.memoryInMb ?? defaultMemoryInMb);
      expect(properties.Timeout, route.id).toBe(route.timeoutInSeconds ?? defaultTimeoutInSeconds);
    }
    for (const worker of Object.values(workers)) {
      const properties = resourceOf(stacks.execution.workers[worker.id]).Properties;
      expect(properties.MemorySize).toBe(worker.memoryInMb);
      expect(properties.Timeout).toBe(worker.timeoutInSeconds);
    }
  });

  it('get exactly the environment variables of their access (and the admin key ARN for admin routes)', () => {
    const base = ['NODE_OPTIONS', 'POWERTOOLS_SERVICE_NAME'];
    for (const route of allRoutes) {
      // Every route counts requests per source address, which behind the form site needs the edge secret.
      const variables = (resourceOf(routeFunction(route)).Properties.Environment as { Variables: object })
        .Variables;
      const expected = [
        ...base,
        edgeSecretEnvVar,
        ...envVarsFor(routeAccess(route)),
        ...(route.auth === 'admin' ? [adminKeySecretEnvVar] : []),
      ];
      expect(Object.keys(variables).sort(), route.id).toEqual(expected.sort());
    }
    for (const worker of Object.values(workers)) {
      const variables = (
        resourceOf(stacks.execution.workers[worker.id]).Properties.Environment as { Variables: object }
      ).Variables;
      expect(Object.keys(variables).sort(), worker.id).toEqual(
        [...base, ...envVarsFor(worker.access)].sort(),
      );
    }
  });
});

describe('REST API', () => {
  const api = byStack(stacks.api).resources;

  /** Full path of every API Gateway resource, by logical id. */
  function resourcePaths(): Map<string, string> {
    const apiResources = new Map(ofType(api, 'AWS::ApiGateway::Resource'));
    const paths = new Map<string, string>();
    const pathOf = (id: string): string => {
      const known = paths.get(id);
      if (known) return known;
      const properties = apiResources.get(id)!.Properties;
      const parent = properties.ParentId as { Ref?: string; 'Fn::GetAtt'?: unknown };
      const path = `${parent.Ref ? pathOf(parent.Ref) : ''}/${properties.PathPart}`;
      paths.set(id, path);
      return path;
    };
    for (const id of apiResources.keys()) pathOf(id);
    return paths;
  }

  it('has one method per route, at its path, wired by proxy integration to its own function', () => {
    const paths = resourcePaths();
    const methods = ofType(api, 'AWS::ApiGateway::Method');
    expect(methods).toHaveLength(allRoutes.length);
    const wiredFunctions = new Set<string>();
    for (const route of allRoutes) {
      const matching = methods.filter(
        ([, method]) =>
          method.Properties.HttpMethod === route.method &&
          paths.get((method.Properties.ResourceId as { Ref: string }).Ref) === route.path,
      );
      expect(matching, `${route.method} ${route.path}`).toHaveLength(1);
      const integration = matching[0][1].Properties.Integration as { Type: string; Uri: unknown };
      expect(integration.Type).toBe('AWS_PROXY');
      // By the function's physical name (no export), which its own stack gives it.
      const name = functionNameOf(route);
      expect(resourceOf(routeFunction(route)).Properties.FunctionName, route.id).toBe(name);
      expect(JSON.stringify(integration.Uri), route.id).toMatch(
        new RegExp(`:function:${name}/(response-streaming-)?invocations"`),
      );
      wiredFunctions.add(name);
    }
    expect(wiredFunctions.size).toBe(allRoutes.length);
  });

  it('streams the answers of streaming routes (SSE) and buffers every other', () => {
    const paths = resourcePaths();
    for (const [, method] of ofType(api, 'AWS::ApiGateway::Method')) {
      const route = allRoutes.find(
        (candidate) =>
          candidate.method === method.Properties.HttpMethod &&
          candidate.path === paths.get((method.Properties.ResourceId as { Ref: string }).Ref),
      );
      const integration = method.Properties.Integration as {
        ResponseTransferMode?: string;
        Uri: unknown;
        TimeoutInMillis?: number;
      };
      if (route?.streaming) {
        expect(integration.ResponseTransferMode, route.id).toBe('STREAM');
        expect(JSON.stringify(integration.Uri), route.id).toContain('response-streaming-invocations');
        expect(integration.TimeoutInMillis, route.id).toBe((route.timeoutInSeconds ?? 29) * 1000);
      } else {
        expect(integration.ResponseTransferMode, route?.id).toBeUndefined();
        expect(JSON.stringify(integration.Uri), route?.id).not.toContain('response-streaming-invocations');
      }
    }
    expect(allRoutes.filter((route) => route.streaming).map((route) => route.id)).toEqual([
      'executeWorkflow',
    ]);
  });

  it('lets API Gateway invoke each function from its own method only', () => {
    const permissions = ofType(api, 'AWS::Lambda::Permission');
    expect(permissions).toHaveLength(allRoutes.length);
    for (const route of allRoutes) {
      const own = permissions.filter(([, permission]) =>
        JSON.stringify(permission.Properties.FunctionName).includes(`:function:${functionNameOf(route)}"`),
      );
      expect(own, route.id).toHaveLength(1);
      const sourceArn = JSON.stringify(own[0][1].Properties.SourceArn);
      expect(sourceArn).toContain(`/${route.method}${route.path.replace(/\{[^}]+\}/g, '*')}"`);
      expect(own[0][1].Properties.Principal).toBe('apigateway.amazonaws.com');
    }
  });

  it('requires path parameters through a request validator', () => {
    const validators = ofType(api, 'AWS::ApiGateway::RequestValidator');
    expect(validators).toHaveLength(1);
    for (const [, method] of ofType(api, 'AWS::ApiGateway::Method')) {
      expect(method.Properties.RequestValidatorId).toEqual({ Ref: validators[0][0] });
    }
    const execute = api[logicalIdOf(stacks.api.methods.executeWorkflow)];
    expect(execute.Properties.RequestParameters).toEqual({ 'method.request.path.workflowId': true });
  });

  it('has a stage with access logs, error logging, tracing and throttling', () => {
    const stages = ofType(api, 'AWS::ApiGateway::Stage');
    expect(stages).toHaveLength(1);
    const stage = stages[0][1].Properties;
    expect(stage.StageName).toBe(apiStageName);
    expect(stage.TracingEnabled).toBe(true);
    expect(stage.AccessLogSetting).toMatchObject({
      DestinationArn: expect.anything(),
      Format: expect.any(String),
    });
    expect(stage.MethodSettings).toEqual([
      expect.objectContaining({
        LoggingLevel: 'ERROR',
        DataTraceEnabled: false,
        ThrottlingRateLimit: apiThrottling.rateLimit,
        ThrottlingBurstLimit: apiThrottling.burstLimit,
      }),
    ]);
  });

  it('answers unknown routes with the service error body and 404', () => {
    const notFound = ofType(api, 'AWS::ApiGateway::GatewayResponse').find(
      ([, response]) => response.Properties.ResponseType === 'MISSING_AUTHENTICATION_TOKEN',
    );
    expect(notFound?.[1].Properties).toMatchObject({
      StatusCode: '404',
      ResponseTemplates: {
        'application/json': JSON.stringify({ error: 'No such route', code: 'NOT_FOUND' }),
      },
    });
  });

  it("answers every refusal of API Gateway's own with nosniff, as the functions answer", () => {
    const responses = ofType(api, 'AWS::ApiGateway::GatewayResponse').map(
      ([, response]) => response.Properties,
    );
    expect(responses.map((response) => response.ResponseType)).toEqual(
      expect.arrayContaining(['DEFAULT_4XX', 'DEFAULT_5XX', 'MISSING_AUTHENTICATION_TOKEN', 'THROTTLED']),
    );
    for (const response of responses) {
      expect(response.ResponseParameters, String(response.ResponseType)).toMatchObject({
        'gatewayresponse.header.X-Content-Type-Options': "'nosniff'",
      });
    }
  });
});

describe('data', () => {
  const data = byStack(stacks.data).resources;

  it('has every table on demand, with point-in-time recovery, AWS-managed encryption and its GSIs', () => {
    const tableResources = ofType(data, 'AWS::DynamoDB::Table');
    expect(tableResources).toHaveLength(Object.keys(tables).length);
    for (const [name, definition] of Object.entries(tables)) {
      const properties = data[logicalIdOf(stacks.data.tables[name as keyof typeof tables])].Properties;
      expect(properties.BillingMode, name).toBe('PAY_PER_REQUEST');
      expect(properties.PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: true });
      expect(properties.SSESpecification).toEqual({ SSEEnabled: true });
      expect(properties.KeySchema).toEqual([
        { AttributeName: definition.partitionKey, KeyType: 'HASH' },
        { AttributeName: definition.sortKey, KeyType: 'RANGE' },
      ]);
      const indexes = (properties.GlobalSecondaryIndexes ?? []) as {
        IndexName: string;
        KeySchema: unknown;
      }[];
      expect(indexes.map((index) => index.IndexName)).toEqual(definition.indexes.map((index) => index.name));
      for (const index of definition.indexes) {
        expect(indexes.find((candidate) => candidate.IndexName === index.name)?.KeySchema).toEqual([
          { AttributeName: index.partitionKey, KeyType: 'HASH' },
          { AttributeName: index.sortKey, KeyType: 'RANGE' },
        ]);
      }
    }
  });

  it('copies only the log summary into the log indexes, and expires entries and their large parts', () => {
    const properties = data[logicalIdOf(stacks.data.tables.executions)].Properties;
    const indexes = properties.GlobalSecondaryIndexes as { IndexName: string; Projection: unknown }[];
    expect(indexes.map((index) => index.IndexName)).toEqual([
      'workspaceLog',
      'workflowLog',
      'workspaceErrorLog',
    ]);
    for (const index of indexes) {
      expect(index.Projection, index.IndexName).toEqual({
        ProjectionType: 'INCLUDE',
        NonKeyAttributes: [...logSummaryAttributes],
      });
    }
    expect(properties.TimeToLiveSpecification).toEqual({ AttributeName: 'ttl', Enabled: true });
    const files = data[logicalIdOf(stacks.data.buckets.files)].Properties;
    expect((files.LifecycleConfiguration as { Rules: unknown[] }).Rules).toContainEqual(
      expect.objectContaining({
        Prefix: logRetention.blobPrefix,
        ExpirationInDays: logRetention.defaultInDays + 1,
        Status: 'Enabled',
      }),
    );
  });

  it('expires run files with the log entries that list them, and the blobs of runs after a year', () => {
    // Prepare
    const files = data[logicalIdOf(stacks.data.buckets.files)].Properties;

    // Act
    const rules = (files.LifecycleConfiguration as { Rules: unknown[] }).Rules;

    // Assess
    expect(rules).toContainEqual(
      expect.objectContaining({ Prefix: 'files/', ExpirationInDays: 31, Status: 'Enabled' }),
    );
    expect(rules).toContainEqual(
      expect.objectContaining({ Prefix: 'executions/', ExpirationInDays: 366, Status: 'Enabled' }),
    );
  });

  it('makes every service secret in Secrets Manager, generated, never written in the template', () => {
    const secretResources = ofType(data, 'AWS::SecretsManager::Secret');
    // The admin key, the edge secret and the catalog's secrets.
    expect(secretResources).toHaveLength(2 + Object.keys(secrets).length);
    for (const name of Object.keys(secrets)) {
      const secret = data[logicalIdOf(stacks.data.secrets[name as keyof typeof secrets])].Properties;
      expect(secret.GenerateSecretString, name).toMatchObject({ PasswordLength: 64 });
      expect(secret.SecretString, name).toBeUndefined();
    }
    const edge = data[logicalIdOf(stacks.data.edgeSecret)].Properties;
    expect(edge.GenerateSecretString).toMatchObject({ PasswordLength: 48 });
    expect(edge.SecretString).toBeUndefined();
  });

  it('gives every queue a dead-letter queue with the catalog maxReceiveCount, SSE and TLS only', () => {
    const queueResources = ofType(data, 'AWS::SQS::Queue');
    expect(queueResources).toHaveLength(Object.keys(queues).length * 2);
    for (const [name, definition] of Object.entries(queues)) {
      const properties = data[logicalIdOf(stacks.data.queues[name as keyof typeof queues])].Properties;
      const redrive = properties.RedrivePolicy as {
        deadLetterTargetArn: { 'Fn::GetAtt': [string, string] };
        maxReceiveCount: number;
      };
      expect(redrive.maxReceiveCount, name).toBe(definition.maxReceiveCount);
      const deadLetterId = redrive.deadLetterTargetArn['Fn::GetAtt'][0];
      expect(data[deadLetterId].Type).toBe('AWS::SQS::Queue');
      expect(data[deadLetterId].Properties.RedrivePolicy).toBeUndefined();
      expect(properties.VisibilityTimeout).toBe(definition.visibilityTimeoutInSeconds);
    }
    for (const [id, queue] of queueResources) {
      expect(queue.Properties.SqsManagedSseEnabled, id).toBe(true);
      const policies = ofType(data, 'AWS::SQS::QueuePolicy').filter(([, policy]) =>
        (policy.Properties.Queues as { Ref: string }[]).some((ref) => ref.Ref === id),
      );
      expect(JSON.stringify(policies), id).toContain('"aws:SecureTransport":"false"');
    }
  });

  it('keeps the files bucket private, encrypted, versioned, logged and TLS-only', () => {
    for (const name of Object.keys(buckets)) {
      const id = logicalIdOf(stacks.data.buckets[name as keyof typeof buckets]);
      const properties = data[id].Properties;
      expect(properties.PublicAccessBlockConfiguration).toEqual({
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      });
      expect(properties.BucketEncryption).toEqual({
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      });
      expect(properties.VersioningConfiguration).toEqual({ Status: 'Enabled' });
      expect(properties.LoggingConfiguration).toMatchObject({ DestinationBucketName: expect.anything() });
      const policy = ofType(data, 'AWS::S3::BucketPolicy').find(
        ([, candidate]) => (candidate.Properties.Bucket as { Ref: string }).Ref === id,
      );
      expect(policy, name).toBeDefined();
      const statements = (policy![1].Properties.PolicyDocument as { Statement: Record<string, unknown>[] })
        .Statement;
      expect(statements).toContainEqual(
        expect.objectContaining({
          Effect: 'Deny',
          Action: 's3:*',
          Principal: { AWS: '*' },
          Condition: { Bool: { 'aws:SecureTransport': 'false' } },
        }),
      );
    }
  });
});

describe('execution', () => {
  const execution = byStack(stacks.execution).resources;
  const machines = ofType(execution, 'AWS::StepFunctions::StateMachine');
  const stepId = logicalIdOf(stacks.execution.workers.executionStep.function);
  const finalizeId = logicalIdOf(stacks.execution.workers.executionFinalize.function);

  it('has one EXPRESS and one STANDARD state machine', () => {
    expect(machines.map(([, machine]) => machine.Properties.StateMachineType ?? 'STANDARD').sort()).toEqual([
      'EXPRESS',
      'STANDARD',
    ]);
  });

  it('builds both from the one definition, with the step and finalize functions substituted', () => {
    for (const [id, machine] of machines) {
      expect(machine.Properties.DefinitionString, id).toBe(JSON.stringify(executionDefinition()));
      expect(machine.Properties.DefinitionSubstitutions).toEqual({
        StepFunctionArn: { 'Fn::GetAtt': [stepId, 'Arn'] },
        FinalizeFunctionArn: { 'Fn::GetAtt': [finalizeId, 'Arn'] },
      });
    }
  });

  it('fits Step, Finalize and their retries inside the Express limit, so Finalize always runs', () => {
    // Prepare
    const states = executionDefinition().States as Record<
      string,
      {
        TimeoutSeconds?: number;
        Retry?: { IntervalSeconds: number; MaxAttempts: number; BackoffRate: number }[];
      }
    >;
    const step = resourceOf(stacks.execution.workers.executionStep).Properties;
    const finalize = resourceOf(stacks.execution.workers.executionFinalize).Properties;

    // Act
    const retryWaitsInSeconds = (state: string) =>
      (states[state].Retry ?? []).reduce((sum, retry) => {
        let wait = 0;
        for (let attempt = 0; attempt < retry.MaxAttempts; attempt++)
          wait += retry.IntervalSeconds * retry.BackoffRate ** attempt;
        return sum + wait;
      }, 0);
    const worstCaseInSeconds =
      (states.Step.TimeoutSeconds ?? 0) +
      retryWaitsInSeconds('Step') +
      (states.Finalize.TimeoutSeconds ?? 0) +
      retryWaitsInSeconds('Finalize');

    // Assess: each Task gives up when its Lambda would, the step hands back before either, and
    // a Step that times out still leaves Finalize its whole time-out before the 5 minutes end.
    expect(states.Step.TimeoutSeconds).toBe(step.Timeout);
    expect(states.Finalize.TimeoutSeconds).toBe(finalize.Timeout);
    expect(stepBudgetInMs()).toBe(defaultStepBudgetInMs);
    expect(stepBudgetInMs() + 30_000).toBeLessThanOrEqual((step.Timeout as number) * 1000);
    expect(worstCaseInSeconds).toBeLessThanOrEqual(expressExecutionLimitInSeconds - 15);
    expect(expressExecutionLimitInSeconds).toBe(300);
  });

  it("retries Lambda's own transient errors on both Tasks, the client time-out among them", () => {
    const states = executionDefinition().States as Record<string, { Retry?: { ErrorEquals: string[] }[] }>;
    for (const state of ['Step', 'Finalize']) {
      const retried = (states[state].Retry ?? []).flatMap((retry) => retry.ErrorEquals);
      expect(retried, state).toEqual(
        expect.arrayContaining([
          'Lambda.ClientExecutionTimeoutException',
          'Lambda.ServiceException',
          'Lambda.AWSLambdaException',
          'Lambda.SdkClientException',
          'Lambda.TooManyRequestsException',
        ]),
      );
      // A function's own failure is no reason to run it again: it goes to Finalize as it is.
      expect(retried, state).not.toContain('States.ALL');
      expect(retried, state).not.toContain('States.TaskFailed');
    }
  });

  it('logs everything to CloudWatch and traces with X-Ray', () => {
    for (const [id, machine] of machines) {
      expect(machine.Properties.TracingConfiguration, id).toEqual({ Enabled: true });
      expect(machine.Properties.LoggingConfiguration).toMatchObject({ Level: 'ALL' });
    }
  });
});
