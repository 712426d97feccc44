/** A workspace's environment variables (stored encrypted). Spread into the route table (catalog/routes.ts). */
import * as z from './zod';
import { type RouteDefinition, entitiesWrite } from './route-definition';
import * as s from './schemas';

export const environmentRoutes = [
  {
    id: 'listEnvironmentVariables',
    method: 'GET',
    path: '/api/workspaces/{workspaceId}/environment',
    entry: 'functions/environment/list.ts',
    auth: 'apiKey',
    permission: 'read',
    summary: 'Environment variables of a workspace; values in clear only for members with write or admin',
    tag: 'environment',
    request: { params: s.workspaceIdParams },
    responses: { 200: { description: 'Variables, by name', body: s.data(z.array(s.environmentVariable)) } },
    access: { tables: { entities: 'read' }, keys: { environment: 'decrypt' } },
  },
  {
    id: 'putEnvironmentVariable',
    method: 'PUT',
    path: '/api/workspaces/{workspaceId}/environment/{name}',
    entry: 'functions/environment/put.ts',
    auth: 'apiKey',
    permission: 'write',
    summary: 'Create or replace an environment variable (stored encrypted)',
    tag: 'environment',
    request: { params: s.environmentVariableParams, body: s.putEnvironmentVariableBody },
    responses: {
      200: { description: 'Replaced', body: s.data(s.environmentVariable) },
      201: { description: 'Created', body: s.data(s.environmentVariable) },
    },
    access: { tables: { entities: 'readWrite' }, keys: { environment: 'encrypt' } },
  },
  {
    id: 'deleteEnvironmentVariable',
    method: 'DELETE',
    path: '/api/workspaces/{workspaceId}/environment/{name}',
    entry: 'functions/environment/delete.ts',
    auth: 'apiKey',
    permission: 'write',
    summary: 'Delete an environment variable',
    tag: 'environment',
    request: { params: s.environmentVariableParams },
    responses: { 200: { description: 'Deleted', body: s.data(s.environmentVariable) } },
    access: entitiesWrite,
  },
] as const satisfies readonly RouteDefinition[];
