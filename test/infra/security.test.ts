/**
 * Least privilege, stack sizes and cdk-nag: every function may do exactly what its catalog access
 * says, no stack nears CloudFormation's resource limit, and the AwsSolutions pack reports no
 * unsuppressed error, each suppression carrying its justification.
 */
import { Stack } from 'aws-cdk-lib';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { drawsTokens, type RouteDefinition, routes } from '../../catalog/routes';
import { tableActions } from '../../lib/constructs/resource-access';
import type { ServiceFunction } from '../../lib/constructs/service-function';
import {
  type CfnResource,
  type PolicyStatement,
  actionsOf,
  asList,
  logicalIdOf,
  ofType,
  statementsOfRole,
  synthesizeApp,
} from './app';

const allRoutes = routes as readonly RouteDefinition[];
const { stacks, all, byStack } = synthesizeApp();
const routeById = new Map(allRoutes.map((route) => [route.id, route]));

function fnOf(id: string): ServiceFunction {
  const route = routeById.get(id);
  if (route) return stacks.routes[route.tag].functions[route.id];
  return stacks.execution.workers[id as keyof typeof stacks.execution.workers];
}

function statementsOf(fn: ServiceFunction): PolicyStatement[] {
  return statementsOfRole(byStack(Stack.of(fn)).resources, logicalIdOf(fn.role));
}

const writeActions: string[] = [...tableActions.write];
const expressId = logicalIdOf(stacks.execution.stateMachines.executionSync);
const standardId = logicalIdOf(stacks.execution.stateMachines.executionAsync);

