/**
 * First-start demo data, created through the admin API like an operator would: a demo user, a
 * workspace, an API key, and a few deployed example workflows.
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { block, edge, graphOf } from '../core/engine/builders';
import type { WorkflowGraph } from '../core/engine/types';

export interface DemoWorkflow {
  id: string;
  name: string;
  sampleInput: Record<string, unknown>;
}

export interface DemoData {
  userId: string;
  workspaceId: string;
  /** The demo key is local-only and kept in the data dir so it can be printed at every start. */
  apiKey: string;
  workflows: DemoWorkflow[];
  /** The page of the contact form (absent in data dirs seeded before forms existed, until the next start). */
  formUrl?: string;
}

/** The demo's public form: the "Contact form" workflow as a page anyone may submit. */
export const demoForm = {
  workflowName: 'Contact form',
  identifier: 'contact',
  title: 'Contact us',
  description: 'Send us a message and we will count its words.',
  fields: { email: { label: 'Your e-mail' }, message: { label: 'Message' } },
  authType: 'public',
  thankYouMessage: 'Thanks! We have your message.',
} as const;

export const exampleWorkflows: Array<{
  name: string;
  description: string;
  state: WorkflowGraph;
  sampleInput: Record<string, unknown>;
}> = [
  {
    name: 'Hello',
    description: 'Greets someone by name: start → function → response',
    sampleInput: { name: 'Ada' },
    state: graphOf(
      [
        block('start', 'start', 'Start', { inputFormat: [{ name: 'name', type: 'string', required: true }] }),
        block('greet', 'function', 'Greet', { code: "return 'Hello, ' + <start.name> + '!';" }),
        block('respond', 'response', 'Respond', { data: { greeting: '<greet.result>' }, status: 200 }),
      ],
      [edge('start', 'greet'), edge('greet', 'respond')],
    ),
  },
  {
    name: 'Classify number',
    description: 'Branches on a condition: big numbers one way, the rest the other',
    sampleInput: { n: 250 },
    state: graphOf(
      [
        block('start', 'start', 'Start', { inputFormat: [{ name: 'n', type: 'number', required: true }] }),
        block('check', 'condition', 'Check', {
          conditions: [
            { id: 'big', expression: '<start.n> > 100' },
            { id: 'small', expression: 'else' },
          ],
        }),
        block('big', 'response', 'Big', { data: { size: 'big', n: '<start.n>' } }),
        block('small', 'response', 'Small', { data: { size: 'small', n: '<start.n>' } }),
      ],
      [
        edge('start', 'check'),
        edge('check', 'big', 'condition-big'),
        edge('check', 'small', 'condition-small'),
      ],
    ),
  },
  {
    name: 'Contact form',
    description: 'Takes a message from a form and counts its words',
    sampleInput: { email: 'ada@example.com', message: 'Hello there, how are you?' },
    state: graphOf(
      [
        block('start', 'start', 'Start', {
          inputFormat: [
            { name: 'email', type: 'string', required: true, description: 'Your e-mail address' },
            { name: 'message', type: 'string', required: true, description: 'What you want to tell us' },
          ],
        }),
        block('summarize', 'function', 'Summarize', {
          code: 'const words = <start.message>.trim().split(/\\s+/).length;\nreturn { from: <start.email>, words };',
        }),
        block('respond', 'response', 'Respond', { data: '<summarize.result>' }),
      ],
      [edge('start', 'summarize'), edge('summarize', 'respond')],
    ),
  },
];

async function call<T>(
  baseUrl: string,
  key: { admin: string } | { api: string },
  path: string,
  body: unknown,
): Promise<T> {
  const response = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...('admin' in key ? { 'x-admin-key': key.admin } : { 'x-api-key': key.api }),
    },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`Seeding failed at ${path}: ${response.status} ${text}`);
  return (JSON.parse(text) as { data: T }).data;
}

async function createDemoForm(baseUrl: string, demo: DemoData): Promise<string> {
  const { workflowName, ...settings } = demoForm;
  const workflow = demo.workflows.find((candidate) => candidate.name === workflowName);
  if (!workflow) throw new Error(`Seeding failed: no "${workflowName}" workflow for the demo form`);
  const form = await call<{ identifier: string }>(baseUrl, { api: demo.apiKey }, '/api/forms', {
    workflowId: workflow.id,
    ...settings,
  });
  return `${baseUrl}/form/${form.identifier}`;
}

/** Seeds once; later starts read the saved demo data (and add the form to data seeded before forms). */
export async function ensureDemoData(dataDir: string, baseUrl: string, adminKey: string): Promise<DemoData> {
  const file = join(dataDir, 'demo.json');
  if (existsSync(file)) {
    const saved = JSON.parse(await readFile(file, 'utf8')) as DemoData;
    if (saved.formUrl) return { ...saved, formUrl: `${baseUrl}/form/${demoForm.identifier}` };
    const withForm = { ...saved, formUrl: await createDemoForm(baseUrl, saved) };
    await writeFile(file, JSON.stringify(withForm, null, 2), { mode: 0o600 });
    return withForm;
  }
  const admin = { admin: adminKey };
  const user = await call<{ id: string }>(baseUrl, admin, '/api/v1/admin/users', {
    email: 'demo@example.com',
    name: 'Demo User',
    plan: 'pro',
  });
  const { key } = await call<{ key: string }>(baseUrl, admin, `/api/v1/admin/users/${user.id}/api-keys`, {
    name: 'Demo key',
  });
  const workspace = await call<{ id: string }>(baseUrl, admin, '/api/v1/admin/workspaces', {
    name: 'Demo',
    ownerId: user.id,
  });
  const workflows: DemoWorkflow[] = [];
  for (const example of exampleWorkflows) {
    const workflow = await call<{ id: string }>(baseUrl, admin, '/api/v1/admin/workflows/import', {
      workspaceId: workspace.id,
      name: example.name,
      description: example.description,
      state: example.state,
      deploy: true,
    });
    workflows.push({ id: workflow.id, name: example.name, sampleInput: example.sampleInput });
  }
  const seeded: DemoData = { userId: user.id, workspaceId: workspace.id, apiKey: key, workflows };
  const demo = { ...seeded, formUrl: await createDemoForm(baseUrl, seeded) };
  await writeFile(file, JSON.stringify(demo, null, 2), { mode: 0o600 });
  return demo;
}
