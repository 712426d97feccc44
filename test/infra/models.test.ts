/**
 * Bedrock: only functions whose catalog access says `models: 'invoke'` may call models, and only to
 * invoke. The deployment's model endpoints (context) reach the functions that run blocks, and no other.
 */
import { Stack } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { type RouteDefinition, routes, workers } from '../../catalog/routes';
import type { ServiceFunction } from '../../lib/constructs/service-function';
import { asList, functionEnvironmentOf, logicalIdOf, statementsOfRole, synthesizeApp } from './app';

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

const endpointsApp = synthesizeApp({
  openaiBaseUrl: 'https://gateway.example.com/openai/v1',
  anthropicBaseUrl: 'https://gateway.example.com/anthropic',
});

describe('model endpoints of a deployment', () => {
  it('sets OPENAI_BASE_URL and ANTHROPIC_BASE_URL from the context on the functions that run blocks', () => {
    // Prepare
    const runners = [
      endpointsApp.stacks.execution.workers.executionStep,
      endpointsApp.stacks.routes.execution.functions.executeWorkflow,
    ];

    // Act
    const environments = runners.map((fn) => functionEnvironmentOf(endpointsApp, fn));

    // Assess
    for (const environment of environments) {
      expect(environment).toMatchObject({
        OPENAI_BASE_URL: 'https://gateway.example.com/openai/v1',
        ANTHROPIC_BASE_URL: 'https://gateway.example.com/anthropic',
      });
    }
  });

  it('gives them to no function that runs no blocks', () => {
    // Act
    const environment = functionEnvironmentOf(
      endpointsApp,
      endpointsApp.stacks.routes.workflows.functions.listWorkflows,
    );

    // Assess
    expect(environment).not.toHaveProperty('OPENAI_BASE_URL');
    expect(environment).not.toHaveProperty('ANTHROPIC_BASE_URL');
  });

  it('sets none without the context', () => {
    // Act
    const environment = functionEnvironmentOf(synthesizeApp(), stacks.execution.workers.executionStep);

    // Assess
    expect(environment).not.toHaveProperty('OPENAI_BASE_URL');
  });

  it('refuses an endpoint that is no http(s) URL, naming the setting', () => {
    // Act
    const synthesize = () => synthesizeApp({ anthropicBaseUrl: 'gateway.example.com' });

    // Assess
    expect(synthesize).toThrow(/ANTHROPIC_BASE_URL must be an http\(s\) URL/);
  });
});