describe('least privilege', () => {
  it('getHealth may only write its logs and traces', () => {
    const actions = actionsOf(statementsOf(fnOf('getHealth')));
    expect(actions.filter((action) => action.startsWith('dynamodb:'))).toEqual([]);
    expect(actions.sort()).toEqual(
      [
        'logs:CreateLogStream',
        'logs:PutLogEvents',
        'xray:PutTelemetryRecords',
        'xray:PutTraceSegments',
      ].sort(),
    );
  });

  /** The logical ids of the tables a function's write statements name. */
  function tablesWrittenBy(id: string): string[] {
    const tableIds = Object.entries(stacks.data.tables).map(([name, table]) => [name, logicalIdOf(table)]);
    const writes = statementsOf(fnOf(id)).filter((statement) =>
      asList(statement.Action).some((action) => writeActions.includes(action)),
    );
    return tableIds
      .filter(([, tableId]) =>
        writes.some((statement) => JSON.stringify(statement.Resource).includes(tableId)),
      )
      .map(([name]) => name)
      .sort();
  }

  it('read-only routes write to no table but the limits table, and update only user and organization items', () => {
    // Public routes that draw no tokens (health, the OpenAPI document) have no limits to write to.
    const readOnly = allRoutes.filter(
      (route) =>
        route.access.tables &&
        Object.values(route.access.tables).every((level) => level === 'read') &&
        (route.auth !== 'none' || drawsTokens(route)),
    );
    expect(readOnly.map((route) => route.id)).toContain('listWorkspaces');
    for (const route of readOnly) {
      const statements = statementsOf(fnOf(route.id));
      expect(actionsOf(statements), route.id).toContain('dynamodb:Query');
      const entityWrites = statements.filter(
        (statement) =>
          asList(statement.Action).some((action) => writeActions.includes(action)) &&
          JSON.stringify(statement.Resource).includes(logicalIdOf(stacks.data.tables.entities)),
      );
      // Admin routes draw no tokens: no entity write at all.
      if (!drawsTokens(route)) expect(entityWrites, route.id).toEqual([]);
      else {
        // Their tokens: UpdateItem of the caller's user (or organization) item, under a key condition
        expect(entityWrites, route.id).toHaveLength(1);
        expect(asList(entityWrites[0].Action)).toEqual(['dynamodb:UpdateItem']);
        expect(entityWrites[0].Condition).toEqual({
          'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['USER#*', 'ORG#*'] },
        });
      }
      expect(
        tablesWrittenBy(route.id).filter((name) => name !== 'entities'),
        route.id,
      ).toEqual(['limits']);
    }
  });

  it('routes that write get the item write actions on their table (and the limits table) only', () => {
    expect(tablesWrittenBy('createWorkflow')).toEqual(['entities', 'limits']);
    // A streamed run is finalized in the execute route: its log entry, and its count in the metrics.
    expect(tablesWrittenBy('executeWorkflow')).toEqual(['entities', 'executions', 'limits', 'metrics']);
  });

  it('routes that neither authenticate nor draw tokens cannot touch the limits table', () => {
    for (const id of ['getHealth', 'getOpenApi']) expect(tablesWrittenBy(id), id).toEqual([]);
  });

  it("a form page's config, which checks passwords, counts attempts in the limits table", () => {
    expect(tablesWrittenBy('getFormConfig')).toEqual(['entities', 'limits']);
  });

  it('the execute route can StartSyncExecution on the Express machine only', () => {
    const statements = statementsOf(fnOf('executeWorkflow')).filter((statement) =>
      asList(statement.Action).some((action) => action.startsWith('states:')),
    );
    expect(statements).toHaveLength(1);
    expect(asList(statements[0].Action)).toEqual(['states:StartSyncExecution']);
    const resource = JSON.stringify(statements[0].Resource);
    expect(resource).toContain(expressId);
    expect(resource).not.toContain(standardId);
  });

  it('only routes whose access names a state machine may start one', () => {
    for (const route of allRoutes) {
      const states = actionsOf(statementsOf(fnOf(route.id))).filter((action) => action.startsWith('states:'));
      expect(states.length > 0, route.id).toBe(Boolean(route.access.stateMachines));
    }
  });

  it('only admin routes can read the admin key secret, only log routes the cursor secret, only invitation routes the token secret', () => {
    const adminSecretId = logicalIdOf(stacks.data.adminKeySecret);
    const secretIds = Object.fromEntries(
      Object.entries(stacks.data.secrets).map(([name, secret]) => [name, logicalIdOf(secret)]),
    );
    for (const route of allRoutes) {
      const statements = statementsOf(fnOf(route.id)).filter((statement) =>
        asList(statement.Action).some((action) => action.startsWith('secretsmanager:')),
      );
      const serviceSecrets = Object.keys((route.access as { secrets?: object }).secrets ?? {});
      const expected = [
        ...(route.auth === 'admin' ? [adminSecretId] : []),
        ...serviceSecrets.map((name) => secretIds[name]),
      ];
      expect(statements, route.id).toHaveLength(expected.length);
      expected.forEach((secretId, i) => {
        expect(JSON.stringify(statements[i].Resource), route.id).toContain(secretId);
        if (secretId !== adminSecretId) {
          expect(asList(statements[i].Action), route.id).toEqual(['secretsmanager:GetSecretValue']);
        }
      });
    }
    const readersOf = (name: string) =>
      allRoutes
        .filter((route) => name in ((route.access as { secrets?: object }).secrets ?? {}))
        .map((route) => route.id)
        .sort();
    expect(readersOf('logCursor')).toEqual([
      'getLog',
      'getLogExecution',
      'getLogExecutionLink',
      'getLogLink',
      'listLogs',
    ]);
    expect(readersOf('invitationToken')).toEqual([
      'acceptInvitation',
      'createOrganizationInvitation',
      'createWorkspaceInvitation',
    ]);
  });

  it('workers read the entities table, write the executions table and the files bucket', () => {
    for (const id of ['executionStep', 'executionFinalize']) {
      expect(actionsOf(statementsOf(fnOf(id)))).toEqual(
        expect.arrayContaining(['s3:GetObject', 's3:PutObject']),
      );
    }
    expect(tablesWrittenBy('executionStep')).toEqual(['executions']);
    // Finalize adds each run's cost to its owner's usage: on user and organization items only.
    // It counts each run in its workspace's hour (the metrics route's counters).
    expect(tablesWrittenBy('executionFinalize')).toEqual(['entities', 'executions', 'limits', 'metrics']);
    const entityWrite = statementsOf(fnOf('executionFinalize')).find(
      (statement) =>
        JSON.stringify(statement.Resource).includes(logicalIdOf(stacks.data.tables.entities)) &&
        asList(statement.Action).includes('dynamodb:UpdateItem'),
    );
    expect(entityWrite?.Condition).toEqual({
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['USER#*', 'ORG#*'] },
    });
  });

  it('only the run ends (Finalize, streamed runs) write the metrics table; the metrics route reads it and no log', () => {
    const metricsId = logicalIdOf(stacks.data.tables.metrics);
    const ids = [...allRoutes.map((route) => route.id), ...Object.keys(stacks.execution.workers)];
    expect(ids.filter((id) => tablesWrittenBy(id).includes('metrics')).sort()).toEqual([
      'executeWorkflow',
      'executionFinalize',
    ]);
    const reads = statementsOf(fnOf('getMetrics')).filter((statement) =>
      asList(statement.Action).includes('dynamodb:Query'),
    );
    expect(reads.some((statement) => JSON.stringify(statement.Resource).includes(metricsId))).toBe(true);
    const executionsId = logicalIdOf(stacks.data.tables.executions);
    expect(JSON.stringify(statementsOf(fnOf('getMetrics')))).not.toContain(executionsId);
    expect(tablesWrittenBy('getMetrics')).toEqual(['entities', 'limits']);
  });

  it('no function may Scan, use action wildcards, or touch "*" except for X-Ray', () => {
    // The site stack's one function is CDK's BucketDeployment handler (test/infra/site.test.ts).
    for (const { resources } of all.filter(({ stack }) => stack !== stacks.site)) {
      for (const [id, fn] of ofType(resources, 'AWS::Lambda::Function')) {
        const roleId = (fn.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
        const statements = statementsOfRole(resources, roleId);
        expect(actionsOf(statements), id).not.toContain('dynamodb:Scan');
        expect(
          actionsOf(statements).filter((action) => action.includes('*')),
          id,
        ).toEqual([]);
        for (const statement of statements.filter((candidate) => asList(candidate.Resource).includes('*'))) {
          expect(
            asList(statement.Action).every((action) => action.startsWith('xray:')),
            id,
          ).toBe(true);
        }
        // No managed policies (the default Lambda role would attach AWSLambdaBasicExecutionRole).
        expect(resources[roleId].Properties.ManagedPolicyArns, id).toBeUndefined();
      }
    }
  });

  it('the state machines may invoke exactly the step and finalize functions', () => {
    const execution = byStack(stacks.execution).resources;
    const expected = [stacks.execution.workers.executionFinalize, stacks.execution.workers.executionStep]
      .map((worker) => ({ 'Fn::GetAtt': [logicalIdOf(worker.function), 'Arn'] }))
      .sort((a, b) => a['Fn::GetAtt'][0].localeCompare(b['Fn::GetAtt'][0]));
    for (const machine of Object.values(stacks.execution.stateMachines)) {
      const statements = statementsOfRole(execution, logicalIdOf(machine.role));
      const invoke = statements.filter((statement) =>
        asList(statement.Action).includes('lambda:InvokeFunction'),
      );
      expect(invoke).toHaveLength(1);
      expect(invoke[0].Resource).toEqual(expected);
    }
  });
});

