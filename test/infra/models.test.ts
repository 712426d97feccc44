/** Bedrock: only functions whose catalog access says `models: 'invoke'` may call models, and only to invoke. */
import { Stack } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { type RouteDefinition, routes, workers } from '../../catalog/routes';
import type { ServiceFunction } from '../../lib/constructs/service-function';
import { asList, logicalIdOf, statementsOfRole, synthesizeApp } from './app';

const { stacks, byStack } = synthesizeApp();

function bedrockActionsOf(fn: ServiceFunction): string[] {
  return statementsOfRole(byStack(Stack.of(fn)).resources, logicalIdOf(fn.role))
    .flatMap((statement) => asList(statement.Action))
    .filter((action) => action.startsWith('bedrock:'));
}

describe('model access', () => {
  it('lets the Step worker invoke Bedrock models and nothing else of Bedrock', () => {
    expect(bedrockActionsOf(stacks.execution.workers.executionStep).sort()).toEqual([
      'bedrock:InvokeModel',
      'bedrock:InvokeModelWithResponseStream',
    ]);
  });

  it('lets the execute route invoke Bedrock models, as it runs streamed runs itself', () => {
    const execute = stacks.routes.execution.functions.executeWorkflow;
    expect(bedrockActionsOf(execute).sort()).toEqual([
      'bedrock:InvokeModel',
      'bedrock:InvokeModelWithResponseStream',
    ]);
  });

  it('gives no other route and no other worker any Bedrock permission', () => {
    for (const route of routes as readonly RouteDefinition[]) {
      if (route.id === 'executeWorkflow') continue;
      expect(bedrockActionsOf(stacks.routes[route.tag].functions[route.id]), route.id).toEqual([]);
    }
    expect(bedrockActionsOf(stacks.execution.workers[workers.executionFinalize.id])).toEqual([]);
  });
});
