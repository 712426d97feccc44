/** The caller's API keys. Spread into the route table (catalog/routes.ts). */
import * as z from './zod';
import { type RouteDefinition, entities, entitiesWrite } from './route-definition';
import * as s from './schemas';

export const apiKeyRoutes = [
  {
    id: 'listApiKeys',
    method: 'GET',
    path: '/api/users/me/api-keys',
    entry: 'functions/api-keys/list.ts',
    auth: 'apiKey',
    permission: 'self',
    summary: "The caller's API keys (never the keys themselves)",
    tag: 'api-keys',
    responses: { 200: { description: 'Keys', body: s.data(z.array(s.apiKey)) } },
    access: entities,
  },
  {
    id: 'createApiKey',
    method: 'POST',
    path: '/api/users/me/api-keys',
    entry: 'functions/api-keys/create.ts',
    auth: 'apiKey',
    permission: 'self',
    summary: 'Create an API key for the caller; the key is shown once',
    tag: 'api-keys',
    request: { body: s.createApiKeyBody },
    responses: { 201: { description: 'Created', body: s.data(s.createdApiKey) } },
    access: entitiesWrite,
  },
  {
    id: 'deleteApiKey',
    method: 'DELETE',
    path: '/api/users/me/api-keys/{keyId}',
    entry: 'functions/api-keys/delete.ts',
    auth: 'apiKey',
    permission: 'self',
    summary: "Revoke one of the caller's API keys",
    tag: 'api-keys',
    request: { params: s.keyIdParams },
    responses: { 200: { description: 'Revoked', body: s.data(s.apiKey) } },
    access: entitiesWrite,
  },
] as const satisfies readonly RouteDefinition[];
