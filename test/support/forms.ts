/** Helpers of the form tests: a workflow with every field type, a form on it, and its logged run. */
import type { WorkflowGraph } from '../../core/engine/types';
import { type Answer, request, type Tenant, threeBlockGraph } from './service';

let counter = 0;
/** Identifiers are unique across the service: each test takes its own. */
export const uniqueIdentifier = (name: string) => `${name}-${Date.now().toString(36)}-${++counter}`;

/** Start with one field of each type, echoed back by a function block as the run's output. */
export function everyFieldGraph(): WorkflowGraph {
  return threeBlockGraph({
    inputFormat: [
      { name: 'name', type: 'string', required: true, description: 'Who you are' },
      { name: 'age', type: 'number' },
      { name: 'subscribe', type: 'boolean', default: true },
      { name: 'profile', type: 'object' },
      { name: 'tags', type: 'array' },
      { name: 'attachments', type: 'files' },
    ],
    code: `return {
      name: <start.name>, age: <start.age>, subscribe: <start.subscribe>, profile: <start.profile>,
      tags: <start.tags>, files: (<start.attachments> ?? []).map((file) => file.name),
    };`,
    data: '<shout.result>',
  });
}

/** What `everyFieldGraph` answers for Ada's submission (text, number, toggle off, object, list, one file). */
export const everyFieldOutput = {
  name: 'Ada',
  age: 36,
  subscribe: false,
  profile: { city: 'London' },
  tags: ['math', 'engines'],
  files: ['notes.txt'],
};

export async function workflowOf(tenant: Tenant, state: WorkflowGraph, deploy = true): Promise<string> {
  const created = await tenant.call('POST', '/api/workflows', {
    workspaceId: tenant.workspaceId,
    name: 'Form flow',
    state,
  });
  if (created.status !== 201) throw new Error(`Workflow not created: ${JSON.stringify(created.body)}`);
  if (deploy) {
    const deployed = await tenant.call('POST', `/api/workflows/${created.body.data.id}/deploy`);
    if (deployed.status !== 200) throw new Error(`Workflow not deployed: ${JSON.stringify(deployed.body)}`);
  }
  return created.body.data.id;
}

export interface CreatedForm {
  id: string;
  identifier: string;
  url: string;
  workflowId: string;
}

export async function formOf(
  tenant: Tenant,
  workflowId: string,
  settings: Record<string, unknown> = {},
): Promise<CreatedForm> {
  const answer = await tenant.call('POST', '/api/forms', {
    workflowId,
    identifier: uniqueIdentifier('form'),
    title: 'A form',
    authType: 'public',
    ...settings,
  });
  if (answer.status !== 201) throw new Error(`Form not created: ${JSON.stringify(answer.body)}`);
  return answer.body.data;
}

export function submit(url: string, identifier: string, body: unknown): Promise<Answer> {
  return request(url, 'POST', `/api/form/${identifier}`, { body });
}

/** The run's log entry with its final output, once Finalize has written it. */
export async function loggedRun(tenant: Tenant, executionId: string, timeoutInMs = 20_000): Promise<any> {
  const deadline = Date.now() + timeoutInMs;
  for (;;) {
    const answer = await tenant.call(
      'GET',
      `/api/v1/logs?workspaceId=${tenant.workspaceId}&executionId=${executionId}&details=full&includeFinalOutput=true`,
    );
    const entry = answer.body?.data?.[0];
    if (entry) return entry;
    if (Date.now() > deadline) throw new Error(`No log entry for ${executionId}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
