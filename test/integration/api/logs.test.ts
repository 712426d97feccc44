/**
 * The execution-log API as a client meets it: every filter against the entries it should select,
 * both orders, cursors through a log that grows while it is read, polling for new entries, the
 * three answer shapes, isolation between tenants, and a 400 naming each bad parameter.
 */
import { describe, expect, it } from 'vitest';
import { DynamoExecutionLogStore } from '../../../adapters/dynamodb/execution-log-store';
import { newId } from '../../../core/ids';
import { logPositionOf } from '../../../core/logs/position';
import { type ExecutionLogEntry, logIdFor } from '../../../core/runs/log';
import type { Trigger } from '../../../core/triggers';
import { deployedWorkflow, type Tenant, threeBlockGraph, useLocalService } from '../../support/service';
import { changeSettings } from '../../support/settings';

// Entries are readable by an ascending query as soon as they are written (the polling test sets
// its own); the `api` bucket is out of reach except where a test looks at its headers.
process.env.LOG_SETTLE_MS = '0';
process.env.RATE_LIMITS_JSON = JSON.stringify({
  free: { api: { requestsPerMinute: 60_000, maxBurst: 60_000 } },
});
delete process.env.USAGE_LIMITS_JSON;

const service = useLocalService();

const store = () => DynamoExecutionLogStore.fromEnv();

const triggers: Trigger[] = ['api', 'webhook', 'schedule', 'manual', 'chat'];
const models = ['gpt-4o', 'claude-sonnet', 'llama'];

/** An entry of the tenant's workspace; the time fields agree with `loggedAt`. */
function anEntry(
  tenant: Tenant,
  fields: Partial<ExecutionLogEntry> & { workflowId: string },
): ExecutionLogEntry {
  const executionId = fields.executionId ?? newId('exe');
  const loggedAt = fields.loggedAt ?? new Date().toISOString();
  const totalDurationMs = fields.totalDurationMs ?? 100;
  const total = fields.cost?.total ?? 0.001;
  return {
    id: logIdFor(executionId),
    workspaceId: tenant.workspaceId,
    executionId,
    level: 'info',
    trigger: 'api',
    startedAt: new Date(Date.parse(loggedAt) - totalDurationMs).toISOString(),
    endedAt: loggedAt,
    loggedAt,
    totalDurationMs,
    cost: {
      total,
      tokens: { prompt: 3, completion: 2, total: 5 },
      models: {},
    },
    files: null,
    deploymentVersion: 1,
    models: [],
    executionData: {
      traceSpans: [
        {
          id: `span_${executionId}`,
          name: 'Workflow',
          type: 'workflow',
          startTime: loggedAt,
          endTime: loggedAt,
          duration: totalDurationMs,
          status: 'success',
        },
      ],
      finalOutput: { executionId },
    },
    ...fields,
  };
}

async function seed(entries: ExecutionLogEntry[]): Promise<ExecutionLogEntry[]> {
  const logs = store();
  for (let start = 0; start < entries.length; start += 50) {
    await Promise.all(entries.slice(start, start + 50).map((entry) => logs.putLogEntry(entry)));
  }
  return entries;
}

function query(params: Record<string, string | number | boolean | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params))
    if (value !== undefined) search.set(name, String(value));
  return `/api/v1/logs?${search}`;
}

/** Every page of a query, following nextCursor; the ids in the order they came. */
async function readAll(
  tenant: Tenant,
  params: Record<string, string | number | boolean | undefined>,
  between?: () => Promise<void>,
): Promise<{ ids: string[]; pages: any[] }> {
  const ids: string[] = [];
  const pages: any[] = [];
  let cursor: string | undefined;
  do {
    const answer = await tenant.call('GET', query({ ...params, cursor }));
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    pages.push(answer.body);
    ids.push(...answer.body.data.map((item: { id: string }) => item.id));
    cursor = answer.body.nextCursor;
    await between?.();
    expect(pages.length).toBeLessThan(200);
  } while (cursor);
  return { ids, pages };
}