describe('limits', () => {
  it('keeps every stack under 400 resources', () => {
    const counts = Object.fromEntries(
      all.map(({ stack, resources }) => [stack.stackName, Object.keys(resources).length]),
    );
    for (const [name, count] of Object.entries(counts)) expect(count, name).toBeLessThan(400);
    expect(Object.keys(counts).length).toBeGreaterThanOrEqual(4);
  });
});

describe('cdk-nag AwsSolutions', () => {
  // Reading every stack's annotations takes about a second per route function on a small machine.
  const annotationsTimeoutInMs = 180_000;

  it('reports no unsuppressed errors in any stack', { timeout: annotationsTimeoutInMs }, () => {
    for (const { stack } of all) {
      const errors = Annotations.fromStack(stack).findError('*', Match.stringLikeRegexp('AwsSolutions-.*'));
      expect(
        errors.map((error) => `${error.id}: ${String(error.entry.data).split(':')[0]}`),
        stack.stackName,
      ).toEqual([]);
    }
  });

  it('every suppression is a known rule with a reason that explains it', () => {
    const reviewed = new Set([
      'AwsSolutions-APIG4',
      'AwsSolutions-CFR1',
      'AwsSolutions-CFR2',
      'AwsSolutions-CFR4',
      'AwsSolutions-COG4',
      'AwsSolutions-IAM4',
      'AwsSolutions-IAM5',
      'AwsSolutions-L1',
      'AwsSolutions-S1',
      'AwsSolutions-SMG4',
    ]);
    let count = 0;
    for (const { resources } of all) {
      for (const [id, resource] of Object.entries(resources) as [string, CfnResource][]) {
        const suppressions =
          (resource.Metadata?.cdk_nag as { rules_to_suppress?: { id: string; reason: string }[] } | undefined)
            ?.rules_to_suppress ?? [];
        for (const suppression of suppressions) {
          count += 1;
          expect(reviewed.has(suppression.id), `${id} suppresses ${suppression.id}`).toBe(true);
          expect(suppression.reason.length, `${id} ${suppression.id}`).toBeGreaterThan(80);
        }
      }
    }
    expect(count).toBeGreaterThan(0);
  });

  it('suppresses IAM5 only for named findings, never wholesale', () => {
    for (const { resources } of all) {
      for (const [id, resource] of Object.entries(resources) as [string, CfnResource][]) {
        const suppressions =
          (
            resource.Metadata?.cdk_nag as
              | { rules_to_suppress?: { id: string; applies_to?: unknown[] }[] }
              | undefined
          )?.rules_to_suppress ?? [];
        for (const suppression of suppressions.filter((candidate) => candidate.id === 'AwsSolutions-IAM5')) {
          expect(suppression.applies_to?.length, id).toBeGreaterThan(0);
        }
      }
    }
  });
});
