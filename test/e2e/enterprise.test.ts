/**
 * Enterprise administration through the compiled server (ACCESS_CONTROL_ENABLED is on, which turns
 * organizations on): an organization with roles, workspace permissions where a read member cannot
 * write, and a permission group that refuses a block type when a member runs a workflow.
 */
import { describe, expect, it } from 'vitest';
import { deployedWorkflow, threeBlockGraph } from '../../support/api-client';
import { groupOf, organizationOf } from '../support/organizations';
import { useE2eService } from './service';

const service = useE2eService();

describe('organizations', () => {
  it('makes an organization whose members see it with their roles', async () => {
    // Prepare
    const organization = await organizationOf(service, 'engines');

    // Act
    const mine = await organization.member.call('GET', '/api/organizations');
    const members = await organization.admin.call('GET', `/api/organizations/${organization.id}/members`);
    const byAdminKey = await service.admin('GET', `/api/v1/admin/organizations/${organization.id}/members`);

    // Assess
    expect(mine.status).toBe(200);
    expect(JSON.stringify(mine.body.data)).toContain(organization.id);
    expect(JSON.stringify(mine.body.data)).toContain('"member"');
    const roles = Object.fromEntries(
      members.body.data.map((member: { userId: string; role: string }) => [member.userId, member.role]),
    );
    expect(roles).toEqual({
      [organization.owner.userId]: 'owner',
      [organization.admin.userId]: 'admin',
      [organization.member.userId]: 'member',
    });
    expect(byAdminKey.body.data).toHaveLength(3);
  });

  it('refuses a second organization for a member of one with 409 CONFLICT', async () => {
    // Prepare
    const organization = await organizationOf(service, 'first');

    // Act
    const answer = await service.admin('POST', '/api/v1/admin/organizations', {
      name: 'second',
      ownerId: organization.member.userId,
    });

    // Assess
    expect(answer.status).toBe(409);
    expect(answer.body.code).toBe('CONFLICT');
  });
});

describe('workspace permissions', () => {
  it('lets a read member see but not change or run, write once granted, nothing once removed', async () => {
    // Prepare
    const owner = await service.newTenant('ws-owner');
    const colleague = await service.newTenant('ws-colleague');
    const id = await deployedWorkflow(owner);
    const members = `/api/v1/admin/workspaces/${owner.workspaceId}/members`;

    // Act
    const addedRead = await service.admin('POST', members, { userId: colleague.userId, permissions: 'read' });
    const read = await colleague.call('GET', `/api/workflows/${id}`);
    const change = await colleague.call('PUT', `/api/workflows/${id}`, { name: 'Mine now' });
    const run = await colleague.call('POST', `/api/workflows/${id}/execute`, { name: 'ada' });
    await service.admin('POST', members, { userId: colleague.userId, permissions: 'write' });
    const runWithWrite = await colleague.call('POST', `/api/workflows/${id}/execute`, { name: 'ada' });
    const removed = await service.admin('DELETE', `${members}?userId=${colleague.userId}`);
    const afterRemoval = await colleague.call('GET', `/api/workflows/${id}`);

    // Assess
    expect(addedRead.status).toBeLessThan(300);
    expect(read.status).toBe(200);
    expect(change.status).toBe(403);
    expect(change.body.code).toBe('FORBIDDEN');
    expect(run.status).toBe(403);
    expect(runWithWrite.status).toBe(200);
    expect(runWithWrite.body.output).toEqual({ shouted: 'ADA' });
    expect(removed.status).toBe(200);
    expect(afterRemoval.status).toBe(404);
  });
});

describe('permission groups', () => {
  it('fail the run of a member whose group does not allow a block type, naming it', async () => {
    // Prepare
    const organization = await organizationOf(service, 'contractors');
    await groupOf(organization, { name: 'Contractors', allowedBlocks: ['function'] }, [organization.member]);
    await service.admin('POST', `/api/v1/admin/workspaces/${organization.owner.workspaceId}/members`, {
      userId: organization.member.userId,
      permissions: 'write',
    });
    const id = await deployedWorkflow(organization.owner, threeBlockGraph());

    // Act
    const byMember = await organization.member.call('POST', `/api/workflows/${id}/execute`, { name: 'ada' });
    const byOwner = await organization.owner.call('POST', `/api/workflows/${id}/execute`, { name: 'ada' });

    // Assess
    expect(byMember.status).toBe(500);
    expect(byMember.body).toMatchObject({ success: false, code: 'EXECUTION_ERROR' });
    expect(byMember.body.error).toContain(
      'Block "Respond" (response): block type "response" is not allowed by permission group "Contractors"',
    );
    expect(byOwner.status).toBe(200);
  });

  it('refuse a plain member managing groups with 403', async () => {
    // Prepare
    const organization = await organizationOf(service, 'plain');

    // Act
    const answer = await organization.member.call(
      'POST',
      `/api/organizations/${organization.id}/permission-groups`,
      {
        name: 'Mine',
      },
    );

    // Assess
    expect(answer.status).toBe(403);
    expect(answer.body.code).toBe('FORBIDDEN');
  });
});
