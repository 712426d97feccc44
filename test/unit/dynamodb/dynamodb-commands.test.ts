import {
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
} from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, expect, test } from 'vitest';
import { DynamoCheckpointStore } from '../../../adapters/dynamodb/checkpoint-store';
import { DynamoExecutionLogStore } from '../../../adapters/dynamodb/execution-log-store';
import { DynamoIdentityStore } from '../../../adapters/dynamodb/identity-store';
import { DynamoWorkflowStore } from '../../../adapters/dynamodb/workflow-store';
import { ConflictError } from '../../../core/errors';

const client = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
const dynamo = mockClient(client);

afterEach(() => {
  dynamo.reset();
});

function conditionFailed(): ConditionalCheckFailedException {
  return new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} });
}

test('findApiKeyByHash is one strongly consistent GetItem on the hash key', async () => {
  // Prepare
  dynamo.on(GetCommand).resolves({ Item: undefined });
  const store = new DynamoIdentityStore({ client, tableName: 'entities' });

  // Act
  await store.findApiKeyByHash('abc123');

  // Assess
  const calls = dynamo.calls();
  expect(calls).toHaveLength(1);
  expect(calls[0].args[0].input).toEqual({
    TableName: 'entities',
    Key: { pk: 'APIKEY#abc123', sk: 'APIKEY' },
    ConsistentRead: true,
  });
});

test('no store method issues a Scan', async () => {
  // Prepare
  dynamo.on(GetCommand).resolves({});
  dynamo.on(QueryCommand).resolves({ Items: [] });
  dynamo.on(PutCommand).resolves({});
  dynamo.on(DeleteCommand).resolves({});
  const identity = new DynamoIdentityStore({ client, tableName: 'entities' });
  const workflows = new DynamoWorkflowStore({ client, tableName: 'entities' });
  const logs = new DynamoExecutionLogStore({ client, tableName: 'executions' });
  const checkpoints = new DynamoCheckpointStore({ client, tableName: 'executions' });

  // Act
  await identity.getUser('u');
  await identity.findUserByEmail('a@example.com');
  await identity.listApiKeys('u');
  await identity.deleteApiKey('u', 'k');
  await identity.getWorkspace('w');
  await identity.listWorkspaceMembershipsOfUser('u');
  await identity.listWorkspaceMembers('w');
  await identity.getOrganization('o');
  await identity.listOrganizationMembershipsOfUser('u');
  await workflows.getWorkflow('wf');
  await workflows.listWorkflows('w');
  await workflows.getDeployment('wf', 1);
  await workflows.deleteWorkflow('wf');
  await logs.getLogEntry('l');
  await logs.getLogEntryByExecutionId('e');
  await checkpoints.load('e');
  await checkpoints.delete('e');

  // Assess
  expect(dynamo.commandCalls(ScanCommand)).toHaveLength(0);
  for (const call of dynamo.commandCalls(QueryCommand)) {
    expect(call.args[0].input.KeyConditionExpression).toBeTruthy();
  }
});

test('listWorkflows follows LastEvaluatedKey across pages', async () => {
  // Prepare
  const item = (id: string) => ({
    pk: `WF#${id}`,
    sk: 'WF',
    id,
    gsi1pk: 'WS#w',
    gsi1sk: `WF#t#${id}`,
    stateJson: '{}',
  });
  dynamo
    .on(QueryCommand)
    .resolvesOnce({ Items: [item('a')], LastEvaluatedKey: { pk: 'WF#a', sk: 'WF' } })
    .resolvesOnce({ Items: [item('b')] });
  const store = new DynamoWorkflowStore({ client, tableName: 'entities' });

  // Act
  const listed = await store.listWorkflows('w');

  // Assess
  expect(listed.map((workflow) => workflow.id)).toEqual(['a', 'b']);
  expect(dynamo.commandCalls(QueryCommand)[1].args[0].input.ExclusiveStartKey).toEqual({
    pk: 'WF#a',
    sk: 'WF',
  });
});

test('putWorkflow maps a failed revision condition to ConflictError and passes other errors through', async () => {
  // Prepare
  const store = new DynamoWorkflowStore({ client, tableName: 'entities' });
  const workflow = {
    id: 'wf',
    workspaceId: 'w',
    folderId: null,
    name: 'n',
    description: '',
    state: { blocks: {}, edges: [], loops: {}, parallels: {} },
    stateHash: 'h',
    isDeployed: false,
    revision: 3,
    createdAt: 't',
    updatedAt: 't',
  };
  const throttled = Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });
  dynamo.on(PutCommand).rejectsOnce(conditionFailed()).rejectsOnce(throttled);

  // Act
  const stale = await store.putWorkflow(workflow, 2).catch((error: unknown) => error);
  const failing = await store.putWorkflow(workflow, 2).catch((error: unknown) => error);

  // Assess
  expect(stale).toBeInstanceOf(ConflictError);
  expect(failing).toBe(throttled);
  expect(dynamo.commandCalls(PutCommand)[0].args[0].input).toMatchObject({
    ConditionExpression: '#revision = :expected',
    ExpressionAttributeValues: { ':expected': 2 },
  });
});
