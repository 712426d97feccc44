/** In-memory stand-ins for the schedule tests: the store, workflows, memberships, the registry and the queue. */
import { block } from '../../../core/engine/builders';
import type { WorkflowGraph } from '../../../core/engine/types';
import type { Principal } from '../../../core/identity/service';
import type { IdentityStore, WorkspaceMembership, WorkspacePermission } from '../../../core/identity/types';
import type { JobMessage, JobQueue } from '../../../core/jobs/types';
import type { FireRecord, Schedule, ScheduleRegistry, ScheduleStore } from '../../../core/schedules/types';
import type { Deployment, WorkflowRecord } from '../../../core/workflows/types';

/** Behaves as the DynamoDB store does: conditional advance, monotonic fire notes, copies out. */
export class MemoryScheduleStore implements ScheduleStore {
  readonly items = new Map<string, Schedule>();

  async putSchedule(schedule: Schedule) {
    this.items.set(schedule.workflowId, structuredClone(schedule));
  }
  async getSchedule(workflowId: string) {
    return structuredClone(this.items.get(workflowId));
  }
  async deleteSchedule(workflowId: string) {
    this.items.delete(workflowId);
  }
  async listSchedulesByNextRun(options: { until?: Date; limit: number }) {
    return [...this.items.values()]
      .filter((schedule) => schedule.enabled && schedule.nextRunAt !== null)
      .filter(
        (schedule) => !options.until || Date.parse(schedule.nextRunAt as string) <= options.until.getTime(),
      )
      .sort((a, b) => (a.nextRunAt as string).localeCompare(b.nextRunAt as string))
      .slice(0, options.limit)
      .map((schedule) => structuredClone(schedule));
  }
  async advanceSchedule(
    workflowId: string,
    expected: Pick<Schedule, 'nextRunAt' | 'updatedAt'>,
    nextRunAt: string | null,
  ) {
    const current = this.items.get(workflowId);
    if (
      !current?.enabled ||
      current.nextRunAt !== expected.nextRunAt ||
      current.updatedAt !== expected.updatedAt
    )
      return false;
    current.nextRunAt = nextRunAt;
    return true;
  }
  async recordFire(workflowId: string, fire: FireRecord) {
    const current = this.items.get(workflowId);
    if (!current || (current.lastRunAt !== undefined && current.lastRunAt >= fire.scheduledTime)) return;
    current.lastRunAt = fire.scheduledTime;
    if (fire.error === undefined) delete current.lastError;
    else current.lastError = fire.error;
  }
}

export class RecordingRegistry implements ScheduleRegistry {
  readonly calls: Array<['apply', Schedule] | ['remove', string]> = [];
  async apply(schedule: Schedule) {
    this.calls.push(['apply', structuredClone(schedule)]);
  }
  async remove(workflowId: string) {
    this.calls.push(['remove', workflowId]);
  }
}

export class RecordingQueue implements JobQueue {
  readonly sent: JobMessage[] = [];
  async send(message: JobMessage) {
    this.sent.push(structuredClone(message));
  }
}

export function graphWithInput(inputFormat: unknown[] = [{ name: 'topic', type: 'string', required: true }]) {
  const graph: WorkflowGraph = {
    blocks: {
      start: block('start', 'start', 'Start', { inputFormat }),
      echo: block('echo', 'function', 'Echo', { code: 'return <start.topic>;' }),
    },
    edges: [{ id: 'e1', source: 'start', target: 'echo', sourceHandle: 'source' }],
    loops: {},
    parallels: {},
  };
  return graph;
}

export class MemoryWorkflows {
  readonly workflows = new Map<string, WorkflowRecord>();
  readonly deployments = new Map<string, Deployment>();

  add(overrides: Partial<WorkflowRecord> & { id: string; workspaceId: string }): WorkflowRecord {
    const record: WorkflowRecord = {
      folderId: null,
      name: 'Flow',
      description: '',
      state: graphWithInput(),
      stateHash: 'hash',
      isDeployed: false,
      revision: 1,
      createdAt: '2025-01-01T00:00:00.000Z',
      updatedAt: '2025-01-01T00:00:00.000Z',
      ...overrides,
    };
    this.workflows.set(record.id, record);
    return record;
  }

  /** A workflow deployed at version 1 with `graph`. */
  addDeployed(id: string, workspaceId: string, graph: WorkflowGraph = graphWithInput()): WorkflowRecord {
    const record = this.add({ id, workspaceId, state: graph, isDeployed: true, deployedVersion: 1 });
    this.deployments.set(`${id}#1`, {
      workflowId: id,
      workspaceId,
      version: 1,
      state: graph,
      stateHash: 'hash',
      deployedAt: '2025-01-01T00:00:00.000Z',
      deployedBy: 'usr_owner',
    });
    return record;
  }

  async getWorkflow(workflowId: string) {
    return this.workflows.get(workflowId);
  }
  async getDeployment(workflowId: string, version: number) {
    return this.deployments.get(`${workflowId}#${version}`);
  }
}

export class Memberships {
  readonly byKey = new Map<string, WorkspaceMembership>();

  set(workspaceId: string, userId: string, permissions: WorkspacePermission): this {
    this.byKey.set(`${workspaceId}\n${userId}`, { workspaceId, userId, permissions } as WorkspaceMembership);
    return this;
  }
  remove(workspaceId: string, userId: string): void {
    this.byKey.delete(`${workspaceId}\n${userId}`);
  }
  get store(): IdentityStore {
    return {
      getWorkspaceMembership: async (workspaceId: string, userId: string) =>
        this.byKey.get(`${workspaceId}\n${userId}`),
      // Workspaces of no organization: access is the membership alone.
      getWorkspace: async () => undefined,
    } as unknown as IdentityStore;
  }
}

export function principal(userId: string): Principal {
  return {
    user: { id: userId, email: `${userId}@example.com`, name: userId, plan: 'free', createdAt: '' },
    apiKeyId: `key_${userId}`,
  };
}
