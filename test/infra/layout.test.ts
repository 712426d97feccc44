/**
 * The stack layout lets a route be added, moved to another tag or removed in one `cdk deploy`.
 *
 * CloudFormation refuses to delete an output export while a deployed stack imports it. `cdk deploy
 * --all` updates a stack after the stacks it depends on, so when a producer's update drops an export,
 * the stacks that import it still stand as they were ("before"), unless the producer is deployed
 * after them; a stack gone from the app is not touched at all and keeps importing. The test
 * synthesizes the app as it is and again with the route table changed, and checks every export that
 * the change drops against those imports.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import type { CloudFormationStackArtifact } from 'aws-cdk-lib/cx-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RouteDefinition, routes } from '../../catalog/routes';
import { fromProjectRoot } from '../../lib/project';
import { functionNameMaxLength, routeFunctionName } from '../../lib/route-functions-stack';
import { createServiceApp, stackNames } from '../../lib/service-app';

type Template = {
  Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }>;
  Outputs?: Record<string, { Export?: { Name: unknown } }>;
};

interface Deployment {
  templates: Map<string, Template>;
  /** Every stack each stack is deployed after, directly or not. */
  deployedAfter: Map<string, Set<string>>;
}

const allRoutes = routes as readonly RouteDefinition[];
// Each synthesis of the whole app takes a minute or more on a busy two-core machine.
const synthesisTimeoutInMs = 600_000;
const outdirs: string[] = [];

/** The app's CloudFormation templates and deployment order for a route table, without asset bundling. */
function synthesize(routeTable: readonly RouteDefinition[]): Deployment {
  const cdkJson = JSON.parse(readFileSync(fromProjectRoot('cdk.json'), 'utf8')) as {
    context?: Record<string, unknown>;
  };
  const outdir = mkdtempSync(join(tmpdir(), 'workflow-layout-'));
  outdirs.push(outdir);
  const app = new App({
    outdir,
    autoSynth: false,
    context: { ...cdkJson.context, 'aws:cdk:bundling-stacks': [] },
  });
  createServiceApp(app, {}, { routes: routeTable, checks: false });
  const stacks = app
    .synth()
    .artifacts.filter((artifact): artifact is CloudFormationStackArtifact => 'template' in artifact);
  const direct = new Map(
    stacks.map((stack) => [
      stack.stackName,
      stack.dependencies.map((dependency) => dependency.id).filter((id) => stacks.some((s) => s.id === id)),
    ]),
  );
  const deployedAfter = new Map<string, Set<string>>();
  const closure = (name: string): Set<string> => {
    const known = deployedAfter.get(name);
    if (known) return known;
    const all = new Set<string>();
    for (const dependency of direct.get(name) ?? []) {
      all.add(dependency);
      for (const further of closure(dependency)) all.add(further);
    }
    deployedAfter.set(name, all);
    return all;
  };
  for (const stack of stacks) closure(stack.stackName);
  return {
    templates: new Map(stacks.map((stack) => [stack.stackName, stack.template as Template])),
    deployedAfter,
  };
}

function exportsOf(template: Template): Set<string> {
  return new Set(
    Object.values(template.Outputs ?? {}).flatMap((output) =>
      typeof output.Export?.Name === 'string' ? [output.Export.Name] : [],
    ),
  );
}

function importsOf(template: Template): Set<string> {
  const found = new Set<string>();
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object') {
      for (const [key, inner] of Object.entries(value)) {
        if (key === 'Fn::ImportValue' && typeof inner === 'string') found.add(inner);
        else walk(inner);
      }
    }
  };
  walk(template.Resources);
  return found;
}

/**
 * Each export that `after` drops while a stack still imports it when its producer is updated: a
 * stack that `cdk deploy` leaves as it was (gone from the app) or updates later (it is not among
 * the producer's dependencies), or one updated first whose new template still imports it.
 */
function exportsDeletedWhileImported(before: Deployment, after: Deployment): string[] {
  const problems: string[] = [];
  for (const [producer, template] of before.templates) {
    const afterTemplate = after.templates.get(producer);
    // A stack gone from the app is left deployed as it is: its exports stay.
    if (!afterTemplate) continue;
    const kept = exportsOf(afterTemplate);
    for (const name of exportsOf(template)) {
      if (kept.has(name)) continue;
      for (const [consumer, consumerBefore] of before.templates) {
        if (consumer === producer || !importsOf(consumerBefore).has(name)) continue;
        const consumerAfter = after.templates.get(consumer);
        const updatedFirst = consumerAfter && after.deployedAfter.get(producer)?.has(consumer);
        if (updatedFirst && !importsOf(consumerAfter).has(name)) continue;
        problems.push(`${producer} deletes ${name}, still imported by ${consumer}`);
      }
    }
  }
  return problems;
}

