import { describe, expect, it } from 'vitest';
import type { MeteredEvent } from '../../../adapters/metering';
import { addEvent, costOfMillionRuns, emptyUsage, totalOf } from '../../../support/cost/model';
import { prices } from '../../../support/cost/prices';

function usageOf(events: MeteredEvent[], runs = 1) {
  const usage = emptyUsage();
  for (const event of events) addEvent(usage, event);
  usage.runs = runs;
  return usage;
}

const costOf = (events: MeteredEvent[], runs = 1) => costOfMillionRuns(usageOf(events, runs), prices);
const itemOf = (events: MeteredEvent[], name: string) => costOf(events).find((item) => item.item === name);

describe('costOfMillionRuns', () => {
  it('prices each item per million runs from the price table', () => {
    // Prepare
    const events: MeteredEvent[] = [
      { kind: 'apiRequest', routeId: 'executeWorkflow' },
      { kind: 'aws', service: 'DynamoDB', operation: 'PutItem', writeUnits: 3 },
      { kind: 'aws', service: 'DynamoDB', operation: 'GetItem', readUnits: 1 },
      { kind: 'aws', service: 'SQS', operation: 'SendMessage' },
      { kind: 'aws', service: 'KMS', operation: 'Decrypt' },
    ];

    // Act
    const items = costOf(events);

    // Assess
    expect(items.map((item) => [item.item, Number(item.usdPerMillionRuns.toFixed(6))])).toEqual([
      ['API Gateway requests', 3.5],
      ['DynamoDB write request units', 1.875],
      ['DynamoDB read request units', 0.125],
      ['SQS requests', 0.4],
      ['KMS requests', 3],
    ]);
    expect(totalOf(items)).toBeCloseTo(8.9, 10);
  });

  it('adds the price of one write unit per run for one more write on the path', () => {
    // Prepare
    const run: MeteredEvent[] = [
      { kind: 'aws', service: 'DynamoDB', operation: 'UpdateItem', writeUnits: 1 },
    ];

    // Act
    const before = totalOf(costOf(run));
    const after = totalOf(costOf([...run, ...run]));

    // Assess
    expect(after - before).toBeCloseTo(prices.dynamoDbPerMillionWriteUnits, 10);
  });

  it('bills Lambda by the millisecond at the function’s memory, and Express in 64 MB and 100 ms steps', () => {
    // Prepare
    const events: MeteredEvent[] = [
      { kind: 'lambda', functionId: 'executionStep', memoryInMb: 1024, durationInMs: 9.2 },
      { kind: 'execution', machineType: 'EXPRESS', transitions: 3, durationInMs: 120 },
    ];

    // Act
    const lambda = itemOf(events, 'Lambda duration');
    const express = itemOf(events, 'Step Functions Express duration');

    // Assess
    expect(lambda?.perRun).toBeCloseTo(0.01, 10);
    expect(express?.perRun).toBeCloseTo((64 / 1024) * 0.2, 10);
    expect(itemOf(events, 'Step Functions Express requests')?.usdPerMillionRuns).toBe(1);
  });

  it('bills a Standard execution by its transitions, and averages over the runs', () => {
    // Prepare
    const events: MeteredEvent[] = [
      { kind: 'execution', machineType: 'STANDARD', transitions: 4, durationInMs: 50 },
    ];

    // Act
    const item = costOf(events, 2).find((entry) => entry.item === 'Step Functions Standard transitions');

    // Assess
    expect(item?.perRun).toBe(2);
    expect(item?.usdPerMillionRuns).toBeCloseTo(50, 10);
  });

  it('leaves out empty receives (a poller waiting) and free S3 deletes, and sorts S3 calls by class', () => {
    // Prepare
    const events: MeteredEvent[] = [
      { kind: 'aws', service: 'SQS', operation: 'ReceiveMessage', messages: 0 },
      { kind: 'aws', service: 'SQS', operation: 'ReceiveMessage', messages: 1 },
      { kind: 'aws', service: 'S3', operation: 'DeleteObject' },
      { kind: 'aws', service: 'S3', operation: 'PutObject' },
      { kind: 'aws', service: 'S3', operation: 'GetObject' },
    ];

    // Act
    const usage = usageOf(events);

    // Assess
    expect(usage.sqsRequests).toBe(1);
    expect(usage.s3PutRequests).toBe(1);
    expect(usage.s3GetRequests).toBe(1);
    expect(usage.calls).toEqual({
      'SQS.ReceiveMessage': 1,
      'S3.DeleteObject': 1,
      'S3.PutObject': 1,
      'S3.GetObject': 1,
    });
  });
});
