/**
 * The environment key: a customer-managed KMS key with rotation in the data stack, used by exactly
 * the functions whose catalog access names it, each with only the KMS action its level allows
 * (encrypt: GenerateDataKey; decrypt: Decrypt) and only with the workspace encryption context.
 */
import { Stack } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { keys } from '../../catalog/resources';
import { type RouteDefinition, routeAccess, routes, workers } from '../../catalog/routes';
import { keyActions } from '../../lib/constructs/resource-access';
import type { ServiceFunction } from '../../lib/constructs/service-function';
import { type PolicyStatement, asList, logicalIdOf, ofType, statementsOfRole, synthesizeApp } from './app';

const { stacks, all, byStack } = synthesizeApp();
const allRoutes = routes as readonly RouteDefinition[];
const data = byStack(stacks.data).resources;
const keyId = logicalIdOf(stacks.data.keys.environment);

const functions: { id: string; fn: ServiceFunction; access: RouteDefinition['access'] }[] = [
  ...allRoutes.map((route) => ({
    id: route.id,
    fn: stacks.routes[route.tag].functions[route.id],
    access: routeAccess(route),
  })),
  ...Object.values(workers).map((worker) => ({
    id: worker.id,
    fn: stacks.execution.workers[worker.id],
    access: worker.access as RouteDefinition['access'],
  })),
];

function kmsStatementsOf(fn: ServiceFunction): PolicyStatement[] {
  return statementsOfRole(byStack(Stack.of(fn)).resources, logicalIdOf(fn.role)).filter((statement) =>
    asList(statement.Action).some((action) => action.startsWith('kms:')),
  );
}

function environmentOf(fn: ServiceFunction): Record<string, unknown> {
  const resource = byStack(Stack.of(fn)).resources[logicalIdOf(fn.function)];
  return (resource.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
}

const byId = (id: string) => functions.find((candidate) => candidate.id === id)!;

describe('environment key', () => {
  it('is one customer-managed symmetric key per catalog key (beside the alarm topic key), with rotation, kept on delete', () => {
    const keyResources = ofType(data, 'AWS::KMS::Key');
    // Beside the catalog's keys, only the alarm topic's own (test/infra/jobs.test.ts).
    expect(keyResources.map(([id]) => id).sort()).toEqual(
      [
        ...Object.keys(keys).map((name) => logicalIdOf(stacks.data.keys[name as keyof typeof keys])),
        logicalIdOf(stacks.data.alarmTopicKey),
      ].sort(),
    );
    const key = data[keyId];
    expect(key.Type).toBe('AWS::KMS::Key');
    expect(key.Properties.EnableKeyRotation).toBe(true);
    expect(key.Properties.KeySpec ?? 'SYMMETRIC_DEFAULT').toBe('SYMMETRIC_DEFAULT');
    expect((key as unknown as { DeletionPolicy: string }).DeletionPolicy).toBe('Retain');
    // Only other stacks' KMS keys would show up here: none.
    for (const { stack, resources } of all) {
      if (stack !== stacks.data) expect(ofType(resources, 'AWS::KMS::Key'), stack.stackName).toEqual([]);
    }
  });

  it('lets the account delegate through IAM and names no other principal in its key policy', () => {
    const statements = (data[keyId].Properties.KeyPolicy as { Statement: Record<string, unknown>[] })
      .Statement;
    expect(statements).toHaveLength(1);
    expect(JSON.stringify(statements[0].Principal)).toContain(':root');
  });

  it('gives every function exactly the KMS actions of its declared access, on the key, with a context', () => {
    for (const { id, fn, access } of functions) {
      const statements = kmsStatementsOf(fn);
      const level = access.keys?.environment;
      if (!level) {
        expect(statements, id).toEqual([]);
        expect(environmentOf(fn)[keys.environment.envVar], id).toBeUndefined();
        continue;
      }
      expect(statements, id).toHaveLength(1);
      expect(asList(statements[0].Action).sort(), id).toEqual([...keyActions[level]].sort());
      expect(JSON.stringify(statements[0].Resource), id).toContain(keyId);
      expect((statements[0] as unknown as { Condition: unknown }).Condition, id).toEqual({
        Null: { 'kms:EncryptionContext:workspaceId': 'false' },
      });
      expect(JSON.stringify(environmentOf(fn)[keys.environment.envVar]), id).toContain(keyId);
    }
  });

  it('lets the list route only Decrypt, the put route only GenerateDataKey, and the delete route neither', () => {
    const actions = (id: string) =>
      kmsStatementsOf(byId(id).fn).flatMap((statement) => asList(statement.Action));
    expect(actions('listEnvironmentVariables')).toEqual(['kms:Decrypt']);
    expect(actions('putEnvironmentVariable')).toEqual(['kms:GenerateDataKey']);
    expect(actions('deleteEnvironmentVariable')).toEqual([]);
  });

  it('lets the Step worker Decrypt (for {{NAME}} in runs) and nothing else with the key', () => {
    expect(
      kmsStatementsOf(byId('executionStep').fn).flatMap((statement) => asList(statement.Action)),
    ).toEqual(['kms:Decrypt']);
    expect(kmsStatementsOf(byId('executionFinalize').fn)).toEqual([]);
  });

  it('never grants Encrypt, ReEncrypt, key administration or a KMS wildcard', () => {
    const allowed = new Set(['kms:GenerateDataKey', 'kms:Decrypt']);
    for (const { id, fn } of functions) {
      for (const action of kmsStatementsOf(fn).flatMap((statement) => asList(statement.Action))) {
        expect(allowed.has(action), `${id}: ${action}`).toBe(true);
      }
    }
  });
});
