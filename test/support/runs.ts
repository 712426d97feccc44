/** Helpers of the unit tests of the run use cases: a run's state, and a checkpoint store in memory. */
import type { CheckpointStore } from '../../core/runs/log';
import type { ExecutionState } from '../../core/runs/types';

/** A sync run of deployment 1 of `wf_1`, started by `usr_1`, with input `{n: 2}` unless overridden. */
export const runState = (overrides: Partial<ExecutionState> = {}): ExecutionState => ({
  executionId: 'exec-1',
  workflowId: 'wf_1',
  workspaceId: 'ws_1',
  userId: 'usr_1',
  deploymentVersion: 1,
  trigger: 'api',
  input: { n: 2 },
  startedAt: '2026-01-01T00:00:00.000Z',
  mode: 'sync',
  ...overrides,
});

export class MemoryCheckpoints implements CheckpointStore {
  readonly items = new Map<string, unknown>();
  async save(id: string, value: unknown) {
    this.items.set(id, JSON.parse(JSON.stringify(value)));
  }
  async saveJson(id: string, json: string) {
    this.items.set(id, JSON.parse(json));
  }
  async load(id: string) {
    return this.items.get(id);
  }
  async delete(id: string) {
    this.items.delete(id);
  }
}
