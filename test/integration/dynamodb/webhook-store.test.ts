import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoWebhookStore } from '../../../adapters/dynamodb/webhook-store';
import { newId } from '../../../core/ids';
import type { WebhookRecord } from '../../../core/webhooks/types';
import { type LocalDynamoDb, startLocalDynamoDb } from './local-dynamodb';

let dynamo: LocalDynamoDb;
let store: DynamoWebhookStore;

beforeAll(async () => {
  dynamo = await startLocalDynamoDb();
  store = new DynamoWebhookStore({ client: dynamo.client, tableName: dynamo.entitiesTable });
});

afterAll(async () => {
  await dynamo?.stop();
});

const aWebhook = (overrides: Partial<WebhookRecord> = {}): WebhookRecord => ({
  id: newId('whk'),
  workflowId: newId('wf'),
  workspaceId: newId('ws'),
  path: newId('path'),
  createdBy: newId('usr'),
  secretCiphertext: 'env1.file.a.b.c.d',
  createdAt: '2030-01-01T00:00:00.000Z',
  ...overrides,
});

describe('DynamoWebhookStore', () => {
  it('finds a webhook by its path with the record it was given', async () => {
    // Prepare
    const webhook = aWebhook();

    // Act
    const created = await store.createWebhook(webhook);
    const found = await store.getWebhookByPath(webhook.path);

    // Assess
    expect(created).toBe(true);
    expect(found).toEqual(webhook);
  });

  it('keeps a webhook without a secret without one', async () => {
    const { secretCiphertext: _none, ...webhook } = aWebhook();
    await store.createWebhook(webhook);
    expect(await store.getWebhookByPath(webhook.path)).toEqual(webhook);
  });

  it('answers undefined for a path nobody has', async () => {
    expect(await store.getWebhookByPath('nobody-has-this')).toBeUndefined();
  });

  it('refuses a path that is taken, by any workflow, and keeps the first webhook', async () => {
    // Prepare
    const first = aWebhook();
    await store.createWebhook(first);

    // Act
    const second = await store.createWebhook(aWebhook({ path: first.path }));

    // Assess
    expect(second).toBe(false);
    expect(await store.getWebhookByPath(first.path)).toEqual(first);
  });

  it('replaces the webhook named by replacingId, and no other', async () => {
    // Prepare
    const orphan = aWebhook();
    await store.createWebhook(orphan);
    const successor = aWebhook({ path: orphan.path });

    // Act
    const wrongHolder = await store.createWebhook(successor, { replacingId: newId('whk') });
    const replaced = await store.createWebhook(successor, { replacingId: orphan.id });

    // Assess
    expect(wrongHolder).toBe(false);
    expect(replaced).toBe(true);
    expect(await store.getWebhookByPath(orphan.path)).toEqual(successor);
    expect(await store.listWebhooks(orphan.workflowId)).toEqual([]);
    expect(await store.listWebhooks(successor.workflowId)).toEqual([successor]);
  });

  it("lists a workflow's webhooks oldest first, and none of another workflow's", async () => {
    // Prepare
    const workflowId = newId('wf');
    const later = aWebhook({ workflowId, createdAt: '2030-01-02T00:00:00.000Z' });
    const earlier = aWebhook({ workflowId, createdAt: '2030-01-01T00:00:00.000Z' });
    await store.createWebhook(later);
    await store.createWebhook(earlier);
    await store.createWebhook(aWebhook());

    // Act
    const listed = await store.listWebhooks(workflowId);

    // Assess
    expect(listed).toEqual([earlier, later]);
  });

  it('deletes a webhook of the workflow, freeing its path', async () => {
    // Prepare
    const webhook = aWebhook();
    await store.createWebhook(webhook);

    // Act
    const removed = await store.deleteWebhook(webhook.workflowId, webhook.id);

    // Assess
    expect(removed).toEqual(webhook);
    expect(await store.getWebhookByPath(webhook.path)).toBeUndefined();
    expect(await store.listWebhooks(webhook.workflowId)).toEqual([]);
    expect(await store.createWebhook(aWebhook({ path: webhook.path }))).toBe(true);
  });

  it("answers undefined for another workflow's webhook id and leaves it in place", async () => {
    // Prepare
    const webhook = aWebhook();
    await store.createWebhook(webhook);

    // Act
    const removed = await store.deleteWebhook(newId('wf'), webhook.id);

    // Assess
    expect(removed).toBeUndefined();
    expect(await store.getWebhookByPath(webhook.path)).toEqual(webhook);
  });

  it('stores the webhook as one item keyed by its path', async () => {
    const webhook = aWebhook();
    await store.createWebhook(webhook);
    const item = await dynamo.rawItem(dynamo.entitiesTable, `WEBHOOK#${webhook.path}`, 'HOOK');
    expect(item?.gsi1pk).toEqual({ S: `HOOKS#${webhook.workflowId}` });
  });
});
