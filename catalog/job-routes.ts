/** Jobs: the status of asynchronous runs, and cancelling them. Spread into the route table (catalog/routes.ts). */
import type { RouteDefinition } from './route-definition';
import * as s from './schemas';

export const jobRoutes = [
  // Jobs (asynchronous runs)
  {
    id: 'getJob',
    method: 'GET',
    path: '/api/jobs/{taskId}',
    entry: 'functions/jobs/get.ts',
    auth: 'apiKey',
    permission: 'read',
    summary: 'Status of an asynchronous run',
    tag: 'execution',
    request: { params: s.taskIdParams },
    responses: { 200: { description: 'Job status', body: s.jobStatus } },
    access: { tables: { entities: 'read', executions: 'read' }, buckets: { files: 'read' } },
  },
  {
    id: 'cancelJob',
    method: 'POST',
    path: '/api/jobs/{taskId}/cancel',
    entry: 'functions/jobs/cancel.ts',
    auth: 'apiKey',
    permission: 'write',
    summary: 'Cancel a queued or processing run',
    tag: 'execution',
    request: { params: s.taskIdParams },
    responses: {
      200: { description: 'Cancelled', body: s.jobStatus },
      409: { description: 'The job has finished already' },
    },
    access: {
      tables: { entities: 'read', executions: 'readWrite' },
      // A job's request may be kept in the files bucket (a large input): the job store reads it.
      buckets: { files: 'read' },
      stateMachines: { executionAsync: 'stop' },
    },
  },
] as const satisfies readonly RouteDefinition[];