const inOrder = (entries: ExecutionLogEntry[], order: 'asc' | 'desc') => {
  const sorted = [...entries].sort((a, b) => (logPositionOf(a) < logPositionOf(b) ? -1 : 1));
  return (order === 'asc' ? sorted : sorted.reverse()).map((entry) => entry.id);
};

async function createWorkflow(tenant: Tenant, folderId: string | null): Promise<string> {
  const created = await tenant.call('POST', '/api/workflows', {
    workspaceId: tenant.workspaceId,
    name: 'Logged',
    description: 'Writes log entries',
    folderId,
    state: threeBlockGraph(),
  });
  expect(created.status).toBe(201);
  return created.body.data.id;
}

/** A file of the workspace, with a key of the shape the service makes (only those get fresh URLs). */
const aFileOf = (workspaceId: string) => {
  const id = `file_${'1'.repeat(32)}`;
  return {
    id,
    key: `files/${workspaceId}/exe/${id}/a.txt`,
    name: 'a.txt',
    url: 'http://127.0.0.1/a.txt',
    type: 'text/plain',
    size: 3,
  };
};

describe('GET /api/v1/logs filters', () => {
  it('selects exactly the matching entries for every filter alone and combined, in both orders, across pages', async () => {
    // Prepare: 120 entries over three workflows (two in one folder), every field varied
    const tenant = await service.get().newTenant('filters');
    const inFolder = [
      await createWorkflow(tenant, 'fld_reports'),
      await createWorkflow(tenant, 'fld_reports'),
    ];
    const loose = await createWorkflow(tenant, null);
    const workflowIds = [...inFolder, loose];
    const base = Date.now() - 3_600_000;
    const entries = await seed(
      Array.from({ length: 120 }, (_, i) =>
        anEntry(tenant, {
          workflowId: workflowIds[i % 3] as string,
          level: i % 7 === 0 ? 'error' : 'info',
          trigger: triggers[i % 5] as Trigger,
          loggedAt: new Date(base + i * 10_000).toISOString(),
          totalDurationMs: (i * 37) % 1000,
          cost: { total: ((i * 13) % 50) / 1000, tokens: { prompt: 0, completion: 0, total: 0 }, models: {} },
          models: i % 4 === 0 ? [] : [models[i % 3] as string],
        }),
      ),
    );
    const at = (i: number) => new Date(base + i * 10_000).toISOString();
    const target = entries[42] as ExecutionLogEntry;
    const cases: Array<{ params: Record<string, string | number>; keep: (e: ExecutionLogEntry) => boolean }> =
      [
        { params: {}, keep: () => true },
        { params: { workflowIds: loose }, keep: (e) => e.workflowId === loose },
        { params: { workflowIds: workflowIds.join(',') }, keep: () => true },
        { params: { folderIds: 'fld_reports' }, keep: (e) => inFolder.includes(e.workflowId) },
        { params: { folderIds: 'fld_none' }, keep: () => false },
        { params: { triggers: 'webhook,chat' }, keep: (e) => ['webhook', 'chat'].includes(e.trigger) },
        { params: { level: 'error' }, keep: (e) => e.level === 'error' },
        { params: { level: 'info' }, keep: (e) => e.level === 'info' },
        { params: { startDate: at(30) }, keep: (e) => e.loggedAt >= at(30) },
        { params: { endDate: at(30) }, keep: (e) => e.loggedAt <= at(30) },
        {
          params: { startDate: at(30), endDate: at(59) },
          keep: (e) => e.loggedAt >= at(30) && e.loggedAt <= at(59),
        },
        { params: { executionId: target.executionId }, keep: (e) => e.id === target.id },
        { params: { minDurationMs: 500 }, keep: (e) => e.totalDurationMs >= 500 },
        { params: { maxDurationMs: 200 }, keep: (e) => e.totalDurationMs <= 200 },
        {
          params: { minCost: 0.02, maxCost: 0.03 },
          keep: (e) => e.cost.total >= 0.02 && e.cost.total <= 0.03,
        },
        { params: { model: 'claude-sonnet' }, keep: (e) => e.models.includes('claude-sonnet') },
        {
          params: { level: 'error', workflowIds: loose, triggers: 'api,manual,schedule' },
          keep: (e) =>
            e.level === 'error' &&
            e.workflowId === loose &&
            ['api', 'manual', 'schedule'].includes(e.trigger),
        },
        {
          params: { folderIds: 'fld_reports', workflowIds: `${inFolder[0]},${loose}`, minDurationMs: 100 },
          keep: (e) => e.workflowId === inFolder[0] && e.totalDurationMs >= 100,
        },
        {
          params: { level: 'info', model: 'gpt-4o', startDate: at(10), maxCost: 0.04 },
          keep: (e) =>
            e.level === 'info' && e.models.includes('gpt-4o') && e.loggedAt >= at(10) && e.cost.total <= 0.04,
        },
      ];

    for (const { params, keep } of cases) {
      for (const order of ['desc', 'asc'] as const) {
        // Act
        const { ids, pages } = await readAll(tenant, {
          workspaceId: tenant.workspaceId,
          ...params,
          order,
          limit: 9,
        });

        // Assess: every page but the last is full, and the pages hold exactly the matches in order
        const label = `${JSON.stringify(params)} ${order}`;
        expect(ids, label).toEqual(inOrder(entries.filter(keep), order));
        for (const page of pages.slice(0, -1)) expect(page.data, label).toHaveLength(9);
      }
    }
  });

  it('answers basic list items field by field, with the limits block and no cursor on the last page', async () => {
    // Prepare
    const tenant = await service.get().newTenant('shapes');
    const workflowId = await createWorkflow(tenant, null);
    const aFile = aFileOf(tenant.workspaceId);
    const [entry] = await seed([anEntry(tenant, { workflowId, trigger: 'schedule', files: [aFile] })]);

    // Act
    const answer = await tenant.call('GET', query({ workspaceId: tenant.workspaceId }));

    // Assess
    expect(answer.status).toBe(200);
    expect(answer.body.data).toEqual([
      {
        id: entry?.id,
        workflowId,
        executionId: entry?.executionId,
        level: 'info',
        trigger: 'schedule',
        startedAt: entry?.startedAt,
        endedAt: entry?.endedAt,
        totalDurationMs: 100,
        cost: { total: 0.001 },
        // The URL is presigned anew when the entry is read.
        files: [{ ...aFile, url: expect.stringContaining(`/${aFile.key}?`) }],
      },
    ]);
    expect(answer.body.nextCursor).toBeUndefined();
    expect(answer.body.limits).toEqual({
      workflowExecutionRateLimit: {
        sync: {
          requestsPerMinute: expect.any(Number),
          maxBurst: expect.any(Number),
          remaining: expect.any(Number),
          resetAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
        },
        async: {
          requestsPerMinute: expect.any(Number),
          maxBurst: expect.any(Number),
          remaining: expect.any(Number),
          resetAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
        },
      },
      usage: { currentPeriodCost: expect.any(Number), limit: 10, plan: 'free', isExceeded: false },
    });
    expect(Number(answer.headers.get('x-ratelimit-limit'))).toBe(60_000);
    expect(Number(answer.headers.get('x-ratelimit-remaining'))).toBeLessThan(60_000);
    expect(answer.headers.get('x-ratelimit-reset')).toMatch(/^\d{4}-\d{2}-\d{2}T|^\d+$/);
  });

  it('details=full adds traceSpans and finalOutput, the workflow and the full cost; with details=basic the include flags add them one by one', async () => {
    // Prepare
    const tenant = await service.get().newTenant('details');
    const workflowId = await createWorkflow(tenant, null);
    const [entry] = await seed([anEntry(tenant, { workflowId })]);
    const base = { workspaceId: tenant.workspaceId };

    // Act
    const full = await tenant.call('GET', query({ ...base, details: 'full' }));
    const basic = await tenant.call('GET', query({ ...base }));
    const spans = await tenant.call('GET', query({ ...base, includeTraceSpans: true }));
    const output = await tenant.call('GET', query({ ...base, details: 'basic', includeFinalOutput: true }));

    // Assess
    expect(full.body.data[0]).toMatchObject({
      workflow: { id: workflowId, name: 'Logged', description: 'Writes log entries' },
      cost: entry?.cost,
      traceSpans: entry?.executionData.traceSpans,
      finalOutput: { executionId: entry?.executionId },
    });
    expect(basic.body.data[0]).not.toHaveProperty('traceSpans');
    expect(basic.body.data[0]).not.toHaveProperty('finalOutput');
    expect(spans.body.data[0].traceSpans).toEqual(entry?.executionData.traceSpans);
    expect(spans.body.data[0].finalOutput).toBeUndefined();
    expect(spans.body.data[0].cost).toEqual({ total: 0.001 });
    expect(output.body.data[0].finalOutput).toEqual({ executionId: entry?.executionId });
    expect(output.body.data[0].traceSpans).toBeUndefined();
  });
});

