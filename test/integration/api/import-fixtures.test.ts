/**
 * Every Sim fixture (test/fixtures/sim/, one per block type and container kind, and two larger
 * ones mixing them) imported over HTTP into the local emulators, deployed and run through the execute
 * route; agents and routers answered by loopback model servers reached through the deployment's
 * OPENAI_BASE_URL and ANTHROPIC_BASE_URL, api blocks by a loopback receiver.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromProjectRoot } from '../../../lib/project';
import { useDeploymentModelServers } from '../../support/model-servers';
import { type Tenant, useLocalService } from '../../support/service';

const fixturesDir = fromProjectRoot('test/fixtures/sim');
const models = useDeploymentModelServers();
let receiver: Server;
let receiverUrl: string;

beforeAll(async () => {
  // What the fixtures' api blocks call: a customer record.
  const answers: Record<string, unknown> = {
    'GET /customers/c-1': { name: 'Ada' },
    'POST /items/7?expand=owner&ref=7': { name: 'Widget' },
    'GET /health': { ok: true },
  };
  receiver = createServer((request, response) => {
    const answer = answers[`${request.method} ${request.url}`];
    response.writeHead(answer ? 200 : 404, { 'content-type': 'application/json' });
    response.end(JSON.stringify(answer ?? { error: 'not found' }));
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => receiver.close(resolve));
});

const service = useLocalService({ allowLoopbackOutbound: true });

/** The fixture's text, its api blocks pointed at the loopback receiver. */
function fixture(name: string): string {
  return readFileSync(join(fixturesDir, name), 'utf8').replaceAll('http://127.0.0.1:9', receiverUrl);
}

async function tenantWithKeys(): Promise<Tenant> {
  const owner = await service.get().newTenant('fixtures');
  for (const [name, value] of Object.entries({
    OPENAI_API_KEY: 'sk-openai-fixture',
    ANTHROPIC_API_KEY: 'sk-ant-fixture',
    GREETING: 'Hi "there"',
    TOKEN: 't-1',
  })) {
    const set = await owner.call('PUT', `/api/workspaces/${owner.workspaceId}/environment/${name}`, {
      value,
    });
    expect(set.status).toBeLessThan(300);
  }
  return owner;
}

/**
 * Imports and deploys a fixture. Model blocks without a key (Sim's export empties a literal one, and
 * the import warns of it) get the workspace's, as a user sets it after the import.
 */
async function deployedFixture(owner: Tenant, name: string): Promise<string> {
  const imported = await owner.call('POST', '/api/workflows/import', {
    workspaceId: owner.workspaceId,
    workflow: fixture(name),
  });
  expect(imported.status, JSON.stringify(imported.body)).toBe(201);
  const id = imported.body.data.id;
  const { state } = (await owner.call('GET', `/api/workflows/${id}`)).body.data;
  const keyless = Object.values(
    state.blocks as Record<string, { type: string; config: Record<string, unknown> }>,
  ).filter((block) => ['agent', 'router'].includes(block.type) && !block.config.apiKey);
  for (const block of keyless)
    block.config.apiKey =
      block.config.provider === 'anthropic' ? '{{ANTHROPIC_API_KEY}}' : '{{OPENAI_API_KEY}}';
  if (keyless.length > 0)
    expect((await owner.call('PUT', `/api/workflows/${id}`, { state })).status).toBe(200);
  expect((await owner.call('POST', `/api/workflows/${id}/deploy`)).status).toBe(200);
  return id;
}

interface Case {
  fixture: string;
  input?: Record<string, unknown>;
  /** Replies of the loopback model servers, in order. */
  openai?: object[];
  anthropic?: object[];
  status?: number;
  output: unknown;
}

/** A function block's output. */
const fn = (result: unknown) => ({ result, stdout: '' });
const results = (values: unknown[]) => ({ results: values.map(fn) });

