/**
 * Webhook trigger use cases: create, list and delete a workflow's webhooks (workspace `write` to
 * change, `read` to list), and resolve a call of one: check its secret, and name the workflow and
 * the user the run acts as. Starting the run is the job service's (an async run, trigger `webhook`).
 */
import { randomBytes } from 'node:crypto';
import type { SecretCipher } from '../environment/types';
import { ConflictError, NotFoundError, UnauthorizedError } from '../errors';
import { newId } from '../ids';
import type { Principal } from '../identity/service';
import type { IdentityStore } from '../identity/types';
import { loadWorkflow } from '../workflows/service';
import type { WorkflowStore } from '../workflows/types';
import { isWebhookPath } from './rules';
import { checkWebhookCall } from './signature';
import type { WebhookRecord, WebhookStore, WebhookView } from './types';

export interface WebhookDeps {
  identity: IdentityStore;
  workflows: Pick<WorkflowStore, 'getWorkflow'>;
  webhooks: WebhookStore;
  /** Encrypts secrets under the workspace id (the environment key). */
  cipher: SecretCipher;
  now: () => Date;
}

export function webhookPathUrl(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/api/webhooks/trigger/${path}`;
}

function viewOf(record: WebhookRecord, baseUrl: string): WebhookView {
  return {
    id: record.id,
    workflowId: record.workflowId,
    path: record.path,
    url: webhookPathUrl(baseUrl, record.path),
    hasSecret: record.secretCiphertext !== undefined,
    createdAt: record.createdAt,
  };
}

export async function createWebhook(
  deps: WebhookDeps,
  principal: Principal,
  workflowId: string,
  input: { path?: string; secret?: string },
  baseUrl: string,
): Promise<WebhookView> {
  const workflow = await loadWorkflow(deps, principal, workflowId, 'write');
  const record: WebhookRecord = {
    id: newId('whk'),
    workflowId,
    workspaceId: workflow.workspaceId,
    // Unguessable when generated: without a secret, the path is what keeps strangers out.
    path: input.path ?? randomBytes(16).toString('hex'),
    createdBy: principal.user.id,
    ...(input.secret === undefined
      ? {}
      : { secretCiphertext: await deps.cipher.encrypt(input.secret, workflow.workspaceId) }),
    createdAt: deps.now().toISOString(),
  };
  if (!(await deps.webhooks.createWebhook(record))) await reclaimPath(deps, record);
  return viewOf(record, baseUrl);
}

/**
 * A path stays taken while its webhook's workflow exists. One whose workflow was deleted (and the
 * cleanup of its webhooks did not happen) is free: the new webhook replaces that one only, so two
 * creators racing for it cannot both win.
 */
async function reclaimPath(deps: WebhookDeps, record: WebhookRecord): Promise<void> {
  const taken = `Webhook path "${record.path}" is taken: choose another`;
  const holder = await deps.webhooks.getWebhookByPath(record.path);
  if (holder && (await deps.workflows.getWorkflow(holder.workflowId))) throw new ConflictError(taken);
  const stored = await deps.webhooks.createWebhook(record, holder ? { replacingId: holder.id } : undefined);
  if (!stored) throw new ConflictError(taken);
}

export async function listWebhooks(
  deps: WebhookDeps,
  principal: Principal,
  workflowId: string,
  baseUrl: string,
): Promise<WebhookView[]> {
  await loadWorkflow(deps, principal, workflowId, 'read');
  return (await deps.webhooks.listWebhooks(workflowId)).map((record) => viewOf(record, baseUrl));
}

export async function deleteWebhook(
  deps: WebhookDeps,
  principal: Principal,
  workflowId: string,
  webhookId: string,
): Promise<{ id: string; deleted: true }> {
  await loadWorkflow(deps, principal, workflowId, 'write');
  const removed = await deps.webhooks.deleteWebhook(workflowId, webhookId);
  if (!removed) throw new NotFoundError(`Webhook ${webhookId} not found`);
  return { id: webhookId, deleted: true };
}

/** Removes every webhook of a workflow, so that its paths are free again once it is deleted. */
export async function deleteWorkflowWebhooks(
  deps: Pick<WebhookDeps, 'webhooks'>,
  workflowId: string,
): Promise<void> {
  for (const webhook of await deps.webhooks.listWebhooks(workflowId)) {
    await deps.webhooks.deleteWebhook(workflowId, webhook.id);
  }
}

export interface WebhookCall {
  signatureHeader?: string;
  authorizationHeader?: string;
  rawBody: string;
}

/**
 * The workflow a call starts and the principal its run acts as (the webhook's creator). An unknown
 * path, or a webhook whose workflow or creator is gone, is a 404; a wrong or missing signature or
 * token is a 401 saying which.
 */
export async function resolveWebhookCall(
  deps: WebhookDeps,
  path: string,
  call: WebhookCall,
): Promise<{ principal: Principal; workflowId: string; webhookId: string }> {
  const notFound = `No webhook at path ${path}`;
  if (!isWebhookPath(path)) throw new NotFoundError(notFound);
  const webhook = await deps.webhooks.getWebhookByPath(path);
  if (!webhook) throw new NotFoundError(notFound);
  if (webhook.secretCiphertext !== undefined) {
    const secret = await deps.cipher.decrypt(webhook.secretCiphertext, webhook.workspaceId);
    const check = checkWebhookCall(secret, call, deps.now().getTime());
    if (!check.valid) throw new UnauthorizedError(check.reason);
  }
  const [workflow, user] = await Promise.all([
    deps.workflows.getWorkflow(webhook.workflowId),
    deps.identity.getUser(webhook.createdBy),
  ]);
  if (!workflow || !user) throw new NotFoundError(notFound);
  return {
    principal: { user, apiKeyId: `webhook:${webhook.id}` },
    workflowId: webhook.workflowId,
    webhookId: webhook.id,
  };
}
