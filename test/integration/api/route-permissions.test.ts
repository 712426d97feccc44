/**
 * Every workspace-scoped and organization route of the route table, called by a non-member and by
 * each permission level or role: too little gets 403, a non-member 404, enough is served. Requests
 * come from the routes' sample events (events/<routeId>.json) with their example ids replaced by
 * real ones, so a new route is covered as soon as it is in the table.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RouteDefinition, type RoutePermission, routes } from '../../../catalog/routes';
import type { WorkspacePermission } from '../../../core/identity/types';
import { anOrganization } from '../../support/organizations';
import {
  deployedWorkflow,
  finishedJob,
  request,
  type Tenant,
  type TestService,
  useLocalService,
} from '../../support/service';
import { changeSettings } from '../../support/settings';

const service = useLocalService();

beforeAll(() => {
  // Organization routes, invitations and permission groups are switched off by default.
  changeSettings({ ORGANIZATIONS_ENABLED: 'true' });
  changeSettings({ ACCESS_CONTROL_ENABLED: 'true' });
});

afterAll(() => {
  changeSettings({ ORGANIZATIONS_ENABLED: undefined });
  changeSettings({ ACCESS_CONTROL_ENABLED: undefined });
});

const allRoutes = routes as readonly RouteDefinition[];
const workspaceLevels: readonly RoutePermission[] = ['read', 'write', 'admin'];
const organizationLevels: readonly RoutePermission[] = ['organizationMember', 'organizationAdmin'];

interface SampleRequest {
  method: string;
  path: string;
  query: Record<string, string> | null;
  body: string | null;
}

function sampleOf(route: RouteDefinition): SampleRequest {
  const event = JSON.parse(readFileSync(`events/${route.id}.json`, 'utf8'));
  return { method: event.httpMethod, path: event.path, query: event.queryStringParameters, body: event.body };
}

/** The example ids of the sample events, each replaced by a real id of the fixture. */
const placeholders = {
  workspace: 'ws_example',
  workflow: 'wf_example',
  form: 'form_example',
  notification: 'ntf_example',
  webhook: 'whk_example',
  execution: '0b7c7a52-3f0e-4a53-9d2c-1f6a2b0c9e11',
  organization: 'org_example',
  invitation: 'inv_example',
  group: 'pg_example',
  otherUser: 'usr_other',
} as const;

type Ids = Partial<Record<keyof typeof placeholders, string>>;

function requestWith(sample: SampleRequest, ids: Ids): { path: string; body?: unknown } {
  const replace = (text: string) =>
    Object.entries(placeholders).reduce(
      (result, [name, example]) => result.split(example).join(ids[name as keyof Ids] ?? example),
      text,
    );
  const query = sample.query
    ? `?${new URLSearchParams(JSON.parse(replace(JSON.stringify(sample.query))))}`
    : '';
  return {
    path: replace(sample.path) + query,
    ...(sample.body === null ? {} : { body: JSON.parse(replace(sample.body)) }),
  };
}

const uses = (sample: SampleRequest, name: keyof typeof placeholders) =>
  JSON.stringify(sample).includes(placeholders[name]);

let counter = 0;
const unique = (prefix: string) => `${prefix}-${++counter}-${Date.now().toString(36)}`;

interface Crew {
  owner: Tenant;
  members: Record<WorkspacePermission, Tenant>;
  outsider: Tenant;
}

/** Creates what the route's sample names, in the owner's workspace, so each route gets fresh resources. */
async function workspaceFixture(crew: Crew, sample: SampleRequest): Promise<Ids> {
  const { owner } = crew;
  const ids: Ids = { workspace: owner.workspaceId };
  const needsWorkflow = ['workflow', 'form', 'webhook', 'execution'].some((name) =>
    uses(sample, name as keyof typeof placeholders),
  );
  if (needsWorkflow) ids.workflow = await deployedWorkflow(owner);
  if (uses(sample, 'form')) {
    const form = await owner.call('POST', '/api/forms', {
      workflowId: ids.workflow,
      identifier: unique('form'),
      title: 'Contact',
      authType: 'public',
    });
    ids.form = form.body.data.id;
  }
  if (uses(sample, 'webhook')) {
    const webhook = await owner.call('POST', `/api/workflows/${ids.workflow}/webhooks`, {
      path: unique('hook'),
    });
    ids.webhook = webhook.body.data.id;
  }
  if (uses(sample, 'notification')) {
    const notification = await owner.call('POST', `/api/workspaces/${owner.workspaceId}/notifications`, {
      channel: 'email',
      allWorkflows: true,
      levelFilter: ['error'],
      triggerFilter: ['api'],
      email: { recipients: ['ops@example.com'] },
    });
    ids.notification = notification.body.data.id;
  }
  if (uses(sample, 'execution')) {
    const job = await request(service.get().url, 'POST', `/api/workflows/${ids.workflow}/execute`, {
      headers: { 'x-api-key': owner.apiKey, 'x-execution-mode': 'async' },
      body: { name: 'Ada' },
    });
    expect(job.status, JSON.stringify(job.body)).toBe(202);
    ids.execution = job.body.taskId;
    await finishedJob(owner, job.body.taskId);
  }
  if (uses(sample, 'invitation')) {
    const invitation = await owner.call('POST', `/api/workspaces/${owner.workspaceId}/invitations`, {
      email: 'invited@example.com',
    });
    ids.invitation = invitation.body.data.id;
  }
  // Routes that name an environment variable find it there.
  await owner.call('PUT', `/api/workspaces/${owner.workspaceId}/environment/OPENAI_API_KEY`, {
    value: 'sk-1',
  });
  await owner.call('PUT', `/api/workflows/${ids.workflow ?? 'none'}/schedule`, { rateMinutes: 60 });
  return ids;
}

