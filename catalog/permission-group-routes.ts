/**
 * Routes of permission groups (Enterprise): an organization's owner and admins manage its groups
 * and who is in them. With ACCESS_CONTROL_ENABLED off they answer 404. Spread into the route table.
 */
import * as z from './zod';
import * as groups from './permission-group-schemas';
import type { ResourceAccess } from './resources';
import type { RouteDefinition } from './route-definition';
import * as s from './schemas';

const read = { tables: { entities: 'read' } } as const satisfies ResourceAccess;
const write = { tables: { entities: 'readWrite' } } as const satisfies ResourceAccess;
const base = '/api/organizations/{orgId}/permission-groups';

export const permissionGroupRoutes = [
  {
    id: 'createPermissionGroup',
    method: 'POST',
    path: base,
    entry: 'functions/permission-groups/create.ts',
    auth: 'apiKey',
    permission: 'organizationAdmin',
    summary: 'Create a permission group of the organization (owner and admins)',
    tag: 'permission groups',
    request: { params: s.organizationIdParams, body: groups.createPermissionGroupBody },
    responses: { 201: { description: 'Created', body: s.data(groups.permissionGroupView) } },
    access: write,
  },
  {
    id: 'listPermissionGroups',
    method: 'GET',
    path: base,
    entry: 'functions/permission-groups/list.ts',
    auth: 'apiKey',
    permission: 'organizationAdmin',
    summary: "The organization's permission groups with their members",
    tag: 'permission groups',
    request: { params: s.organizationIdParams },
    responses: {
      200: { description: 'Groups, oldest first', body: s.data(z.array(groups.permissionGroupView)) },
    },
    access: read,
  },
  {
    id: 'getPermissionGroup',
    method: 'GET',
    path: `${base}/{groupId}`,
    entry: 'functions/permission-groups/get.ts',
    auth: 'apiKey',
    permission: 'organizationAdmin',
    summary: 'A permission group with its members',
    tag: 'permission groups',
    request: { params: groups.permissionGroupParams },
    responses: { 200: { description: 'The group', body: s.data(groups.permissionGroupView) } },
    access: read,
  },
  {
    id: 'updatePermissionGroup',
    method: 'PUT',
    path: `${base}/{groupId}`,
    entry: 'functions/permission-groups/update.ts',
    auth: 'apiKey',
    permission: 'organizationAdmin',
    summary: "Change a permission group; the members given replace the group's",
    tag: 'permission groups',
    request: { params: groups.permissionGroupParams, body: groups.updatePermissionGroupBody },
    responses: { 200: { description: 'The group as changed', body: s.data(groups.permissionGroupView) } },
    access: write,
  },
  {
    id: 'deletePermissionGroup',
    method: 'DELETE',
    path: `${base}/{groupId}`,
    entry: 'functions/permission-groups/delete.ts',
    auth: 'apiKey',
    permission: 'organizationAdmin',
    summary: 'Remove a permission group; its members then have full access',
    tag: 'permission groups',
    request: { params: groups.permissionGroupParams },
    responses: { 200: { description: 'Deleted' } },
    access: write,
  },
  {
    id: 'addPermissionGroupMember',
    method: 'POST',
    path: `${base}/{groupId}/members`,
    entry: 'functions/permission-groups/add-member.ts',
    auth: 'apiKey',
    permission: 'organizationAdmin',
    summary: 'Put a member of the organization in the group (one group per user and organization)',
    tag: 'permission groups',
    request: { params: groups.permissionGroupParams, body: groups.addPermissionGroupMemberBody },
    responses: {
      200: { description: 'The group with its members', body: s.data(groups.permissionGroupView) },
    },
    access: write,
  },
  {
    id: 'removePermissionGroupMember',
    method: 'DELETE',
    path: `${base}/{groupId}/members/{userId}`,
    entry: 'functions/permission-groups/remove-member.ts',
    auth: 'apiKey',
    permission: 'organizationAdmin',
    summary: 'Take a user out of the group; they then have full access',
    tag: 'permission groups',
    request: { params: groups.permissionGroupMemberParams },
    responses: {
      200: { description: 'The group with its members', body: s.data(groups.permissionGroupView) },
    },
    access: write,
  },
] as const satisfies readonly RouteDefinition[];
