/** The permission group routes: who may manage groups, members, validation, and the switch. */
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { invitationsDisabledFor } from '../../../functions/wiring/permissions';
import { groupOf, type Organization, organizationOf, setAccessControl } from '../../support/organizations';
import { useLocalService } from '../../support/service';
import { changeSettings } from '../../support/settings';

const service = useLocalService();

beforeEach(() => setAccessControl(true));
afterAll(() => setAccessControl(false));

const groupsPath = (org: Organization | string) =>
  `/api/organizations/${typeof org === 'string' ? org : org.id}/permission-groups`;

describe('permission group routes', () => {
  it('lets the owner create a group and an admin read, list, change and delete it', async () => {
    // Prepare
    const org = await organizationOf(service.get());

    // Act
    const created = await org.owner.call('POST', groupsPath(org), {
      name: 'Contractors',
      allowedModelProviders: ['OpenAI'],
      allowedBlocks: ['function', 'agent', 'response'],
      disableMcpTools: true,
    });
    const groupPath = `${groupsPath(org)}/${created.body.data.id}`;
    const read = await org.admin.call('GET', groupPath);
    const listed = await org.admin.call('GET', groupsPath(org));
    const changed = await org.admin.call('PUT', groupPath, {
      allowedModelProviders: null,
      hideKnowledgeBase: true,
    });
    const deleted = await org.owner.call('DELETE', groupPath);
    const gone = await org.owner.call('GET', groupPath);

    // Assess
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({
      id: expect.stringMatching(/^pg_/),
      organizationId: org.id,
      name: 'Contractors',
      allowedModelProviders: ['openai'],
      allowedBlocks: ['function', 'agent', 'response'],
      hideKnowledgeBase: false,
      disableMcpTools: true,
      disableCustomTools: false,
      disableInvitations: false,
      members: [],
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(read.body.data).toEqual(created.body.data);
    expect(listed.body.data).toEqual([created.body.data]);
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({
      allowedModelProviders: null,
      hideKnowledgeBase: true,
      disableMcpTools: true,
    });
    expect(deleted.status).toBe(200);
    expect(gone.status).toBe(404);
    expect(gone.body.code).toBe('NOT_FOUND');
  });

  it('adds a member of the organization to one group at most, and removes them', async () => {
    // Prepare
    const org = await organizationOf(service.get());
    const first = await org.owner.call('POST', groupsPath(org), { name: 'First' });
    const second = await org.owner.call('POST', groupsPath(org), { name: 'Second' });
    const outsider = await service.get().newTenant('outsider');
    const firstPath = `${groupsPath(org)}/${first.body.data.id}`;

    // Act
    const added = await org.admin.call('POST', `${firstPath}/members`, { userId: org.member.userId });
    const again = await org.admin.call('POST', `${groupsPath(org)}/${second.body.data.id}/members`, {
      userId: org.member.userId,
    });
    const stranger = await org.admin.call('POST', `${firstPath}/members`, { userId: outsider.userId });
    const removed = await org.admin.call('DELETE', `${firstPath}/members/${org.member.userId}`);
    const removedAgain = await org.admin.call('DELETE', `${firstPath}/members/${org.member.userId}`);

    // Assess
    expect(added.status).toBe(200);
    expect(added.body.data.members).toEqual([org.member.userId]);
    expect(again.status).toBe(409);
    expect(again.body.error).toContain('one group of an organization');
    expect(stranger.status).toBe(400);
    expect(stranger.body.details).toEqual([{ path: 'userId', message: 'Not a member of this organization' }]);
    expect(removed.status).toBe(200);
    expect(removed.body.data.members).toEqual([]);
    expect(removedAgain.status).toBe(404);
  });

  it('refuses a plain member with 403 and answers 404 to another organization', async () => {
    // Prepare
    const org = await organizationOf(service.get());
    const other = await organizationOf(service.get(), 'globex');
    const group = await org.owner.call('POST', groupsPath(org), { name: 'G' });

    // Act
    const byMember = await org.member.call('POST', groupsPath(org), { name: 'Mine' });
    const listByMember = await org.member.call('GET', groupsPath(org));
    const byOtherOwner = await other.owner.call('GET', `${groupsPath(org)}/${group.body.data.id}`);
    const otherList = await other.owner.call('GET', groupsPath(org));
    const crossGroup = await other.owner.call('GET', `${groupsPath(other)}/${group.body.data.id}`);

    // Assess
    expect(byMember.status).toBe(403);
    expect(byMember.body).toEqual({
      error: expect.stringContaining('Only the owner and admins'),
      code: 'FORBIDDEN',
    });
    expect(listByMember.status).toBe(403);
    expect(byOtherOwner.status).toBe(404);
    expect(otherList.status).toBe(404);
    expect(crossGroup.status).toBe(404);
  });

  it('names the field of a bad group with 400', async () => {
    const org = await organizationOf(service.get());
    const provider = await org.owner.call('POST', groupsPath(org), {
      name: 'G',
      allowedModelProviders: ['mistral'],
    });
    const blockType = await org.owner.call('POST', groupsPath(org), {
      name: 'G',
      allowedBlocks: ['teleport'],
    });
    const noName = await org.owner.call('POST', groupsPath(org), {});
    const extra = await org.owner.call('POST', groupsPath(org), { name: 'G', color: 'red' });
    expect(provider.status).toBe(400);
    expect(provider.body.details[0].path).toBe('allowedModelProviders.0');
    expect(provider.body.error).toContain('openai, anthropic, bedrock');
    expect(blockType.body.details[0].path).toBe('allowedBlocks.0');
    expect(noName.body.details[0].path).toBe('name');
    expect(extra.status).toBe(400);
  });

  it('answers 404 saying access control is off when ACCESS_CONTROL_ENABLED is off', async () => {
    // Prepare
    const org = await organizationOf(service.get());
    const group = await org.owner.call('POST', groupsPath(org), { name: 'Kept' });
    setAccessControl(false);

    // Act
    const create = await org.owner.call('POST', groupsPath(org), { name: 'G' });
    const list = await org.owner.call('GET', groupsPath(org));
    setAccessControl(true);
    const listOn = await org.owner.call('GET', groupsPath(org));

    // Assess
    expect(create.status).toBe(404);
    expect(create.body).toEqual({
      error: expect.stringContaining('ACCESS_CONTROL_ENABLED=true'),
      code: 'NOT_FOUND',
    });
    expect(list.status).toBe(404);
    expect(listOn.body.data.map((g: { id: string }) => g.id)).toEqual([group.body.data.id]);
  });

  it('answers 401 without an API key', async () => {
    const org = await organizationOf(service.get());
    const answer = await fetch(`${service.get().url}${groupsPath(org)}`);
    expect(answer.status).toBe(401);
  });
});

describe('invitationsDisabledFor', () => {
  it("answers from the user's group, DISABLE_INVITATIONS and ACCESS_CONTROL_ENABLED", async () => {
    // Prepare
    const org = await organizationOf(service.get());
    await groupOf(org, { name: 'No invitations', disableInvitations: true }, [org.member]);

    // Act
    const member = await invitationsDisabledFor(org.member.userId, org.id);
    const admin = await invitationsDisabledFor(org.admin.userId, org.id);
    setAccessControl(false);
    const memberWithAccessControlOff = await invitationsDisabledFor(org.member.userId, org.id);
    changeSettings({ DISABLE_INVITATIONS: 'true' });
    const adminWithInvitationsOff = await invitationsDisabledFor(org.admin.userId, org.id);
    changeSettings({ DISABLE_INVITATIONS: undefined });

    // Assess
    expect(member).toBe(true);
    expect(admin).toBe(false);
    expect(memberWithAccessControlOff).toBe(false);
    expect(adminWithInvitationsOff).toBe(true);
  });
});
