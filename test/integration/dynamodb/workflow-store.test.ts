import { afterAll, beforeAll, expect, test } from 'vitest';
import { DynamoWorkflowStore } from '../../../adapters/dynamodb/workflow-store';
import { ConflictError } from '../../../core/errors';
import type { WorkflowGraph } from '../../../core/engine/types';
import { newId } from '../../../core/ids';
import type { Deployment, WorkflowRecord } from '../../../core/workflows/types';
import { bulk, type LocalDynamoDb, MemoryBlobStore, startLocalDynamoDb } from './local-dynamodb';

let dynamo: LocalDynamoDb;
let blobStore: MemoryBlobStore;
let store: DynamoWorkflowStore;

beforeAll(async () => {
  dynamo = await startLocalDynamoDb();
  blobStore = new MemoryBlobStore();
  store = new DynamoWorkflowStore({ client: dynamo.client, tableName: dynamo.entitiesTable, blobStore });
});

afterAll(async () => {
  await dynamo?.stop();
});

const aGraph = (code = 'return <start.topic>.toUpperCase()'): WorkflowGraph => ({
  blocks: {
    start: {
      id: 'start',
      type: 'start',
      name: 'Start',
      parentId: null,
      enabled: true,
      config: { inputFormat: [] },
    },
    shout: { id: 'shout', type: 'function', name: 'Shout', parentId: null, enabled: true, config: { code } },
  },
  edges: [{ id: 'e1', source: 'start', target: 'shout', sourceHandle: 'source' }],
  loops: {},
  parallels: {},
});

/** A graph whose JSON is well over 300 KB (and so could not be an item of 400 KB). */
const aLargeGraph = (): WorkflowGraph => aGraph(`return '${bulk(450 * 1024)}'`);

const aWorkflow = (overrides: Partial<WorkflowRecord> = {}): WorkflowRecord => ({
  id: newId('wf'),
  workspaceId: newId('ws'),
  folderId: null,
  name: 'Shouter',
  description: 'Upper-cases the topic',
  state: aGraph(),
  stateHash: 'hash-1',
  isDeployed: false,
  revision: 1,
  createdAt: '2025-01-02T03:04:05.000Z',
  updatedAt: '2025-01-02T03:04:05.000Z',
  ...overrides,
});

const aDeployment = (overrides: Partial<Deployment> = {}): Deployment => ({
  workflowId: newId('wf'),
  workspaceId: newId('ws'),
  version: 1,
  state: aGraph(),
  stateHash: 'hash-1',
  deployedAt: '2025-01-02T03:04:05.000Z',
  deployedBy: newId('usr'),
  ...overrides,
});

test('putWorkflow without an expected revision creates the workflow and getWorkflow returns it', async () => {
  // Prepare
  const workflow = aWorkflow();

  // Act
  await store.putWorkflow(workflow);
  const found = await store.getWorkflow(workflow.id);

  // Assess
  expect(found).toEqual(workflow);
});

test('getWorkflow of an unknown id returns undefined', async () => {
  // Act
  const found = await store.getWorkflow(newId('wf'));

  // Assess
  expect(found).toBeUndefined();
});

test('putWorkflow creating a workflow that exists fails with ConflictError and keeps the stored one', async () => {
  // Prepare
  const workflow = aWorkflow();
  await store.putWorkflow(workflow);

  // Act
  const attempt = store.putWorkflow({ ...workflow, name: 'Second' });

  // Assess
  await expect(attempt).rejects.toBeInstanceOf(ConflictError);
  expect(await store.getWorkflow(workflow.id)).toEqual(workflow);
});

test('putWorkflow with the stored revision replaces the workflow', async () => {
  // Prepare
  const workflow = aWorkflow();
  await store.putWorkflow(workflow);
  const updated: WorkflowRecord = {
    ...workflow,
    name: 'Renamed',
    isDeployed: true,
    deployedVersion: 1,
    deployedAt: '2025-01-03T00:00:00.000Z',
    deployedStateHash: 'hash-1',
    revision: 2,
    updatedAt: '2025-01-03T00:00:00.000Z',
  };

  // Act
  await store.putWorkflow(updated, 1);

  // Assess
  expect(await store.getWorkflow(workflow.id)).toEqual(updated);
});

test('putWorkflow with a stale revision fails with ConflictError and leaves the stored workflow unchanged', async () => {
  // Prepare
  const workflow = aWorkflow();
  await store.putWorkflow(workflow);
  const current = { ...workflow, name: 'Current', revision: 2 };
  await store.putWorkflow(current, 1);

  // Act
  const attempt = store.putWorkflow({ ...workflow, name: 'Stale edit', revision: 2 }, 1);

  // Assess
  await expect(attempt).rejects.toBeInstanceOf(ConflictError);
  expect(await store.getWorkflow(workflow.id)).toEqual(current);
});

