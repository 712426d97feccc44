import { describe, expect, it } from 'vitest';
import { fakeClock } from '../../support/clock';
import { cachedWorkflowRecords, forgettingWrites } from '../../../core/workflows/record-cache';
import type { WorkflowRecord, WorkflowStore } from '../../../core/workflows/types';

function recordOf(deployedVersion: number): WorkflowRecord {
  return { id: 'wf_1', workspaceId: 'ws_1', deployedVersion } as WorkflowRecord;
}

/** The table other processes write to, with a count of the reads that reach it. */
function sharedStore() {
  const records = new Map([['wf_1', recordOf(1)]]);
  const reads = { count: 0 };
  const store = {
    async getWorkflow(workflowId: string) {
      reads.count += 1;
      return records.get(workflowId);
    },
    async putWorkflow(workflow: WorkflowRecord) {
      records.set(workflow.id, workflow);
    },
    async deleteWorkflow(workflowId: string) {
      records.delete(workflowId);
    },
    async listWorkflows() {
      return [...records.values()];
    },
  };
  return { store: store as unknown as WorkflowStore, records, reads };
}

describe('cachedWorkflowRecords', () => {
  it('runs the deployment made in another process once the bound has passed, not before', async () => {
    // Prepare
    const shared = sharedStore();
    const clock = fakeClock();
    const cache = cachedWorkflowRecords(shared.store, { ttlInMs: 10_000, nowInMs: clock.nowInMs });
    await cache.getWorkflow('wf_1');

    // Act
    shared.records.set('wf_1', recordOf(2));
    clock.advance(9_999);
    const within = await cache.getWorkflow('wf_1');
    clock.advance(1);
    const after = await cache.getWorkflow('wf_1');

    // Assess
    expect(within?.deployedVersion).toBe(1);
    expect(after?.deployedVersion).toBe(2);
    expect(shared.reads.count).toBe(2);
  });

  it('sees a deploy or a delete made through this process at once', async () => {
    // Prepare
    const shared = sharedStore();
    const clock = fakeClock();
    const cache = cachedWorkflowRecords(shared.store, { ttlInMs: 10_000, nowInMs: clock.nowInMs });
    const writer = forgettingWrites(shared.store, cache);
    await cache.getWorkflow('wf_1');

    // Act
    await writer.putWorkflow(recordOf(3));
    const deployed = await cache.getWorkflow('wf_1');
    await writer.deleteWorkflow('wf_1');
    const deleted = await cache.getWorkflow('wf_1');
    const listed = await writer.listWorkflows('ws_1');

    // Assess
    expect(deployed?.deployedVersion).toBe(3);
    expect(deleted).toBeUndefined();
    expect(listed).toEqual([]);
  });
});