const cases: Case[] = [
  {
    fixture: 'trigger-start.json',
    input: { count: 21, label: 'x' },
    output: fn({ label: 'x', doubled: 42 }),
  },
  { fixture: 'trigger-api.json', input: { items: [1, 2, 3] }, output: fn(3) },
  {
    fixture: 'trigger-input.json',
    input: { topic: 'tides', flag: true },
    output: fn({ topic: 'tides', flag: true }),
  },
  { fixture: 'trigger-manual.json', output: fn(42) },
  { fixture: 'api.json', input: { id: '7' }, output: { status: 200, name: 'Widget' } },
  { fixture: 'api-exported.json', output: expect.objectContaining({ data: { ok: true }, status: 200 }) },
  { fixture: 'trigger-starter.json', input: { name: 'Ada' }, output: fn('Hello Ada') },
  {
    fixture: 'function.json',
    input: { name: 'Ada' },
    // The workspace's secret GREETING reached the code as Sim gives it; answers redact its value.
    output: fn({ bare: '[REDACTED]', quoted: '[REDACTED], Ada!', template: 'Token t-1', name: 'Ada' }),
  },
  { fixture: 'condition.json', input: { n: 20 }, output: fn('big') },
  { fixture: 'condition.json', input: { n: 7 }, output: fn('medium') },
  { fixture: 'condition.json', input: { n: 1 }, output: fn('small') },
  {
    fixture: 'response.json',
    input: { name: 'Ada', age: 36 },
    status: 201,
    output: { person: { name: 'Ada', age: 36 }, text: 'Hi Ada' },
  },
  {
    fixture: 'response-builder.json',
    input: { name: 'Ada', age: 36 },
    output: { name: 'Ada', age: 36, limit: 10, active: true, meta: { source: 'sim' }, tags: ['a', 'b'] },
  },
  { fixture: 'error-edge.json', status: 502, output: { failed: expect.stringContaining('broken') } },
  { fixture: 'wait.json', output: fn('done after 2000') },
  { fixture: 'variables.json', input: { n: 5 }, output: fn({ counter: 6, label: 'after 5' }) },
  { fixture: 'note.json', output: fn('ok') },
  { fixture: 'loop-for.json', output: results([0, 10, 20]) },
  { fixture: 'loop-foreach.json', output: results(['A0', 'B1', 'C2']) },
  { fixture: 'loop-while.json', output: results([0, 1, 2]) },
  { fixture: 'loop-dowhile.json', output: results(['ran 0']) },
  { fixture: 'parallel-count.json', output: results([1, 2, 3]) },
  { fixture: 'parallel-collection.json', input: { items: [2, 3] }, output: results([4, 9]) },
  {
    fixture: 'nested-containers.json',
    output: { grid: [results([10, 20]), results([110, 120])] },
  },
  {
    fixture: 'agent.json',
    input: { question: 'Colour of the sky?' },
    openai: [{ structured: { word: 'blue' } }],
    output: { word: 'blue', model: 'gpt-4o' },
  },
  {
    fixture: 'agent-legacy.json',
    input: { topic: 'tides' },
    anthropic: [{ content: 'Tide goes out' }],
    output: expect.objectContaining({ content: 'Tide goes out' }),
  },
  {
    fixture: 'router.json',
    input: { message: 'How do I log in?' },
    openai: [{ structured: { route: 'support', reasoning: 'a question' } }],
    output: expect.objectContaining({ result: 'support' }),
  },
  {
    fixture: 'router-v2.json',
    input: { message: 'The site is down' },
    anthropic: [{ structured: { route: 'r-tech', reasoning: 'an outage' } }],
    output: expect.objectContaining({ result: 'tech' }),
  },
  {
    fixture: 'mixed-support-desk.json',
    input: { ticket: 'Charged twice!', customerId: 'c-1' },
    openai: [{ structured: { category: 'billing', urgent: true } }],
    output: { category: 'billing', priority: 'high', customer: 'Ada' },
  },
  {
    fixture: 'mixed-batch-scoring.json',
    input: { items: [{ name: 'a', value: 1 }] },
    anthropic: [{ content: 'tagged' }],
    openai: [{ structured: { route: 'low', reasoning: 'compared' } }],
    output: expect.objectContaining({ verdict: 'low', total: 10 }),
  },
];

describe('Sim fixtures imported over HTTP and run', () => {
  it('cover every runnable fixture', () => {
    // Prepare
    const refused = ['unsupported.json'];
    // A parent and its child: imported together as an archive (import-archive.test.ts).
    const elsewhere = ['workflow.json', 'workflow-child.json'];

    // Act
    const files = readdirSync(fixturesDir).filter((name) => name.endsWith('.json'));

    // Assess
    const covered = new Set([...cases.map((entry) => entry.fixture), ...refused, ...elsewhere]);
    expect(files.filter((name) => !covered.has(name))).toEqual([]);
  });

  it.each(cases.map((entry) => [`${entry.fixture} ${JSON.stringify(entry.input ?? {})}`, entry] as const))(
    '%s runs as Sim runs it',
    async (_, entry) => {
      // Prepare
      const owner = await tenantWithKeys();
      const id = await deployedFixture(owner, entry.fixture);
      const [openai, anthropic] = [models.openai(), models.anthropic()];
      openai.requests.splice(0);
      anthropic.requests.splice(0);
      if (entry.openai) openai.reply(...entry.openai);
      if (entry.anthropic) anthropic.reply(...entry.anthropic);

      // Act
      const run = await owner.call('POST', `/api/workflows/${id}/execute`, entry.input ?? {});

      // Assess
      expect(run.status, JSON.stringify(run.body)).toBe(entry.status ?? 200);
      expect(run.body.output).toEqual(entry.output);
      expect(openai.requests).toHaveLength(entry.openai?.length ?? 0);
      expect(anthropic.requests.length).toBeGreaterThanOrEqual(entry.anthropic ? 1 : 0);
    },
  );

  it('unsupported.json is refused with every offending block, and nothing is stored', async () => {
    // Prepare
    const owner = await tenantWithKeys();

    // Act
    const answer = await owner.call('POST', '/api/workflows/import', {
      workspaceId: owner.workspaceId,
      workflow: fixture('unsupported.json'),
    });
    const listed = await owner.call('GET', `/api/workflows?workspaceId=${owner.workspaceId}`);

    // Assess
    expect(answer.status).toBe(422);
    expect(answer.body.code).toBe('UNSUPPORTED_WORKFLOW');
    const offending = JSON.parse(fixture('unsupported.json')).state.blocks;
    expect(answer.body.details.length).toBeGreaterThan(1);
    for (const detail of answer.body.details) expect(offending[detail.blockId]).toBeDefined();
    expect(listed.body.data).toEqual([]);
  });
});
