import { describe, expect, it } from 'vitest';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../../core/errors';
import {
  accessPolicyFor,
  addPermissionGroupMember,
  createPermissionGroup,
  deletePermissionGroup,
  getPermissionGroup,
  invitationsDisabledFor,
  listPermissionGroups,
  removePermissionGroupMember,
  updatePermissionGroup,
} from '../../../core/permissions/service';
import { depsOf, userOf } from './fakes';

const org = 'org_1';
const owner = userOf('usr_owner', org);
const admin = userOf('usr_admin', org);
const member = userOf('usr_member', org);
const outsider = userOf('usr_out');
const as = (user: ReturnType<typeof userOf>) => ({ user, apiKeyId: 'key_1' });
const roles = [
  { organizationId: org, userId: owner.id, role: 'owner' as const },
  { organizationId: org, userId: admin.id, role: 'admin' as const },
  { organizationId: org, userId: member.id, role: 'member' as const },
];
const users = [owner, admin, member, outsider];

describe('permission group management', () => {
  it('lets the owner and admins create, read, change and delete groups, with defaults that restrict nothing', async () => {
    // Prepare
    const deps = depsOf(users, roles);

    // Act
    const group = await createPermissionGroup(deps, as(owner), org, { name: 'Contractors' });
    const changed = await updatePermissionGroup(deps, as(admin), org, group.id, {
      allowedModelProviders: ['openai'],
      disableInvitations: true,
    });
    const lifted = await updatePermissionGroup(deps, as(admin), org, group.id, {
      allowedModelProviders: null,
    });

    // Assess
    expect(group).toMatchObject({
      name: 'Contractors',
      organizationId: org,
      allowedModelProviders: null,
      allowedBlocks: null,
      hideKnowledgeBase: false,
      disableMcpTools: false,
      disableCustomTools: false,
      disableInvitations: false,
      members: [],
    });
    expect(changed).toMatchObject({
      allowedModelProviders: ['openai'],
      disableInvitations: true,
      name: 'Contractors',
    });
    expect(lifted).toMatchObject({ allowedModelProviders: null, disableInvitations: true });
    expect((await listPermissionGroups(deps, as(admin), org)).map((g) => g.id)).toEqual([group.id]);
    await deletePermissionGroup(deps, as(owner), org, group.id);
    await expect(getPermissionGroup(deps, as(owner), org, group.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('refuses a plain member with 403, and answers 404 for another organization or with access control off', async () => {
    const deps = depsOf(users, roles);
    await expect(listPermissionGroups(deps, as(member), org)).rejects.toThrow(ForbiddenError);
    await expect(listPermissionGroups(deps, as(member), org)).rejects.toThrow(/owner and admins/);
    await expect(listPermissionGroups(deps, as(outsider), org)).rejects.toBeInstanceOf(NotFoundError);
    await expect(listPermissionGroups(deps, as(owner), 'org_other')).rejects.toBeInstanceOf(NotFoundError);
    const off = depsOf(users, roles, false);
    await expect(createPermissionGroup(off, as(owner), org, { name: 'x' })).rejects.toThrow(
      /ACCESS_CONTROL_ENABLED/,
    );
  });

  it('adds members of the organization only, each to one group, and removes them', async () => {
    // Prepare
    const deps = depsOf(users, roles);
    const first = await createPermissionGroup(deps, as(owner), org, { name: 'First' });
    const second = await createPermissionGroup(deps, as(owner), org, { name: 'Second' });

    // Act
    const added = await addPermissionGroupMember(deps, as(owner), org, first.id, member.id);

    // Assess
    expect(added.members).toEqual([member.id]);
    await expect(addPermissionGroupMember(deps, as(owner), org, second.id, member.id)).rejects.toBeInstanceOf(
      ConflictError,
    );
    await expect(
      addPermissionGroupMember(deps, as(owner), org, first.id, outsider.id),
    ).rejects.toBeInstanceOf(ValidationError);
    await expect(addPermissionGroupMember(deps, as(owner), org, 'pg_none', member.id)).rejects.toBeInstanceOf(
      NotFoundError,
    );
    expect((await removePermissionGroupMember(deps, as(admin), org, first.id, member.id)).members).toEqual(
      [],
    );
    await expect(
      removePermissionGroupMember(deps, as(admin), org, first.id, member.id),
    ).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('accessPolicyFor', () => {
  it("gives a member the group's restrictions, and full access to users in no group", async () => {
    // Prepare
    const deps = depsOf(users, roles);
    const group = await createPermissionGroup(deps, as(owner), org, {
      name: 'Contractors',
      allowedBlocks: ['function'],
      disableMcpTools: true,
      disableInvitations: true,
    });
    await addPermissionGroupMember(deps, as(owner), org, group.id, member.id);

    // Act
    const restricted = await accessPolicyFor(deps, member);
    const free = await accessPolicyFor(deps, admin);

    // Assess
    expect(restricted).toEqual({
      groupId: group.id,
      groupName: 'Contractors',
      allowedBlocks: ['function'],
      disableMcpTools: true,
    });
    expect(free).toBeUndefined();
  });

  it('reads nothing for a user in no organization, and restricts nothing with access control off', async () => {
    const deps = depsOf(users, roles);
    const group = await createPermissionGroup(deps, as(owner), org, { name: 'G', allowedBlocks: [] });
    await addPermissionGroupMember(deps, as(owner), org, group.id, member.id);
    expect(await accessPolicyFor(deps, outsider)).toBeUndefined();
    expect(deps.groups.membershipReads).toEqual([]);
    expect(await accessPolicyFor({ ...deps, accessControlEnabled: false }, member)).toBeUndefined();
  });
});

describe('invitationsDisabledFor', () => {
  it('is true for members of a group that turns invitations off, or for everyone when they are off globally', async () => {
    // Prepare
    const deps = depsOf(users, roles);
    const group = await createPermissionGroup(deps, as(owner), org, { name: 'G', disableInvitations: true });
    await addPermissionGroupMember(deps, as(owner), org, group.id, member.id);
    const on = { ...deps, invitationsDisabled: false };

    // Act + Assess
    expect(await invitationsDisabledFor(on, member.id, org)).toBe(true);
    expect(await invitationsDisabledFor(on, admin.id, org)).toBe(false);
    expect(await invitationsDisabledFor({ ...on, invitationsDisabled: true }, admin.id, org)).toBe(true);
    expect(await invitationsDisabledFor({ ...on, accessControlEnabled: false }, member.id, org)).toBe(false);
  });
});
