import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConflictError, ForbiddenError, NotFoundError, UnauthorizedError } from '../../../core/errors';
import {
  createWebhook,
  deleteWebhook,
  deleteWorkflowWebhooks,
  listWebhooks,
  resolveWebhookCall,
} from '../../../core/webhooks/service';
import { signatureOf } from '../../../core/webhooks/signature';
import { principal, webhookFixture } from './fakes';

const NOW = new Date('2030-03-04T05:06:07.000Z');
const BASE = 'https://hooks.example.com';
const writer = principal('usr_writer');
const reader = principal('usr_reader');
const stranger = principal('usr_stranger');

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(NOW);
});

afterEach(() => {
  vi.useRealTimers();
});

describe('createWebhook', () => {
  it('generates an unguessable, url-safe path when none is given, and answers its url', async () => {
    // Prepare
    const { deps } = webhookFixture();

    // Act
    const view = await createWebhook(deps, writer, 'wf_1', {}, `${BASE}/`);

    // Assess
    expect(view).toEqual({
      id: expect.stringMatching(/^whk_/),
      workflowId: 'wf_1',
      path: expect.stringMatching(/^[0-9a-f]{32}$/),
      url: `${BASE}/api/webhooks/trigger/${view.path}`,
      hasSecret: false,
      createdAt: NOW.toISOString(),
    });
  });

  it('gives two webhooks created without a path different paths', async () => {
    const { deps } = webhookFixture();
    const first = await createWebhook(deps, writer, 'wf_1', {}, BASE);
    const second = await createWebhook(deps, writer, 'wf_1', {}, BASE);
    expect(first.path).not.toBe(second.path);
  });

  it('stores the secret only encrypted, under the workspace, and answers hasSecret', async () => {
    // Prepare
    const { deps, webhooks } = webhookFixture();

    // Act
    const view = await createWebhook(
      deps,
      writer,
      'wf_1',
      { path: 'orders', secret: 'whsec_12345678' },
      BASE,
    );

    // Assess
    const stored = webhooks.byPath.get('orders');
    expect(view.hasSecret).toBe(true);
    expect(JSON.stringify([view, stored])).not.toContain('whsec_12345678');
    expect(stored?.createdBy).toBe('usr_writer');
    await expect(deps.cipher.decrypt(stored?.secretCiphertext as string, 'ws_1')).resolves.toBe(
      'whsec_12345678',
    );
    await expect(deps.cipher.decrypt(stored?.secretCiphertext as string, 'ws_2')).rejects.toThrow();
  });

  it('refuses a path that a webhook of any existing workflow holds with a conflict', async () => {
    // Prepare
    const { deps } = webhookFixture();
    await createWebhook(deps, writer, 'wf_1', { path: 'orders' }, BASE);

    // Act
    const again = createWebhook(deps, writer, 'wf_2', { path: 'orders' }, BASE);

    // Assess
    await expect(again).rejects.toThrow(ConflictError);
  });

  it('takes over the path of a webhook whose workflow was deleted', async () => {
    // Prepare
    const { deps, webhooks, workflows } = webhookFixture();
    const orphan = await createWebhook(deps, writer, 'wf_1', { path: 'orders' }, BASE);
    workflows.workflows.delete('wf_1');

    // Act
    const view = await createWebhook(deps, writer, 'wf_2', { path: 'orders' }, BASE);

    // Assess
    expect(view.workflowId).toBe('wf_2');
    expect(webhooks.byPath.get('orders')?.id).toBe(view.id);
    expect(view.id).not.toBe(orphan.id);
  });

  it('needs write on the workspace, and hides another tenant’s workflow as not found', async () => {
    const { deps } = webhookFixture();
    await expect(createWebhook(deps, reader, 'wf_1', {}, BASE)).rejects.toThrow(ForbiddenError);
    await expect(createWebhook(deps, stranger, 'wf_1', {}, BASE)).rejects.toThrow(NotFoundError);
  });
});

describe('listWebhooks', () => {
  it('answers the workflow’s webhooks, oldest first, to a reader, without secrets', async () => {
    // Prepare
    const { deps } = webhookFixture();
    const first = await createWebhook(deps, writer, 'wf_1', { secret: 'whsec_12345678' }, BASE);
    vi.advanceTimersByTime(1000);
    const second = await createWebhook(deps, writer, 'wf_1', {}, BASE);
    await createWebhook(deps, writer, 'wf_2', {}, BASE);

    // Act
    const listed = await listWebhooks(deps, reader, 'wf_1', BASE);

    // Assess
    expect(listed).toEqual([first, second]);
  });

  it('hides another tenant’s workflow as not found', async () => {
    const { deps } = webhookFixture();
    await expect(listWebhooks(deps, stranger, 'wf_1', BASE)).rejects.toThrow(NotFoundError);
  });
});

