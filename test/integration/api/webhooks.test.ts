import { describe, expect, it } from 'vitest';
import { DynamoExecutionLogStore } from '../../../adapters/dynamodb/execution-log-store';
import { signatureOf } from '../../../core/webhooks/signature';
import {
  deployedWorkflow,
  finishedJob,
  request,
  type Tenant,
  threeBlockGraph,
  useLocalService,
} from '../../support/service';

const service = useLocalService();

let counter = 0;
const uniquePath = (name: string) => `${name}-${Date.now()}-${++counter}`;

async function webhookOf(tenant: Tenant, workflowId: string, body: Record<string, unknown> = {}) {
  const answer = await tenant.call('POST', `/api/workflows/${workflowId}/webhooks`, body);
  if (answer.status !== 201) throw new Error(`Webhook not created: ${JSON.stringify(answer.body)}`);
  return answer.body.data as { id: string; path: string; url: string; hasSecret: boolean };
}

function call(path: string, rawBody: string, headers: Record<string, string> = {}) {
  return request(service.get().url, 'POST', `/api/webhooks/trigger/${path}`, {
    headers: { 'content-type': 'application/json', ...headers },
    rawBody,
  });
}

/** A second user added to `owner`'s workspace with the given permissions. */
async function memberOf(owner: Tenant, permissions: 'read' | 'write'): Promise<Tenant> {
  const member = await service.get().newTenant(`${permissions}-member`);
  await setPermissions(owner, member, permissions);
  return { ...member, workspaceId: owner.workspaceId };
}

async function setPermissions(owner: Tenant, member: Tenant, permissions: 'read' | 'write') {
  const answer = await service.get().admin('POST', `/api/v1/admin/workspaces/${owner.workspaceId}/members`, {
    userId: member.userId,
    permissions,
  });
  if (answer.status !== 200) throw new Error(`Member not set: ${JSON.stringify(answer.body)}`);
}

describe('webhook management', () => {
  it('creates a webhook with a generated path, its url, and never shows its secret', async () => {
    // Prepare
    const tenant = await service.get().newTenant('hooks');
    const id = await deployedWorkflow(tenant);

    // Act
    const created = await tenant.call('POST', `/api/workflows/${id}/webhooks`, {
      secret: 'whsec_0123456789',
    });
    const listed = await tenant.call('GET', `/api/workflows/${id}/webhooks`);

    // Assess
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({
      id: expect.stringMatching(/^whk_/),
      workflowId: id,
      path: expect.stringMatching(/^[0-9a-f]{32}$/),
      url: `${service.get().url}/api/webhooks/trigger/${created.body.data.path}`,
      hasSecret: true,
      createdAt: expect.any(String),
    });
    expect(listed.body.data).toEqual([created.body.data]);
    expect(JSON.stringify([created.body, listed.body])).not.toContain('whsec_0123456789');
  });

  it('refuses a path another webhook has with 409', async () => {
    const tenant = await service.get().newTenant('hooks');
    const id = await deployedWorkflow(tenant);
    const path = uniquePath('taken');
    await webhookOf(tenant, id, { path });
    const again = await tenant.call('POST', `/api/workflows/${id}/webhooks`, { path });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('CONFLICT');
  });

  it('refuses a path with characters outside letters, digits, - and _ with 400 naming path', async () => {
    const tenant = await service.get().newTenant('hooks');
    const id = await deployedWorkflow(tenant);
    const answer = await tenant.call('POST', `/api/workflows/${id}/webhooks`, { path: '../escape' });
    expect(answer.status).toBe(400);
    expect(answer.body.details[0].path).toBe('path');
  });

  it('deletes a webhook, after which its path is a 404', async () => {
    // Prepare
    const tenant = await service.get().newTenant('hooks');
    const id = await deployedWorkflow(tenant);
    const hook = await webhookOf(tenant, id);

    // Act
    const deleted = await tenant.call('DELETE', `/api/workflows/${id}/webhooks/${hook.id}`);
    const again = await tenant.call('DELETE', `/api/workflows/${id}/webhooks/${hook.id}`);
    const fired = await call(hook.path, '{"name":"ada"}');

    // Assess
    expect(deleted.status).toBe(200);
    expect(again.status).toBe(404);
    expect(fired.status).toBe(404);
  });

  it("answers 404 for a webhook id of the tenant's other workflow, and leaves that webhook working", async () => {
    // Prepare
    const tenant = await service.get().newTenant('hooks');
    const first = await deployedWorkflow(tenant);
    const second = await deployedWorkflow(tenant);
    const hook = await webhookOf(tenant, first);

    // Act
    const deleted = await tenant.call('DELETE', `/api/workflows/${second}/webhooks/${hook.id}`);
    const fired = await call(hook.path, '{"name":"ada"}');

    // Assess
    expect(deleted.status).toBe(404);
    expect(fired.status).toBe(202);
  });

  it('lets a new webhook take the path of one whose workflow was deleted', async () => {
    // Prepare
    const tenant = await service.get().newTenant('hooks');
    const gone = await deployedWorkflow(tenant);
    const kept = await deployedWorkflow(tenant);
    const path = uniquePath('reused');
    await webhookOf(tenant, gone, { path });
    await tenant.call('DELETE', `/api/workflows/${gone}`);

    // Act
    const created = await tenant.call('POST', `/api/workflows/${kept}/webhooks`, { path });
    const fired = await call(path, '{"name":"ada"}');

    // Assess
    expect(created.status).toBe(201);
    expect(created.body.data.workflowId).toBe(kept);
    expect(fired.status).toBe(202);
  });

  it('needs write to create and delete, and read to list', async () => {
    // Prepare
    const owner = await service.get().newTenant('owner');
    const reader = await memberOf(owner, 'read');
    const id = await deployedWorkflow(owner);
    const hook = await webhookOf(owner, id);

    // Act
    const created = await reader.call('POST', `/api/workflows/${id}/webhooks`, {});
    const deleted = await reader.call('DELETE', `/api/workflows/${id}/webhooks/${hook.id}`);
    const listed = await reader.call('GET', `/api/workflows/${id}/webhooks`);

    // Assess
    expect([created.status, deleted.status, listed.status]).toEqual([403, 403, 200]);
    expect(listed.body.data).toEqual([hook]);
  });

  it("answers 404 for another tenant's workflow webhooks", async () => {
    const owner = await service.get().newTenant('owner');
    const stranger = await service.get().newTenant('stranger');
    const id = await deployedWorkflow(owner);
    const hook = await webhookOf(owner, id);
    expect((await stranger.call('GET', `/api/workflows/${id}/webhooks`)).status).toBe(404);
    expect((await stranger.call('POST', `/api/workflows/${id}/webhooks`, {})).status).toBe(404);
    expect((await stranger.call('DELETE', `/api/workflows/${id}/webhooks/${hook.id}`)).status).toBe(404);
  });
});

