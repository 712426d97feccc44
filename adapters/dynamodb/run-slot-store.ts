/**
 * RunSlotStore (core/limits/run-slots.ts) on the `limits` table: one item per workspace,
 * `pk = RUNS#<workspaceId>`, `sk = RUNS`, whose `runs` map holds each run in progress as
 * execution id → expiry (epoch ms). A slot is added by one conditional update on the map's size,
 * so runs admitted at once on many servers never pass the cap between them; a workspace's first
 * run creates the map instead (an update cannot set a member of a map that does not exist).
 */
import { dynamoDocumentClient } from '../aws/dynamodb-client';
import { requireEnv } from '../aws/require-env';
import type { RunSlotStore } from '../../core/limits/run-slots';
import { DynamoTable, LIMITS_TABLE_ENV } from './dynamo-table';

const slotsKey = (workspaceId: string) => ({ pk: `RUNS#${workspaceId}`, sk: 'RUNS' });

export class DynamoRunSlotStore extends DynamoTable implements RunSlotStore {
  static fromEnv(): DynamoRunSlotStore {
    return new DynamoRunSlotStore({
      client: dynamoDocumentClient(),
      tableName: requireEnv(LIMITS_TABLE_ENV),
    });
  }

  async add(workspaceId: string, executionId: string, expiresAtInMs: number, cap: number): Promise<boolean> {
    const addToMap = () =>
      this.updateIf({
        Key: slotsKey(workspaceId),
        UpdateExpression: 'SET #runs.#run = :expiry',
        ConditionExpression: 'size(#runs) < :cap OR attribute_exists(#runs.#run)',
        ExpressionAttributeNames: { '#runs': 'runs', '#run': executionId },
        ExpressionAttributeValues: { ':expiry': expiresAtInMs, ':cap': cap },
      }).catch((error: unknown) => {
        // Where the condition does not fail first, a member of a missing map is refused outright.
        if ((error as Error).name === 'ValidationException') return false;
        throw error;
      });
    const createMap = () =>
      this.updateIf({
        Key: slotsKey(workspaceId),
        UpdateExpression: 'SET #runs = :runs',
        ConditionExpression: 'attribute_not_exists(#runs)',
        ExpressionAttributeNames: { '#runs': 'runs' },
        ExpressionAttributeValues: { ':runs': { [executionId]: expiresAtInMs } },
      });
    // A create lost to a concurrent first run finds the map there: the add is tried once more.
    return (await addToMap()) || (await createMap()) || addToMap();
  }

  async prune(workspaceId: string, nowInMs: number): Promise<number> {
    const item = await this.get(slotsKey(workspaceId));
    const runs = (item?.runs ?? {}) as Record<string, number>;
    const expired = Object.keys(runs).filter((executionId) => Number(runs[executionId]) <= nowInMs);
    if (expired.length === 0) return 0;
    const names = Object.fromEntries(expired.map((executionId, index) => [`#run${index}`, executionId]));
    await this.updateIf({
      Key: slotsKey(workspaceId),
      UpdateExpression: `REMOVE ${Object.keys(names)
        .map((name) => `#runs.${name}`)
        .join(', ')}`,
      ExpressionAttributeNames: { '#runs': 'runs', ...names },
    });
    return expired.length;
  }

  async remove(workspaceId: string, executionId: string): Promise<void> {
    // Only where the map exists: removing from a workspace that never ran anything creates nothing.
    await this.updateIf({
      Key: slotsKey(workspaceId),
      UpdateExpression: 'REMOVE #runs.#run',
      ConditionExpression: 'attribute_exists(#runs)',
      ExpressionAttributeNames: { '#runs': 'runs', '#run': executionId },
    });
  }
}