describe('GET /api/v1/logs cursors', () => {
  it('pages through 1,000 entries with no gap and no repeat while new runs are logged', async () => {
    // Prepare
    const tenant = await service.get().newTenant('paging');
    const workflowId = await createWorkflow(tenant, null);
    const base = Date.now() - 7_200_000;
    const history = await seed(
      Array.from({ length: 1_000 }, (_, i) =>
        anEntry(tenant, { workflowId, loggedAt: new Date(base + i * 1_000 + (i % 3)).toISOString() }),
      ),
    );
    const added: ExecutionLogEntry[] = [];
    const logMore = async () => {
      const more = Array.from({ length: 5 }, () => anEntry(tenant, { workflowId }));
      added.push(...(await seed(more)));
    };

    // Act
    const desc = await readAll(tenant, { workspaceId: tenant.workspaceId, limit: 100 }, logMore);
    const asc = await readAll(
      tenant,
      { workspaceId: tenant.workspaceId, limit: 100, order: 'asc', startDate: new Date(base).toISOString() },
      logMore,
    );

    // Assess: a descending read started before the new entries sees the history exactly; an
    // ascending one sees it in order, then the entries logged while it read, each once
    expect(desc.ids).toEqual(inOrder(history, 'desc'));
    expect(desc.pages).toHaveLength(10);
    expect(asc.ids.slice(0, 1_000)).toEqual(inOrder(history, 'asc'));
    expect(new Set(asc.ids).size).toBe(asc.ids.length);
    const addedIds = new Set(added.map((entry) => entry.id));
    expect(asc.ids.slice(1_000).every((id) => addedIds.has(id))).toBe(true);
    expect(asc.ids.length).toBeGreaterThan(1_000);
  });

  it('a rare match past the read budget comes on a later page: a short page always carries a cursor', async () => {
    // Prepare: 2,500 entries, the only one using the model the oldest
    const tenant = await service.get().newTenant('sparse');
    const workflowId = await createWorkflow(tenant, null);
    const base = Date.now() - 7_200_000;
    const entries = await seed(
      Array.from({ length: 2_500 }, (_, i) =>
        anEntry(tenant, {
          workflowId,
          loggedAt: new Date(base + i * 1_000).toISOString(),
          models: i === 0 ? ['rare-model'] : ['gpt-4o'],
        }),
      ),
    );

    // Act
    const { ids, pages } = await readAll(tenant, {
      workspaceId: tenant.workspaceId,
      model: 'rare-model',
      limit: 10,
    });

    // Assess
    expect(ids).toEqual([entries[0]?.id]);
    expect(pages.length).toBeGreaterThan(1);
    expect(pages[0].data).toEqual([]);
    expect(pages[0].nextCursor).toEqual(expect.any(String));
  });

  it('polls: the last ascending page gives a pollCursor that returns only what was logged since, once', async () => {
    // Prepare
    const tenant = await service.get().newTenant('polling');
    const workflowId = await createWorkflow(tenant, null);
    const startDate = new Date(Date.now() - 60_000).toISOString();
    const first = await seed([anEntry(tenant, { workflowId }), anEntry(tenant, { workflowId })]);
    const params = { workspaceId: tenant.workspaceId, order: 'asc', startDate };

    // Act
    const poll1 = await tenant.call('GET', query(params));
    const later = await seed([anEntry(tenant, { workflowId }), anEntry(tenant, { workflowId })]);
    const poll2 = await tenant.call('GET', query({ ...params, cursor: poll1.body.pollCursor }));
    const poll3 = await tenant.call('GET', query({ ...params, cursor: poll2.body.pollCursor }));

    // Assess
    expect(poll1.body.data.map((item: { id: string }) => item.id)).toEqual(inOrder(first, 'asc'));
    expect(poll1.body.nextCursor).toBeUndefined();
    expect(poll2.body.data.map((item: { id: string }) => item.id)).toEqual(inOrder(later, 'asc'));
    expect(poll3.body.data).toEqual([]);
    expect(poll3.body.pollCursor).toEqual(expect.any(String));
  });

  it('an ascending read stops LOG_SETTLE_MS before now; a descending one does not', async () => {
    // Prepare
    const tenant = await service.get().newTenant('settle');
    const workflowId = await createWorkflow(tenant, null);
    const [old, fresh] = await seed([
      anEntry(tenant, { workflowId, loggedAt: new Date(Date.now() - 120_000).toISOString() }),
      anEntry(tenant, { workflowId }),
    ]);
    changeSettings({ LOG_SETTLE_MS: '60000' });

    // Act
    const asc = await tenant.call('GET', query({ workspaceId: tenant.workspaceId, order: 'asc' }));
    const desc = await tenant.call('GET', query({ workspaceId: tenant.workspaceId, order: 'desc' }));
    changeSettings({ LOG_SETTLE_MS: '0' });

    // Assess
    expect(asc.body.data.map((item: { id: string }) => item.id)).toEqual([old?.id]);
    expect(desc.body.data.map((item: { id: string }) => item.id)).toEqual([fresh?.id, old?.id]);
  });

  it('a cursor works only with the query and workspace it was given for', async () => {
    // Prepare
    const tenant = await service.get().newTenant('cursor');
    const workflowId = await createWorkflow(tenant, null);
    await seed(Array.from({ length: 3 }, () => anEntry(tenant, { workflowId })));
    const first = await tenant.call('GET', query({ workspaceId: tenant.workspaceId, limit: 1 }));
    const cursor = first.body.nextCursor as string;
    const other = await service.get().newTenant('cursor-other');
    const tampered = `${cursor.slice(0, -2)}${cursor.endsWith('AA') ? 'BB' : 'AA'}`;

    // Act
    const answers = await Promise.all([
      tenant.call('GET', query({ workspaceId: tenant.workspaceId, limit: 1, cursor: tampered })),
      tenant.call('GET', query({ workspaceId: tenant.workspaceId, limit: 1, cursor, level: 'error' })),
      tenant.call('GET', query({ workspaceId: tenant.workspaceId, limit: 1, cursor, order: 'asc' })),
      other.call('GET', query({ workspaceId: other.workspaceId, limit: 1, cursor })),
      tenant.call('GET', query({ workspaceId: tenant.workspaceId, limit: 1, cursor: 'not-a-cursor' })),
    ]);
    const same = await tenant.call('GET', query({ workspaceId: tenant.workspaceId, limit: 2, cursor }));

    // Assess
    for (const answer of answers) {
      expect(answer.status).toBe(400);
      expect(JSON.stringify(answer.body)).toMatch(/cursor/);
    }
    expect(same.status).toBe(200);
    expect(same.body.data).toHaveLength(2);
  });
});

