/**
 * The cost model's call counts, measured on the local emulators: a sync and an async run of the
 * 3-block workflow make exactly these billable calls, so a change that adds one to the path
 * (a storage call, a queue message, a function) fails here and moves `npm run cost`'s figure.
 * A warm process answers the caller's key, membership and workflow record, and Finalize the
 * workspace's subscriptions, from its caches. These workspaces have no subscription, so Finalize
 * publishes no completion event (core/notifications/publishing.ts): a sync run's only storage calls
 * are its token, its slot among the workspace's runs in progress (taken at admission, given back by
 * Finalize), its log entry and its count in the metrics, and the notifications worker never runs.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { costOfMillionRuns, totalOf, type Usage } from '../../../support/cost/model';
import { measureWorkflows, type WorkflowName } from '../../../support/cost/measure';
import { prices } from '../../../support/cost/prices';

const runs = 3;
let measured: Map<WorkflowName, Usage>;

beforeAll(async () => {
  measured = await measureWorkflows({ runs, only: ['sync 3-block', 'async 3-block', 'sync + webhook'] });
}, 120_000);

function callsPerRun(usage: Usage): Record<string, number> {
  return Object.fromEntries(Object.entries(usage.calls).map(([call, count]) => [call, count / usage.runs]));
}

/** Everything but the durations, which depend on the machine: requests, units, transitions. */
function countedCostOf(usage: Usage): number {
  return totalOf(costOfMillionRuns(usage, prices).filter((item) => !item.item.endsWith('duration')));
}

describe('measured calls of a run', () => {
  it('a sync run: the request, Step, Finalize, no completion event without a subscription, and no read at all', () => {
    // Prepare
    const usage = measured.get('sync 3-block')!;

    // Act
    const calls = callsPerRun(usage);

    // Assess
    expect(usage.runs).toBe(runs);
    expect(calls).toEqual({
      'Lambda.executeWorkflow': 1,
      'StepFunctions.EXPRESS': 1,
      'Lambda.executionStep': 1,
      'Lambda.executionFinalize': 1,
      // The token, the run's slot taken and given back, and the run's count in its workspace's hour
      // (core/metrics).
      'DynamoDB.UpdateItem': 4,
      'DynamoDB.PutItem': 1,
    });
    // The token (1), the slot taken and given back (2), the log entry (its execution data gzipped,
    // about 1 KB: 1 or 2 units as the run's timings take more or fewer digits), its copies in the
    // workspace's and the workflow's log indexes (2), and the hour's counters (1: a small item).
    expect(usage.dynamoWriteUnits / runs).toBeGreaterThanOrEqual(7);
    expect(usage.dynamoWriteUnits / runs).toBeLessThanOrEqual(8);
    expect(usage.dynamoReadUnits / runs).toBe(0);
    // The slot's two writes add $1.25 a million runs, the counters $0.625 (a unit at $0.625 a million).
    expect(countedCostOf(usage)).toBeGreaterThanOrEqual(9.475);
    expect(countedCostOf(usage)).toBeLessThanOrEqual(10.105);
  });

  it('an async run: enqueue, the job worker, the Standard machine, and one read of the result', () => {
    // Prepare
    const usage = measured.get('async 3-block')!;

    // Act
    const { 'DynamoDB.UpdateItem': updates, ...calls } = callsPerRun(usage);

    // Assess
    // The tokens of the two requests, the run's slot taken and given back, and the job to processing
    // (the log entry settles the job, which is not written again); the run's count in its
    // workspace's hour; and the workflow's recent durations, which each process writes at most once
    // a second per workflow, so for some of these runs, measured one after another, and not for others.
    expect(updates).toBeGreaterThanOrEqual(6);
    expect(updates).toBeLessThanOrEqual(7);
    expect(calls).toEqual({
      'Lambda.executeWorkflow': 1,
      'Lambda.jobsStart': 1,
      'StepFunctions.STANDARD': 1,
      'Lambda.executionStep': 1,
      'Lambda.executionFinalize': 1,
      'Lambda.getJob': 1,
      // The job worker reads its batch's jobs at once; the status route reads the job and the log entry.
      'DynamoDB.BatchGetItem': 1,
      'DynamoDB.GetItem': 2,
      'DynamoDB.PutItem': 2,
      // The job's message alone: no completion event without a subscription.
      'SQS.SendMessage': 1,
      'SQS.ReceiveMessage': 1,
      'SQS.DeleteMessageBatch': 1,
    });
    expect(usage.standardTransitions / runs).toBe(3);
  });

  it('a sync run with a webhook subscription: its completion event, then the delivery, each through the queue', () => {
    // Prepare
    const usage = measured.get('sync + webhook')!;

    // Act
    const calls = callsPerRun(usage);

    // Assess
    expect(calls).toMatchObject({
      'Lambda.executionFinalize': 1,
      // The event, then the delivery the worker queues for it.
      'SQS.SendMessage': 2,
      'SQS.ReceiveMessage': 2,
      'SQS.DeleteMessageBatch': 2,
      'Lambda.notificationsWorker': 2,
    });
  });
});
