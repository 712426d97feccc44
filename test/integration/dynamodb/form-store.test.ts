import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoFormStore } from '../../../adapters/dynamodb/form-store';
import type { FormRecord } from '../../../core/forms/types';
import { newId } from '../../../core/ids';
import { type LocalDynamoDb, startLocalDynamoDb } from './local-dynamodb';

let dynamo: LocalDynamoDb;
let store: DynamoFormStore;

beforeAll(async () => {
  dynamo = await startLocalDynamoDb();
  store = new DynamoFormStore({ client: dynamo.client, tableName: dynamo.entitiesTable });
});

afterAll(async () => {
  await dynamo?.stop();
});

let counter = 0;
const aForm = (overrides: Partial<FormRecord> = {}): FormRecord => ({
  id: newId('form'),
  workflowId: newId('wf'),
  workspaceId: newId('ws'),
  identifier: `form-${Date.now()}-${++counter}`,
  title: 'Contact',
  authType: 'password',
  passwordHash: 'scrypt$16384$8$1$salt$hash',
  createdBy: newId('usr'),
  createdAt: `2030-01-01T00:00:0${counter % 10}.000Z`,
  updatedAt: '2030-01-01T00:00:00.000Z',
  ...overrides,
});

describe('DynamoFormStore', () => {
  it('finds a form by its identifier and by its id with the record it was given', async () => {
    // Prepare
    const form = aForm({ fields: { name: { label: 'Name' } }, description: 'Hi' });

    // Act
    const created = await store.createForm(form);

    // Assess
    expect(created).toBe(true);
    expect(await store.getFormByIdentifier(form.identifier)).toEqual(form);
    expect(await store.getForm(form.id)).toEqual(form);
  });

  it('refuses a second form at a taken identifier and leaves the first as it was', async () => {
    const first = aForm();
    const second = aForm({ identifier: first.identifier });
    await store.createForm(first);

    const created = await store.createForm(second);

    expect(created).toBe(false);
    expect(await store.getFormByIdentifier(first.identifier)).toEqual(first);
    expect(await store.getForm(second.id)).toBeUndefined();
  });

  it('lists the forms of a workspace oldest first, and of a workflow', async () => {
    const workspaceId = newId('ws');
    const workflowId = newId('wf');
    const older = aForm({ workspaceId, workflowId, createdAt: '2030-01-01T00:00:00.000Z' });
    const newer = aForm({ workspaceId, createdAt: '2030-01-02T00:00:00.000Z' });
    await store.createForm(newer);
    await store.createForm(older);

    expect((await store.listForms(workspaceId)).map((form) => form.id)).toEqual([older.id, newer.id]);
    expect((await store.listWorkflowForms(workflowId)).map((form) => form.id)).toEqual([older.id]);
  });

  it('moves a form to a new identifier: found there and by id, the old identifier free', async () => {
    const form = aForm();
    await store.createForm(form);
    const moved = { ...form, identifier: `${form.identifier}-moved`, updatedAt: '2030-02-01T00:00:00.000Z' };

    const replaced = await store.replaceForm(form, moved);

    expect(replaced).toBe(true);
    expect(await store.getFormByIdentifier(moved.identifier)).toEqual(moved);
    expect(await store.getForm(form.id)).toEqual(moved);
    expect(await store.getFormByIdentifier(form.identifier)).toBeUndefined();
  });

  it('does not move a form onto a taken identifier', async () => {
    const taken = aForm();
    const form = aForm();
    await store.createForm(taken);
    await store.createForm(form);

    const replaced = await store.replaceForm(form, { ...form, identifier: taken.identifier });

    expect(replaced).toBe(false);
    expect(await store.getFormByIdentifier(taken.identifier)).toEqual(taken);
    expect(await store.getForm(form.id)).toEqual(form);
  });

  it('refuses a change made from a stale read, keeping the newer one', async () => {
    const form = aForm();
    await store.createForm(form);
    const first = { ...form, title: 'First', updatedAt: '2030-03-01T00:00:00.000Z' };
    await store.replaceForm(form, first);

    const stale = await store.replaceForm(form, {
      ...form,
      title: 'Stale',
      updatedAt: '2030-03-02T00:00:00.000Z',
    });

    expect(stale).toBe(false);
    expect((await store.getForm(form.id))?.title).toBe('First');
  });

  it('replaces a form at its identifier by another form (a reclaimed identifier), found by the new id only', async () => {
    const abandoned = aForm();
    await store.createForm(abandoned);
    const claimant = aForm({ identifier: abandoned.identifier });

    const replaced = await store.replaceForm(abandoned, claimant);

    expect(replaced).toBe(true);
    expect(await store.getForm(claimant.id)).toEqual(claimant);
    expect(await store.getForm(abandoned.id)).toBeUndefined();
  });

  it('deletes a form from both lookups, and only the form it was given', async () => {
    const form = aForm();
    await store.createForm(form);

    expect(await store.deleteForm(form)).toBe(true);
    expect(await store.deleteForm(form)).toBe(false);
    expect(await store.getForm(form.id)).toBeUndefined();
    expect(await store.getFormByIdentifier(form.identifier)).toBeUndefined();
  });

  it('never answers a form by an id whose pointer names an identifier another form now has', async () => {
    const gone = aForm();
    await store.createForm(gone);
    await store.deleteForm(gone);
    const newcomer = aForm({ identifier: gone.identifier });
    await store.createForm(newcomer);

    expect(await store.getForm(gone.id)).toBeUndefined();
    expect(await store.getForm(newcomer.id)).toEqual(newcomer);
  });
});