describe('GET /api/v1/logs validation and access', () => {
  it.each([
    ['triggers', 'triggers=api,email'],
    ['level', 'level=warn'],
    ['startDate', 'startDate=yesterday'],
    ['endDate', 'endDate=2026-13-45T00:00:00Z'],
    ['limit', 'limit=0'],
    ['limit', 'limit=5000'],
    ['minDurationMs', 'minDurationMs=fast'],
    ['maxDurationMs', 'maxDurationMs=1.5'],
    ['minCost', 'minCost=cheap'],
    ['order', 'order=newest'],
    ['details', 'details=everything'],
    ['includeTraceSpans', 'includeTraceSpans=yes'],
    ['endDate', 'startDate=2026-02-01T00:00:00Z&endDate=2026-01-01T00:00:00Z'],
    ['colour', 'colour=blue'],
  ])('answers 400 naming %s for %s', async (name, params) => {
    // Prepare
    const tenant = await service.get().newTenant('bad');

    // Act
    const answer = await tenant.call('GET', `/api/v1/logs?workspaceId=${tenant.workspaceId}&${params}`);

    // Assess
    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.body)).toContain(name);
  });

  it('answers 400 naming workspaceId when it is missing', async () => {
    // Prepare
    const tenant = await service.get().newTenant('noworkspace');

    // Act
    const answer = await tenant.call('GET', '/api/v1/logs');

    // Assess
    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.body)).toContain('workspaceId');
  });

  it("hides another tenant's log: its workspace, entries and executions are 404s", async () => {
    // Prepare
    const owner = await service.get().newTenant('owner');
    const stranger = await service.get().newTenant('stranger');
    const workflowId = await deployedWorkflow(owner);
    const run = await owner.call('POST', `/api/workflows/${workflowId}/execute`, { name: 'ada' });
    const executionId = run.body.metadata.executionId as string;

    // Act
    const list = await stranger.call('GET', query({ workspaceId: owner.workspaceId }));
    const entry = await stranger.call('GET', `/api/v1/logs/${logIdFor(executionId)}`);
    const execution = await stranger.call('GET', `/api/v1/logs/executions/${executionId}`);
    const missing = await owner.call('GET', `/api/v1/logs/${logIdFor(newId('exe'))}`);

    // Assess
    expect(list.status).toBe(404);
    expect(entry.status).toBe(404);
    expect(execution.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(JSON.stringify(entry.body)).toMatch(/not found/);
    expect(Object.keys(entry.body)).toEqual(Object.keys(missing.body));
    expect(JSON.stringify(entry.body)).not.toContain(owner.workspaceId);
  });

  it('lets a member of the workspace read its log', async () => {
    // Prepare
    const owner = await service.get().newTenant('team-owner');
    const member = await service.get().newTenant('team-member');
    const workflowId = await createWorkflow(owner, null);
    const [entry] = await seed([anEntry(owner, { workflowId })]);
    const added = await service.get().admin('POST', `/api/v1/admin/workspaces/${owner.workspaceId}/members`, {
      userId: member.userId,
      permissions: 'read',
    });
    expect(added.status).toBeLessThan(300);

    // Act
    const list = await member.call('GET', query({ workspaceId: owner.workspaceId }));
    const detail = await member.call('GET', `/api/v1/logs/${entry?.id}`);

    // Assess
    expect(list.body.data.map((item: { id: string }) => item.id)).toEqual([entry?.id]);
    expect(detail.status).toBe(200);
  });
});

