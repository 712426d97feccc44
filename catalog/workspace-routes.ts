/** Workspaces: the caller's, and one by id. Spread into the route table (catalog/routes.ts). */
import * as z from './zod';
import { type RouteDefinition, entities, entitiesWrite } from './route-definition';
import * as s from './schemas';

export const workspaceRoutes = [
  {
    id: 'listWorkspaces',
    method: 'GET',
    path: '/api/workspaces',
    entry: 'functions/workspaces/list.ts',
    auth: 'apiKey',
    permission: 'self',
    summary: 'Workspaces the caller is a member of, with their permissions',
    tag: 'workspaces',
    responses: { 200: { description: 'Workspaces', body: s.data(z.array(s.workspace)) } },
    access: entities,
  },
  {
    id: 'createWorkspace',
    method: 'POST',
    path: '/api/workspaces',
    entry: 'functions/workspaces/create.ts',
    auth: 'apiKey',
    permission: 'self',
    summary: 'Create a workspace; the caller becomes its owner with admin permissions',
    tag: 'workspaces',
    request: { body: s.createWorkspaceBody },
    responses: { 201: { description: 'Created', body: s.data(s.workspace) } },
    access: entitiesWrite,
  },
  {
    id: 'getWorkspace',
    method: 'GET',
    path: '/api/workspaces/{workspaceId}',
    entry: 'functions/workspaces/get.ts',
    auth: 'apiKey',
    permission: 'read',
    summary: 'One workspace',
    tag: 'workspaces',
    request: { params: s.workspaceIdParams },
    responses: { 200: { description: 'Workspace', body: s.data(s.workspace) } },
    access: entities,
  },
] as const satisfies readonly RouteDefinition[];