/** Function names used by a stack in `after` while another stack holds the same name in `before` or `after`. */
function functionNameClashes(before: Deployment, after: Deployment): string[] {
  const owners = new Map<string, Set<string>>();
  for (const deployment of [before, after]) {
    for (const [stack, template] of deployment.templates) {
      for (const resource of Object.values(template.Resources)) {
        const name = resource.Type === 'AWS::Lambda::Function' && resource.Properties?.FunctionName;
        if (typeof name === 'string') owners.set(name, (owners.get(name) ?? new Set()).add(stack));
      }
    }
  }
  return [...owners]
    .filter(([, stacks]) => stacks.size > 1)
    .map(([name, stacks]) => `${name}: ${[...stacks]}`);
}

function routeById(id: string): RouteDefinition {
  const found = allRoutes.find((route) => route.id === id);
  if (!found) throw new Error(`No route ${id}`);
  return found;
}

describe('routeFunctionName', () => {
  it("names a function after its stack and route, within Lambda's 64 characters", () => {
    expect(routeFunctionName('WorkflowRoutesWorkflows', 'getWorkflow')).toBe(
      'WorkflowRoutesWorkflows-getWorkflow',
    );
    for (const route of allRoutes) {
      expect(routeFunctionName(stackNames.routes(route.tag), route.id).length).toBeLessThanOrEqual(
        functionNameMaxLength,
      );
    }
  });

  it('keeps a long name unique with a hash of the whole', () => {
    const stack = `WorkflowRoutes${'X'.repeat(40)}`;
    const first = routeFunctionName(stack, 'listSomethingVeryLongA');
    const second = routeFunctionName(stack, 'listSomethingVeryLongB');
    expect(first).toHaveLength(functionNameMaxLength);
    expect(second).toHaveLength(functionNameMaxLength);
    expect(first).not.toBe(second);
  });
});

describe('stack layout', () => {
  let before: Deployment;
  let after: Deployment;
  // One deploy that removes every route but the health check, moves one route to another tag and
  // adds a new one. Dropping more routes only drops more exports, so this covers removing any of
  // them (and every stack of a tag at once, which `cdk deploy` leaves standing).
  const kept = routeById('getHealth');
  const moved = { ...routeById('getWorkflowStatus'), tag: 'execution' };
  const added: RouteDefinition = { ...kept, id: 'getHealthDetails', path: '/api/health/details' };

  beforeAll(() => {
    before = synthesize(allRoutes);
    after = synthesize([kept, moved, added]);
  }, synthesisTimeoutInMs);

  afterAll(() => {
    for (const outdir of outdirs) rmSync(outdir, { recursive: true, force: true });
  });

  it('wires the API to the route functions by name, importing nothing from their stacks', () => {
    // Prepare
    const api = before.templates.get(stackNames.api)!;
    const routeStacks = [...before.templates.keys()].filter((name) => name.startsWith('WorkflowRoutes'));

    // Act
    const imported = [...importsOf(api)];

    // Assess: only what stays for good; and the functions exist before the methods that call them.
    expect(imported.filter((name) => routeStacks.some((stack) => name.startsWith(`${stack}:`)))).toEqual([]);
    expect(routeStacks.length).toBeGreaterThan(1);
    for (const stack of routeStacks) expect(before.deployedAfter.get(stackNames.api), stack).toContain(stack);
  });

  it('deletes no export that a deployed stack still imports when routes are removed, moved and added', () => {
    // Act
    const problems = exportsDeletedWhileImported(before, after);

    // Assess
    expect(problems).toEqual([]);
    expect(after.templates.has(stackNames.routes('workflows'))).toBe(false);
  });

  it('gives a moved route a new function, so the old one can go after the new one exists', () => {
    // Act
    const clashes = functionNameClashes(before, after);

    // Assess
    expect(clashes).toEqual([]);
    const movedName = routeFunctionName(stackNames.routes('execution'), moved.id);
    const functions = Object.values(after.templates.get(stackNames.routes('execution'))!.Resources);
    expect(functions.map((resource) => resource.Properties?.FunctionName)).toContain(movedName);
  });

  it('finds the export a deploy would fail on, when a stack still imports what its producer drops', () => {
    // Prepare: the layout of strong references, the API importing each function's ARN.
    const producer = stackNames.routes('workflows');
    const exportName = `${producer}:ExportsOutputFnGetAttgetWorkflowStatusArn`;
    const stack = (name: string, exported: string[], imported: string[]): [string, Template] => [
      name,
      {
        Resources: {
          Used: {
            Type: 'AWS::SNS::Topic',
            Properties: { Value: imported.map((i) => ({ 'Fn::ImportValue': i })) },
          },
        },
        Outputs: Object.fromEntries(exported.map((e, index) => [`Out${index}`, { Export: { Name: e } }])),
      },
    ];
    const strongBefore: Deployment = {
      templates: new Map([stack(producer, [exportName], []), stack(stackNames.api, [], [exportName])]),
      deployedAfter: new Map([[stackNames.api, new Set([producer])]]),
    };
    const strongAfter: Deployment = {
      templates: new Map([stack(producer, [], []), stack(stackNames.api, [], [])]),
      deployedAfter: new Map([[stackNames.api, new Set([producer])]]),
    };

    // Act
    const problems = exportsDeletedWhileImported(strongBefore, strongAfter);

    // Assess
    expect(problems).toEqual([`${producer} deletes ${exportName}, still imported by ${stackNames.api}`]);
  });
});
