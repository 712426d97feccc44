import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  type RouteDefinition,
  type RoutePermission,
  routes,
  type WorkerDefinition,
  workers,
} from '../../../catalog/routes';
import { validate } from '../../../functions/http/route';
import { compilePath } from '../../../local/server';

const allRoutes = routes as readonly RouteDefinition[];
const sampleEvent = (id: string) => JSON.parse(readFileSync(`events/${id}.json`, 'utf8'));

describe('route table', () => {
  it('has unique ids and unique method and path pairs', () => {
    expect(new Set(allRoutes.map((route) => route.id)).size).toBe(allRoutes.length);
    expect(new Set(allRoutes.map((route) => `${route.method} ${route.path}`)).size).toBe(allRoutes.length);
  });

  it('declares for every route a permission that fits how it authenticates', () => {
    const fitting: Record<RouteDefinition['auth'], readonly RoutePermission[]> = {
      none: ['public'],
      admin: ['adminKey'],
      apiKey: ['self', 'read', 'write', 'admin', 'organizationMember', 'organizationAdmin'],
    };
    for (const route of allRoutes) expect(fitting[route.auth], route.id).toContain(route.permission);
  });

  it('points every route and worker at an entry file that exists', () => {
    for (const entry of [...allRoutes, ...Object.values(workers)].map((item) => item.entry)) {
      expect(existsSync(entry), entry).toBe(true);
    }
  });

  it('has a sample event for every route that matches its method, path and schemas', () => {
    for (const route of allRoutes) {
      const event = sampleEvent(route.id);
      expect(event.httpMethod, route.id).toBe(route.method);
      expect(compilePath(route.path).pattern.test(event.path), route.id).toBe(true);
      if (route.request?.body)
        expect(route.request.body.safeParse(JSON.parse(event.body)).success, route.id).toBe(true);
      if (route.request?.query)
        expect(route.request.query.safeParse(event.queryStringParameters ?? {}).success, route.id).toBe(true);
    }
  });

  it('refuses an unknown top-level member of every JSON body with a 400 naming it, except the execute body', () => {
    // Prepare: each route's own sample body, plus a member no body declares
    const withBodies = allRoutes.filter((route) => route.request?.body);

    for (const route of withBodies) {
      const body = { ...JSON.parse(sampleEvent(route.id).body), graph: {} };

      // Act
      const act = () => validate(route.request?.body, body, 'body');

      // Assess
      if (route.id === 'executeWorkflow') {
        expect(act, route.id).not.toThrow();
        continue;
      }
      expect(act, route.id).toThrow(
        expect.objectContaining({
          statusCode: 400,
          details: expect.arrayContaining([
            { path: 'graph', message: expect.stringContaining('Unknown member') },
          ]),
        }),
      );
    }
    expect(withBodies.length).toBeGreaterThan(25);
  });

  it('names the members a body takes when it refuses an unknown one (graph for state)', () => {
    // Act
    const act = () =>
      validate(
        allRoutes.find((route) => route.id === 'createWorkflow')?.request?.body,
        { workspaceId: 'ws_1', name: 'Hello', graph: { blocks: {} } },
        'body',
      );

    // Assess
    expect(act).toThrow(
      expect.objectContaining({
        message:
          'Invalid body "graph": Unknown member; expected one of workspaceId, name, description, folderId, state',
      }),
    );
  });

  it('has a sample event for every worker, shaped as what starts it', () => {
    for (const worker of Object.values(workers) as WorkerDefinition[]) {
      const event = sampleEvent(worker.id);
      if (worker.trigger.kind === 'stateMachineTask') expect(event.executionId, worker.id).toBeDefined();
      if (worker.trigger.kind === 'queue') expect(event.Records[0].eventSource, worker.id).toBe('aws:sqs');
      if (worker.trigger.kind === 'executionEnded') expect(event.source, worker.id).toBe('aws.states');
    }
  });
});

describe('compilePath', () => {
  it('captures parameters and refuses extra segments', () => {
    const { pattern, parameterNames } = compilePath('/api/workflows/{workflowId}/execute');
    expect(parameterNames).toEqual(['workflowId']);
    expect(pattern.exec('/api/workflows/wf_1/execute')?.[1]).toBe('wf_1');
    expect(pattern.test('/api/workflows/wf_1/execute/more')).toBe(false);
    expect(pattern.test('/api/workflows/a/b/execute')).toBe(false);
  });
});
