/**
 * Builds the service app for the infra tests: the context of cdk.json (feature flags), with asset
 * bundling skipped so that synthesis takes seconds instead of running esbuild for every function.
 */
import './cdk-outdir';
import { readFileSync } from 'node:fs';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { Construct } from 'constructs';
import { fromProjectRoot } from '../../lib/project';
import { createServiceApp, type ServiceStacks } from '../../lib/service-app';

export type CfnResource = {
  Type: string;
  /** Every resource this app synthesizes has properties; a missing one fails the test that reads it. */
  Properties: Record<string, unknown>;
  Metadata?: Record<string, unknown>;
};

export interface SynthesizedStack {
  stack: Stack;
  template: Template;
  resources: Record<string, CfnResource>;
}

export interface SynthesizedApp {
  app: App;
  stacks: ServiceStacks;
  /** Every stack of the app, by stack name. */
  all: SynthesizedStack[];
  byStack(stack: Stack): SynthesizedStack;
}

const cached = new Map<string, SynthesizedApp>();

/** The app of cdk.json's context plus `context` (a deployment's `-c` values), synthesized once each. */
export function synthesizeApp(context: Record<string, unknown> = {}): SynthesizedApp {
  const key = JSON.stringify(context);
  const found = cached.get(key);
  if (found) return found;
  const cdkJson = JSON.parse(readFileSync(fromProjectRoot('cdk.json'), 'utf8')) as {
    context?: Record<string, unknown>;
  };
  // An empty list of bundling stacks: no stack matches, so no NodejsFunction runs esbuild.
  const app = new App({
    autoSynth: false,
    context: { ...cdkJson.context, ...context, 'aws:cdk:bundling-stacks': [] },
  });
  const stacks = createServiceApp(app);
  const everyStack = [
    stacks.data,
    stacks.execution,
    ...Object.values(stacks.routes),
    stacks.api,
    stacks.site,
  ];
  const all = [...everyStack, ...(stacks.sso ? [stacks.sso] : [])].map((stack) => {
    const template = Template.fromStack(stack);
    return { stack, template, resources: template.toJSON().Resources as Record<string, CfnResource> };
  });
  const synthesized: SynthesizedApp = {
    app,
    stacks,
    all,
    byStack: (stack) => {
      const found = all.find((entry) => entry.stack === stack);
      if (!found) throw new Error(`Stack ${stack.stackName} is not part of the app`);
      return found;
    },
  };
  cached.set(key, synthesized);
  return synthesized;
}

/** Resources of one CloudFormation type, by logical id. */
export function ofType(resources: Record<string, CfnResource>, type: string): [string, CfnResource][] {
  return Object.entries(resources).filter(([, resource]) => resource.Type === type);
}

/** The logical id of a construct's CloudFormation resource (its default child for L2 constructs). */
export function logicalIdOf(construct: { node: { defaultChild?: unknown } }): string {
  const child = (construct.node.defaultChild ?? construct) as Parameters<Stack['getLogicalId']>[0];
  return (child as unknown as { stack: Stack }).stack.getLogicalId(child);
}

export interface PolicyStatement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: Record<string, unknown>;
}

/** The environment variables a function of `synthesized` is deployed with. */
export function functionEnvironmentOf(
  synthesized: SynthesizedApp,
  fn: { function: Construct },
): Record<string, unknown> {
  const { resources } = synthesized.byStack(Stack.of(fn.function));
  const resource = resources[logicalIdOf(fn.function)];
  return (resource.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
}

export function asList<T>(value: T | T[]): T[] {
  return Array.isArray(value) ? value : [value];
}

/** Every Allow statement of the inline policies attached to the role with logical id `roleId`. */
export function statementsOfRole(resources: Record<string, CfnResource>, roleId: string): PolicyStatement[] {
  return ofType(resources, 'AWS::IAM::Policy')
    .filter(([, policy]) =>
      (policy.Properties.Roles as { Ref?: string }[]).some((role) => role.Ref === roleId),
    )
    .flatMap(([, policy]) => (policy.Properties.PolicyDocument as { Statement: PolicyStatement[] }).Statement)
    .filter((statement) => statement.Effect === 'Allow');
}

export function actionsOf(statements: PolicyStatement[]): string[] {
  return statements.flatMap((statement) => asList(statement.Action));
}
