/**
 * Calling the service over HTTP as a user would: the admin key to make tenants, their API keys for
 * everything else, and the workflows most tests run. It knows only the service's address and admin
 * key, so the same helpers drive the service in-process (test/support/service.ts) and the compiled
 * server in a child process (test/support/compiled-service.ts).
 */
import { block, edge, graphOf } from '../core/engine/builders';
import type { WorkflowGraph } from '../core/engine/types';

export interface Answer<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export async function request<T = any>(
  url: string,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: unknown; rawBody?: string } = {},
): Promise<Answer<T>> {
  const hasBody = options.body !== undefined || options.rawBody !== undefined;
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { ...(hasBody ? { 'content-type': 'application/json' } : {}), ...options.headers },
    body: options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body)),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

export interface ApiClient {
  readonly url: string;
  admin<T = any>(method: string, path: string, body?: unknown): Promise<Answer<T>>;
  as(apiKey: string): <T = any>(method: string, path: string, body?: unknown) => Promise<Answer<T>>;
  /** A user (on the free plan unless `user` says otherwise) with a workspace of their own and an API key. */
  newTenant(name: string, user?: { plan?: string; usageLimitUsd?: number }): Promise<Tenant>;
}

export interface Tenant {
  userId: string;
  email: string;
  workspaceId: string;
  apiKey: string;
  call: <T = any>(method: string, path: string, body?: unknown) => Promise<Answer<T>>;
}

export function apiClientOf(service: { url: string; adminKey: string }): ApiClient {
  const admin = <T = any>(method: string, path: string, body?: unknown) =>
    request<T>(service.url, method, path, { headers: { 'x-admin-key': service.adminKey }, body });
  const as =
    (apiKey: string) =>
    <T = any>(method: string, path: string, body?: unknown) =>
      request<T>(service.url, method, path, { headers: { 'x-api-key': apiKey }, body });
  let counter = 0;
  return {
    url: service.url,
    admin,
    as,
    async newTenant(name, fields = {}) {
      counter += 1;
      const email = `${name}-${counter}-${Date.now()}@example.com`;
      const user = await admin('POST', '/api/v1/admin/users', {
        email,
        name,
        ...fields,
      });
      const key = await admin('POST', `/api/v1/admin/users/${user.body.data.id}/api-keys`, { name: 'test' });
      const workspace = await admin('POST', '/api/v1/admin/workspaces', {
        name: `${name} workspace`,
        ownerId: user.body.data.id,
      });
      return {
        userId: user.body.data.id,
        email,
        workspaceId: workspace.body.data.id,
        apiKey: key.body.data.key,
        call: as(key.body.data.key),
      };
    },
  };
}

/** Polls the job until it has finished (completed, failed or cancelled); answers its last status. */
export async function finishedJob(tenant: Tenant, taskId: string, timeoutInMs = 20_000): Promise<Answer> {
  const deadline = Date.now() + timeoutInMs;
  for (;;) {
    const answer = await tenant.call('GET', `/api/jobs/${taskId}`);
    if (!['queued', 'processing'].includes(answer.body?.status) || Date.now() > deadline) return answer;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Creates a workflow with `state` in the tenant's workspace and deploys it; answers its id. */
export async function deployedWorkflow(
  tenant: Tenant,
  state: WorkflowGraph = threeBlockGraph(),
): Promise<string> {
  const id = await draftWorkflow(tenant, state, 'Flow');
  const deployed = await tenant.call('POST', `/api/workflows/${id}/deploy`);
  if (deployed.status !== 200) throw new Error(`Workflow not deployed: ${JSON.stringify(deployed.body)}`);
  return id;
}

/** start(inputFormat) → function(code) → response(data): the smallest useful workflow. */
export function threeBlockGraph(
  options: { code?: string; inputFormat?: unknown[]; data?: unknown; status?: number } = {},
): WorkflowGraph {
  return {
    blocks: {
      start: block('start', 'start', 'Start', {
        inputFormat: options.inputFormat ?? [{ name: 'name', type: 'string', required: true }],
      }),
      shout: block('shout', 'function', 'Shout', {
        code: options.code ?? 'return <start.name>.toUpperCase();',
      }),
      respond: block('respond', 'response', 'Respond', {
        data: options.data ?? { shouted: '<shout.result>' },
        ...(options.status ? { status: options.status } : {}),
      }),
    },
    edges: [
      { id: 'e1', source: 'start', target: 'shout', sourceHandle: 'source' },
      { id: 'e2', source: 'shout', target: 'respond', sourceHandle: 'source' },
    ],
    loops: {},
    parallels: {},
  };
}

/** Creates a workflow named `name` with `state` in the tenant's workspace, not deployed; answers its id. */
export async function draftWorkflow(
  tenant: Tenant,
  state: WorkflowGraph = threeBlockGraph(),
  name = 'Draft',
): Promise<string> {
  const created = await tenant.call('POST', '/api/workflows', {
    workspaceId: tenant.workspaceId,
    name,
    state,
  });
  if (created.status !== 201) throw new Error(`Workflow not created: ${JSON.stringify(created.body)}`);
  return created.body.data.id;
}

/** start → wait(durationMs) → response: a run that stays processing while it waits. */
export function waitingGraph(durationMs: number): WorkflowGraph {
  return graphOf(
    [
      block('start', 'start', 'Start', { inputFormat: [] }),
      block('pause', 'wait', 'Pause', { durationMs }),
      block('respond', 'response', 'Respond', { data: { waited: '<pause.waitDuration>' } }),
    ],
    [edge('start', 'pause'), edge('pause', 'respond')],
  );
}

/** start(docs: files) → respond({docs}): answers the files as the service stored them. */
export function fileEchoGraph(): WorkflowGraph {
  return graphOf(
    [
      block('start', 'start', 'Start', { inputFormat: [{ name: 'docs', type: 'files', required: true }] }),
      block('respond', 'response', 'Respond', { data: { docs: '<start.docs>' } }),
    ],
    [edge('start', 'respond')],
  );
}

/** start(docs: files) → File block "Read" → respond(files and text): the files read and their text. */
export function fileReadGraph(): WorkflowGraph {
  return graphOf(
    [
      block('start', 'start', 'Start', { inputFormat: [{ name: 'docs', type: 'files', required: true }] }),
      block('read', 'file', 'Read', { files: '<start.docs>' }),
      block('respond', 'response', 'Respond', {
        data: { files: '<read.files>', text: '<read.combinedContent>' },
      }),
    ],
    [edge('start', 'read'), edge('read', 'respond')],
  );
}