describe('webhook calls', () => {
  it('start the workflow with the body as its input: 202, a job that completes, trigger webhook', async () => {
    // Prepare
    const tenant = await service.get().newTenant('calls');
    const id = await deployedWorkflow(tenant);
    const hook = await webhookOf(tenant, id);

    // Act
    const accepted = await call(hook.path, '{"name":"ada"}');
    const job = await finishedJob(tenant, accepted.body.taskId);

    // Assess
    expect(accepted.status).toBe(202);
    expect(accepted.body).toEqual({
      success: true,
      taskId: expect.any(String),
      status: 'queued',
      createdAt: expect.any(String),
      links: { status: `/api/jobs/${accepted.body.taskId}` },
    });
    expect(job.body).toMatchObject({ status: 'completed', output: { shouted: 'ADA' } });
    const entry = await DynamoExecutionLogStore.fromEnv().getLogEntryByExecutionId(accepted.body.taskId);
    expect(entry?.trigger).toBe('webhook');
  });

  it('accept a call signed with the secret over "<t>.<raw body>"', async () => {
    const tenant = await service.get().newTenant('calls');
    const id = await deployedWorkflow(tenant);
    const hook = await webhookOf(tenant, id, { secret: 'whsec_signing-secret' });
    const body = '{"name":"ada"}';
    const t = Date.now();
    const answer = await call(hook.path, body, {
      'svc-signature': `t=${t},v1=${signatureOf('whsec_signing-secret', t, body)}`,
    });
    expect(answer.status).toBe(202);
  });

  it('accept the secret as a bearer token', async () => {
    const tenant = await service.get().newTenant('calls');
    const id = await deployedWorkflow(tenant);
    const hook = await webhookOf(tenant, id, { secret: 'whsec_bearer-secret' });
    const answer = await call(hook.path, '{"name":"ada"}', { authorization: 'Bearer whsec_bearer-secret' });
    expect(answer.status).toBe(202);
  });

  it('refuse a wrong signature, a stale one, and none at all with 401', async () => {
    // Prepare
    const tenant = await service.get().newTenant('calls');
    const id = await deployedWorkflow(tenant);
    const hook = await webhookOf(tenant, id, { secret: 'whsec_right-secret' });
    const body = '{"name":"ada"}';
    const stale = Date.now() - 10 * 60_000;

    // Act
    const wrong = await call(hook.path, body, {
      'svc-signature': `t=${Date.now()},v1=${signatureOf('nope', Date.now(), body)}`,
    });
    const old = await call(hook.path, body, {
      'svc-signature': `t=${stale},v1=${signatureOf('whsec_right-secret', stale, body)}`,
    });
    const none = await call(hook.path, body);

    // Assess
    expect([wrong.status, old.status, none.status]).toEqual([401, 401, 401]);
    expect(wrong.body).toEqual({ error: 'The signature does not match', code: 'UNAUTHORIZED' });
    expect(old.body.error).toContain('more than 5 minutes');
  });

  it('check the input like execute: a missing field is a 400 naming it, bad JSON is INVALID_JSON', async () => {
    const tenant = await service.get().newTenant('calls');
    const id = await deployedWorkflow(tenant);
    const hook = await webhookOf(tenant, id);
    const missing = await call(hook.path, '{}');
    const broken = await call(hook.path, '{"name":');
    expect(missing.status).toBe(400);
    expect(missing.body.error).toContain('name');
    expect(broken.status).toBe(400);
    expect(broken.body.code).toBe('INVALID_JSON');
  });

  it('answer 404 for an unknown path and 403 for a workflow that is not deployed', async () => {
    const tenant = await service.get().newTenant('calls');
    const id = await deployedWorkflow(tenant);
    const hook = await webhookOf(tenant, id);
    await tenant.call('POST', `/api/workflows/${id}/undeploy`);
    expect((await call(uniquePath('unknown'), '{}')).status).toBe(404);
    expect((await call(hook.path, '{"name":"ada"}')).status).toBe(403);
  });

  it('start a workflow without required inputs from an empty body', async () => {
    const tenant = await service.get().newTenant('calls');
    const id = await deployedWorkflow(tenant, threeBlockGraph({ inputFormat: [], code: 'return "hi";' }));
    const hook = await webhookOf(tenant, id);
    const answer = await call(hook.path, '');
    expect(answer.status).toBe(202);
    expect((await finishedJob(tenant, answer.body.taskId)).body).toMatchObject({
      status: 'completed',
      output: { shouted: 'hi' },
    });
  });

  it('check the input types like execute: a mistyped field is a 400 naming it', async () => {
    const tenant = await service.get().newTenant('calls');
    const id = await deployedWorkflow(
      tenant,
      threeBlockGraph({ inputFormat: [{ name: 'age', type: 'number', required: true }], code: 'return 1;' }),
    );
    const hook = await webhookOf(tenant, id);
    const answer = await call(hook.path, '{"age":"old"}');
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('VALIDATION_ERROR');
    expect(answer.body.error).toContain('age');
  });

  it('refuse a body that is JSON but not an object with 400', async () => {
    const tenant = await service.get().newTenant('calls');
    const id = await deployedWorkflow(tenant);
    const hook = await webhookOf(tenant, id);
    const answer = await call(hook.path, '["ada"]');
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('VALIDATION_ERROR');
  });

  it('check the signature over the bytes sent, whatever the gateway encoding, before the media type', async () => {
    // Prepare
    const tenant = await service.get().newTenant('calls');
    const id = await deployedWorkflow(tenant);
    const hook = await webhookOf(tenant, id, { secret: 'whsec_binary-secret' });
    const body = '{"name":"ada"}';
    const t = Date.now();

    // Act
    // The local server, like API Gateway, hands a body of a non-text media type on base64-encoded.
    const answer = await call(hook.path, body, {
      'content-type': 'application/octet-stream',
      'svc-signature': `t=${t},v1=${signatureOf('whsec_binary-secret', t, body)}`,
    });

    // Assess
    expect(answer.status).toBe(415);
  });

  it('answer 404 for a path no webhook could have', async () => {
    expect((await call('not.a.path', '{}')).status).toBe(404);
    expect((await call('x'.repeat(200), '{}')).status).toBe(404);
  });

  it('fail as execute does once the creator has lost write: 403 for a reader, 404 for a stranger', async () => {
    // Prepare
    const owner = await service.get().newTenant('owner');
    const writer = await memberOf(owner, 'write');
    const id = await deployedWorkflow(owner);
    const hook = await webhookOf(writer, id);

    // Act
    await setPermissions(owner, writer, 'read');
    const asReader = await call(hook.path, '{"name":"ada"}');
    await service
      .get()
      .admin('DELETE', `/api/v1/admin/workspaces/${owner.workspaceId}/members?userId=${writer.userId}`);
    const asStranger = await call(hook.path, '{"name":"ada"}');

    // Assess
    expect(asReader.status).toBe(403);
    expect(asStranger.status).toBe(404);
  });

  it('answer 404 once the workflow is deleted', async () => {
    const tenant = await service.get().newTenant('calls');
    const id = await deployedWorkflow(tenant);
    const hook = await webhookOf(tenant, id);
    await tenant.call('DELETE', `/api/workflows/${id}`);
    expect((await call(hook.path, '{"name":"ada"}')).status).toBe(404);
  });
});