describe('GET /api/v1/logs/{id} and /api/v1/logs/executions/{executionId}', () => {
  it('answer the detail of a real run and the graph it ran, which a redeploy does not change', async () => {
    // Prepare
    const tenant = await service.get().newTenant('detail');
    const workflowId = await deployedWorkflow(tenant, threeBlockGraph({ code: 'return "first";' }));
    const run = await tenant.call('POST', `/api/workflows/${workflowId}/execute`, { name: 'ada' });
    expect(run.status).toBe(200);
    const executionId = run.body.metadata.executionId as string;
    await tenant.call('PUT', `/api/workflows/${workflowId}`, {
      state: threeBlockGraph({ code: 'return "second";' }),
    });
    expect((await tenant.call('POST', `/api/workflows/${workflowId}/deploy`)).status).toBe(200);

    // Act
    const list = await tenant.call('GET', query({ workspaceId: tenant.workspaceId, executionId }));
    const detail = await tenant.call('GET', `/api/v1/logs/${list.body.data[0].id}`);
    const execution = await tenant.call('GET', `/api/v1/logs/executions/${executionId}`);

    // Assess
    expect(list.body.data).toHaveLength(1);
    const data = detail.body.data;
    expect(detail.status).toBe(200);
    expect(data).toMatchObject({
      id: logIdFor(executionId),
      workflowId,
      executionId,
      level: 'info',
      trigger: 'api',
      workflow: { id: workflowId, name: 'Flow' },
      executionData: { finalOutput: expect.anything() },
      cost: {
        total: expect.any(Number),
        tokens: { prompt: expect.any(Number), completion: expect.any(Number), total: expect.any(Number) },
        models: expect.any(Object),
      },
      limits: { usage: { plan: 'free' } },
    });
    expect(data.files).toBeUndefined();
    expect(data.executionData.traceSpans[0].type).toBe('workflow');
    expect(Date.parse(data.endedAt) - Date.parse(data.startedAt)).toBe(data.totalDurationMs);
    expect(execution.status).toBe(200);
    expect(execution.body.data).toBeUndefined();
    expect(execution.body).toMatchObject({
      executionId,
      workflowId,
      workflowState: { edges: expect.any(Array), loops: {}, parallels: {} },
      executionMetadata: {
        trigger: 'api',
        startedAt: data.startedAt,
        endedAt: data.endedAt,
        totalDurationMs: data.totalDurationMs,
        cost: data.cost,
      },
      limits: { usage: { plan: 'free' } },
    });
    expect(execution.body.workflowState.blocks.shout.config.code).toBe('return "first";');
    expect(execution.headers.get('x-ratelimit-limit')).toBe('60000');
  });

  it('a draft run keeps the graph it ran, though the draft changes after', async () => {
    // Prepare
    const tenant = await service.get().newTenant('draft');
    const workflowId = await createWorkflow(tenant, null);
    await tenant.call('PUT', `/api/workflows/${workflowId}`, {
      state: threeBlockGraph({ code: 'return "draft one";' }),
    });
    const run = await tenant.call('POST', `/api/workflows/${workflowId}/run`, {
      input: { name: 'ada' },
      draft: true,
    });
    expect(run.status).toBe(200);
    const executionId = run.body.metadata.executionId as string;
    await tenant.call('PUT', `/api/workflows/${workflowId}`, {
      state: threeBlockGraph({ code: 'return "draft two";' }),
    });

    // Act
    const execution = await tenant.call('GET', `/api/v1/logs/executions/${executionId}`);
    const detail = await tenant.call('GET', `/api/v1/logs/${logIdFor(executionId)}`);

    // Assess
    expect(execution.status).toBe(200);
    expect(execution.body.workflowState.blocks.shout.config.code).toBe('return "draft one";');
    expect(execution.body.executionMetadata.trigger).toBe('manual');
    expect(detail.body.data.executionData.finalOutput).toBeDefined();
  });

  it('a failed run is an error entry with its error, found by the level filter', async () => {
    // Prepare
    const tenant = await service.get().newTenant('failed');
    const workflowId = await deployedWorkflow(
      tenant,
      threeBlockGraph({ code: 'throw new Error("no luck");' }),
    );
    const run = await tenant.call('POST', `/api/workflows/${workflowId}/execute`, { name: 'ada' });
    const executionId = run.body.metadata.executionId as string;

    // Act
    const errors = await tenant.call('GET', query({ workspaceId: tenant.workspaceId, level: 'error' }));
    const detail = await tenant.call('GET', `/api/v1/logs/${logIdFor(executionId)}`);

    // Assess
    expect(errors.body.data.map((item: { executionId: string }) => item.executionId)).toEqual([executionId]);
    expect(detail.body.data.level).toBe('error');
    expect(detail.body.data.executionData.error).toMatch(/no luck/);
  });

  it('answers 404 for an unknown log id and execution id', async () => {
    // Prepare
    const tenant = await service.get().newTenant('unknown');

    // Act
    const entry = await tenant.call('GET', `/api/v1/logs/${logIdFor(newId('exe'))}`);
    const execution = await tenant.call('GET', `/api/v1/logs/executions/${newId('exe')}`);

    // Assess
    expect(entry.status).toBe(404);
    expect(execution.status).toBe(404);
  });
});