test('putWorkflow with an expected revision of a workflow that does not exist fails with ConflictError', async () => {
  // Prepare
  const workflow = aWorkflow({ revision: 2 });

  // Act
  const attempt = store.putWorkflow(workflow, 1);

  // Assess
  await expect(attempt).rejects.toBeInstanceOf(ConflictError);
  expect(await store.getWorkflow(workflow.id)).toBeUndefined();
});

test("listWorkflows returns only that workspace's workflows, oldest first", async () => {
  // Prepare
  const workspaceId = newId('ws');
  const older = aWorkflow({ workspaceId, createdAt: '2025-01-01T00:00:00.000Z' });
  const newer = aWorkflow({ workspaceId, createdAt: '2025-02-01T00:00:00.000Z' });
  await store.putWorkflow(newer);
  await store.putWorkflow(older);
  await store.putWorkflow(aWorkflow());
  await store.putDeployment(aDeployment({ workflowId: older.id, workspaceId }));

  // Act
  const listed = await store.listWorkflows(workspaceId);

  // Assess
  expect(listed).toEqual([older, newer]);
  expect(await store.listWorkflows(newId('ws'))).toEqual([]);
});

test('deleteWorkflow removes the workflow from get and list', async () => {
  // Prepare
  const workflow = aWorkflow();
  await store.putWorkflow(workflow);

  // Act
  await store.deleteWorkflow(workflow.id);

  // Assess
  expect(await store.getWorkflow(workflow.id)).toBeUndefined();
  expect(await store.listWorkflows(workflow.workspaceId)).toEqual([]);
});

test('a workflow whose graph is over 300 KB round-trips through the blob store', async () => {
  // Prepare
  const workflow = aWorkflow({ state: aLargeGraph() });

  // Act
  await store.putWorkflow(workflow);

  // Assess
  expect(await store.getWorkflow(workflow.id)).toEqual(workflow);
  expect(await store.listWorkflows(workflow.workspaceId)).toEqual([workflow]);
  const raw = await dynamo.rawItem(dynamo.entitiesTable, `WF#${workflow.id}`, 'WF');
  expect(raw?.stateBlobKey?.S).toMatch(new RegExp(`^workflows/${workflow.id}/`));
  expect(raw?.stateJson).toBeUndefined();
});

test('putDeployment stores the deployment and getDeployment returns it', async () => {
  // Prepare
  const deployment = aDeployment({ version: 7 });

  // Act
  await store.putDeployment(deployment);

  // Assess
  expect(await store.getDeployment(deployment.workflowId, 7)).toEqual(deployment);
  expect(await store.getDeployment(deployment.workflowId, 8)).toBeUndefined();
  expect(
    await dynamo.rawItem(dynamo.entitiesTable, `WF#${deployment.workflowId}`, 'DEPLOY#0000000007'),
  ).toBeDefined();
});

test('putDeployment of a version that exists fails with ConflictError and keeps the first snapshot', async () => {
  // Prepare
  const deployment = aDeployment();
  await store.putDeployment(deployment);

  // Act
  const attempt = store.putDeployment({ ...deployment, state: aGraph('return 1'), stateHash: 'hash-2' });

  // Assess
  await expect(attempt).rejects.toBeInstanceOf(ConflictError);
  expect(await store.getDeployment(deployment.workflowId, deployment.version)).toEqual(deployment);
});

test('a deployment whose state is over 300 KB round-trips through the blob store', async () => {
  // Prepare
  const deployment = aDeployment({ version: 3, state: aLargeGraph() });

  // Act
  await store.putDeployment(deployment);

  // Assess
  const key = `deployments/${deployment.workflowId}/3.json`;
  expect(blobStore.objects.has(key)).toBe(true);
  const raw = await dynamo.rawItem(dynamo.entitiesTable, `WF#${deployment.workflowId}`, 'DEPLOY#0000000003');
  expect(raw?.stateBlobKey).toEqual({ S: key });
  expect(await store.getDeployment(deployment.workflowId, 3)).toEqual(deployment);
});

test('a second large deployment of the same version fails with ConflictError and leaves the stored blob alone', async () => {
  // Prepare
  const deployment = aDeployment({ state: aLargeGraph() });
  await store.putDeployment(deployment);
  const key = `deployments/${deployment.workflowId}/${deployment.version}.json`;
  const storedBlob = blobStore.objects.get(key);

  // Act
  const attempt = store.putDeployment({ ...deployment, state: aLargeGraph(), stateHash: 'other' });

  // Assess
  await expect(attempt).rejects.toBeInstanceOf(ConflictError);
  expect(blobStore.objects.get(key)).toBe(storedBlob);
});

test('putDeployment of a state over 300 KB without a blob store fails saying so', async () => {
  // Prepare
  const withoutBlobs = new DynamoWorkflowStore({ client: dynamo.client, tableName: dynamo.entitiesTable });
  const deployment = aDeployment({ state: aLargeGraph() });

  // Act
  const attempt = withoutBlobs.putDeployment(deployment);

  // Assess
  await expect(attempt).rejects.toThrow(/bytes.*blob store/);
  expect(await store.getDeployment(deployment.workflowId, deployment.version)).toBeUndefined();
});