describe('deleteWebhook', () => {
  it('removes the webhook, so that its path is unknown afterwards', async () => {
    // Prepare
    const { deps } = webhookFixture();
    const hook = await createWebhook(deps, writer, 'wf_1', {}, BASE);

    // Act
    const deleted = await deleteWebhook(deps, writer, 'wf_1', hook.id);

    // Assess
    expect(deleted).toEqual({ id: hook.id, deleted: true });
    await expect(resolveWebhookCall(deps, hook.path, { rawBody: '' })).rejects.toThrow(NotFoundError);
  });

  it('answers not found for a webhook of another workflow, and leaves it in place', async () => {
    // Prepare
    const { deps, webhooks } = webhookFixture();
    const hook = await createWebhook(deps, writer, 'wf_1', {}, BASE);

    // Act
    const attempt = deleteWebhook(deps, writer, 'wf_2', hook.id);

    // Assess
    await expect(attempt).rejects.toThrow(NotFoundError);
    expect(webhooks.byPath.has(hook.path)).toBe(true);
  });

  it('needs write on the workspace', async () => {
    const { deps } = webhookFixture();
    const hook = await createWebhook(deps, writer, 'wf_1', {}, BASE);
    await expect(deleteWebhook(deps, reader, 'wf_1', hook.id)).rejects.toThrow(ForbiddenError);
  });
});

describe('deleteWorkflowWebhooks', () => {
  it('removes every webhook of the workflow and no other', async () => {
    // Prepare
    const { deps, webhooks } = webhookFixture();
    await createWebhook(deps, writer, 'wf_1', { path: 'a' }, BASE);
    await createWebhook(deps, writer, 'wf_1', { path: 'b' }, BASE);
    await createWebhook(deps, writer, 'wf_2', { path: 'c' }, BASE);

    // Act
    await deleteWorkflowWebhooks(deps, 'wf_1');

    // Assess
    expect([...webhooks.byPath.keys()]).toEqual(['c']);
  });
});

describe('resolveWebhookCall', () => {
  it('names the workflow and acts as the webhook’s creator when it has no secret', async () => {
    // Prepare
    const { deps } = webhookFixture();
    const hook = await createWebhook(deps, writer, 'wf_1', { path: 'open' }, BASE);

    // Act
    const resolved = await resolveWebhookCall(deps, 'open', { rawBody: '{}' });

    // Assess
    expect(resolved).toEqual({
      principal: { user: writer.user, apiKeyId: `webhook:${hook.id}` },
      workflowId: 'wf_1',
      webhookId: hook.id,
    });
  });

  it('accepts a call signed now, and refuses the same call once it is more than 5 minutes old', async () => {
    // Prepare
    const { deps } = webhookFixture();
    await createWebhook(deps, writer, 'wf_1', { path: 'signed', secret: 'whsec_12345678' }, BASE);
    const rawBody = '{"orderId":"A-1"}';
    const t = Date.now();
    const call = { rawBody, signatureHeader: `t=${t},v1=${signatureOf('whsec_12345678', t, rawBody)}` };

    // Act
    const fresh = await resolveWebhookCall(deps, 'signed', call);
    vi.advanceTimersByTime(5 * 60_000 + 1);
    const replayed = resolveWebhookCall(deps, 'signed', call);

    // Assess
    expect(fresh.workflowId).toBe('wf_1');
    await expect(replayed).rejects.toThrow(UnauthorizedError);
    await expect(replayed).rejects.toThrow('more than 5 minutes');
  });

  it('accepts the secret as a bearer token and refuses a call with neither token nor signature', async () => {
    const { deps } = webhookFixture();
    await createWebhook(deps, writer, 'wf_1', { path: 'bearer', secret: 'whsec_12345678' }, BASE);
    await expect(
      resolveWebhookCall(deps, 'bearer', { rawBody: '', authorizationHeader: 'Bearer whsec_12345678' }),
    ).resolves.toMatchObject({ workflowId: 'wf_1' });
    await expect(resolveWebhookCall(deps, 'bearer', { rawBody: '' })).rejects.toThrow(UnauthorizedError);
  });

  it('answers not found for an unknown path, and for one no webhook could have', async () => {
    const { deps } = webhookFixture();
    await expect(resolveWebhookCall(deps, 'nobody-here', { rawBody: '' })).rejects.toThrow(NotFoundError);
    await expect(resolveWebhookCall(deps, '../etc', { rawBody: '' })).rejects.toThrow(NotFoundError);
    await expect(resolveWebhookCall(deps, 'x'.repeat(129), { rawBody: '' })).rejects.toThrow(NotFoundError);
  });

  it('answers not found once the workflow is deleted, or the creator is gone', async () => {
    // Prepare
    const { deps, workflows, people } = webhookFixture();
    await createWebhook(deps, writer, 'wf_1', { path: 'gone-workflow' }, BASE);
    await createWebhook(deps, writer, 'wf_2', { path: 'gone-user' }, BASE);

    // Act
    workflows.workflows.delete('wf_1');
    people.users.delete('usr_writer');

    // Assess
    await expect(resolveWebhookCall(deps, 'gone-workflow', { rawBody: '' })).rejects.toThrow(NotFoundError);
    await expect(resolveWebhookCall(deps, 'gone-user', { rawBody: '' })).rejects.toThrow(NotFoundError);
  });
});
