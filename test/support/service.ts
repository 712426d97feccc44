/**
 * Starts the whole local service (embedded stack + HTTP server) for a test file, in a fresh data
 * dir, and gives small helpers to call it as a user would.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { block, edge, graphOf } from '../../core/engine/builders';
import type { WorkflowGraph } from '../../core/engine/types';
import { type LocalService, type LocalServiceOptions, startLocalService } from '../../local/service';

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

export interface TestService {
  readonly url: string;
  readonly service: LocalService;
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

export function makeClient(service: LocalService): TestService {
  const admin = <T = any>(method: string, path: string, body?: unknown) =>
    request<T>(service.url, method, path, { headers: { 'x-admin-key': service.adminKey }, body });
  const as =
    (apiKey: string) =>
    <T = any>(method: string, path: string, body?: unknown) =>
      request<T>(service.url, method, path, { headers: { 'x-api-key': apiKey }, body });
  let counter = 0;
  return {
    get url() {
      return service.url;
    },
    service,
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

/** One service per test file; vitest runs each file in its own process. */
export function useLocalService(
  options: Pick<
    LocalServiceOptions,
    'allowLoopbackOutbound' | 'waitOverrideMs' | 'integrationTimeoutInMs'
  > = {},
): { get(): TestService } {
  let dataDir: string;
  let client: TestService | undefined;
  beforeAll(async () => {
    process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
    dataDir = await mkdtemp(join(tmpdir(), 'workflow-service-test-'));
    const service = await startLocalService({ dataDir, port: 0, adminKey: 'test-admin-key', ...options });
    client = makeClient(service);
  });
  afterAll(async () => {
    await client?.service.stop();
    await rm(dataDir, { recursive: true, force: true });
  });
  return {
    get() {
      if (!client) throw new Error('The local service has not started');
      return client;
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