async function aCrew(client: TestService): Promise<Crew> {
  const [owner, read, write, admin, outsider] = await Promise.all(
    ['owner', 'reader', 'writer', 'administrator', 'outsider'].map((name) => client.newTenant(name)),
  );
  const members = { read, write, admin };
  for (const [permissions, member] of Object.entries(members)) {
    await client.admin('POST', `/api/v1/admin/workspaces/${owner.workspaceId}/members`, {
      userId: member.userId,
      permissions,
    });
  }
  return { owner, members, outsider };
}

/** A permission group of the organization; a route whose path names a member finds them in it. */
async function aGroup(owner: Tenant, organizationId: string, member?: Tenant): Promise<string> {
  const path = `/api/organizations/${organizationId}/permission-groups`;
  const group = await owner.call('POST', path, { name: unique('group'), allowedBlocks: ['function'] });
  expect(group.status, JSON.stringify(group.body)).toBe(201);
  if (member) {
    const added = await owner.call('POST', `${path}/${group.body.data.id}/members`, {
      userId: member.userId,
    });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
  }
  return group.body.data.id;
}

const rank = { read: 1, write: 2, admin: 3, organizationMember: 1, organizationAdmin: 2 } as const;

describe('route permissions', () => {
  it('are declared by every route, and no route naming a workspace resource is declared self', () => {
    for (const route of allRoutes.filter((candidate) => candidate.permission === 'self')) {
      const sample = sampleOf(route);
      for (const name of ['workspace', 'workflow', 'form', 'notification', 'webhook', 'execution'] as const) {
        expect(uses(sample, name), `${route.id} names a ${name} but is declared self`).toBe(false);
      }
    }
  });

  describe.each(allRoutes.filter((route) => workspaceLevels.includes(route.permission)))(
    'workspace route $id',
    (route) => {
      it(`needs ${route.permission}: a non-member gets 404, lower levels 403`, async () => {
        // Prepare
        const client = service.get();
        const crew = await aCrew(client);
        const sample = sampleOf(route);
        const request = requestWith(sample, await workspaceFixture(crew, sample));
        const needed = rank[route.permission as WorkspacePermission];

        // Act
        const outsider = await crew.outsider.call(sample.method, request.path, request.body);
        const answers: [WorkspacePermission, number, unknown][] = [];
        for (const level of ['read', 'write', 'admin'] as const) {
          const answer = await crew.members[level].call(sample.method, request.path, request.body);
          answers.push([level, answer.status, answer.body]);
        }

        // Assess
        expect(outsider.status, JSON.stringify(outsider.body)).toBe(404);
        for (const [level, status, body] of answers) {
          const detail = `${level}: ${status} ${JSON.stringify(body)}`;
          if (rank[level] < needed) expect(status, detail).toBe(403);
          else if (rank[level] === needed) expect([403, 404], detail).not.toContain(status);
          // A higher level may find the resource gone (a delete by the level below): never a 403.
          else expect(status, detail).not.toBe(403);
        }
      });
    },
  );

  describe.each(allRoutes.filter((route) => organizationLevels.includes(route.permission)))(
    'organization route $id',
    (route) => {
      it(`needs ${route.permission}: a non-member gets 404, lower roles 403`, async () => {
        // Prepare
        const client = service.get();
        const [owner, admin, member, other, outsider] = await Promise.all(
          ['owner', 'org-admin', 'org-member', 'other', 'outsider'].map((name) => client.newTenant(name)),
        );
        const organizationId = await anOrganization(client, owner, [
          [admin, 'admin'],
          [member, 'member'],
          [other, 'member'],
        ]);
        const invitation = await owner.call('POST', `/api/organizations/${organizationId}/invitations`, {
          email: 'invited@example.com',
        });
        const sample = sampleOf(route);
        const group = uses(sample, 'group')
          ? await aGroup(
              owner,
              organizationId,
              sample.path.includes(placeholders.otherUser) ? other : undefined,
            )
          : undefined;
        const request = requestWith(sample, {
          organization: organizationId,
          otherUser: other.userId,
          invitation: invitation.body.data.id,
          group,
        });
        const needed = rank[route.permission as 'organizationMember' | 'organizationAdmin'];

        // Act
        const byOutsider = await outsider.call(sample.method, request.path, request.body);
        const answers: [string, number, number, unknown][] = [];
        for (const [name, tenant, level] of [
          ['member', member, 1],
          ['admin', admin, 2],
          ['owner', owner, 3],
        ] as const) {
          const answer = await tenant.call(sample.method, request.path, request.body);
          answers.push([name, level, answer.status, answer.body]);
        }

        // Assess
        expect(byOutsider.status, JSON.stringify(byOutsider.body)).toBe(404);
        for (const [name, level, status, body] of answers) {
          const detail = `${name}: ${status} ${JSON.stringify(body)}`;
          if (level < needed) expect(status, detail).toBe(403);
          else if (level === needed) expect([403, 404], detail).not.toContain(status);
          else expect(status, detail).not.toBe(403);
        }
      });
    },
  );
});
