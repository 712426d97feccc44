/** A workflow's schedule. Spread into the route table (catalog/routes.ts). */
import type { RouteDefinition } from './route-definition';
import * as s from './schemas';

export const scheduleRoutes = [
  // Schedules
  {
    id: 'putSchedule',
    method: 'PUT',
    path: '/api/workflows/{workflowId}/schedule',
    entry: 'functions/schedules/put.ts',
    auth: 'apiKey',
    permission: 'write',
    summary: 'Run the workflow on a schedule (5-field cron or every N minutes, in a time zone)',
    tag: 'triggers',
    request: { params: s.workflowIdParams, body: s.putScheduleBody },
    responses: { 200: { description: 'The schedule', body: s.data(s.schedule) } },
    // Files: a workflow whose graph is large is kept in the bucket.
    access: { tables: { entities: 'readWrite' }, buckets: { files: 'read' }, schedules: 'manage' },
  },
  {
    id: 'getSchedule',
    method: 'GET',
    path: '/api/workflows/{workflowId}/schedule',
    entry: 'functions/schedules/get.ts',
    auth: 'apiKey',
    permission: 'read',
    summary: "The workflow's schedule",
    tag: 'triggers',
    request: { params: s.workflowIdParams },
    responses: { 200: { description: 'The schedule', body: s.data(s.schedule) } },
    access: { tables: { entities: 'read' }, buckets: { files: 'read' } },
    readsSchedules: true,
  },
  {
    id: 'deleteSchedule',
    method: 'DELETE',
    path: '/api/workflows/{workflowId}/schedule',
    entry: 'functions/schedules/delete.ts',
    auth: 'apiKey',
    permission: 'write',
    summary: "Remove the workflow's schedule",
    tag: 'triggers',
    request: { params: s.workflowIdParams },
    responses: { 200: { description: 'Removed' } },
    // Files: a workflow whose graph is large is kept in the bucket.
    access: { tables: { entities: 'readWrite' }, buckets: { files: 'read' }, schedules: 'manage' },
  },
] as const satisfies readonly RouteDefinition[];
