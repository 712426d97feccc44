import {
  ConditionalCheckFailedException,
  DeleteItemCommand,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { itemIoCounts } from '../../../local/emulators/dynalite-item-io';
import { createActiveTable, useDynalite } from '../../support/dynalite';

/** dynalite's items read synchronously and written with their index entries in one batch (local/emulators/dynalite-item-io.ts), seen through the SDK. */
describe('dynalite item reads and writes', () => {
  const dynalite = useDynalite('dynalite-item-io-', (client) =>
    createActiveTable(client, {
      TableName: 'entries',
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: 'id', AttributeType: 'S' },
        { AttributeName: 'owner', AttributeType: 'S' },
        { AttributeName: 'at', AttributeType: 'N' },
      ],
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      GlobalSecondaryIndexes: [
        {
          IndexName: 'byOwner',
          KeySchema: [
            { AttributeName: 'owner', KeyType: 'HASH' },
            { AttributeName: 'at', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['note'] },
        },
        {
          IndexName: 'byAt',
          KeySchema: [
            { AttributeName: 'at', KeyType: 'HASH' },
            { AttributeName: 'id', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
      ],
    }),
  );

  /** The items of index `IndexName` whose hash key `name` holds `value`. */
  const queryIndex = async (IndexName: string, name: string, value: { S: string } | { N: string }) =>
    (
      await dynalite.client.send(
        new QueryCommand({
          TableName: 'entries',
          IndexName,
          KeyConditionExpression: '#key = :value',
          ExpressionAttributeNames: { '#key': name },
          ExpressionAttributeValues: { ':value': value },
        }),
      )
    ).Items;
  const byOwner = (owner: string) => queryIndex('byOwner', 'owner', { S: owner });
  const byAt = (at: string) => queryIndex('byAt', 'at', { N: at });
  const putNew = (id: string, owner: string, at: string) =>
    dynalite.client.send(
      new PutItemCommand({
        TableName: 'entries',
        Item: {
          id: { S: id },
          owner: { S: owner },
          at: { N: at },
          note: { S: `note ${id}` },
          other: { S: 'x' },
        },
        ConditionExpression: 'attribute_not_exists(id)',
      }),
    );

  it('reads items synchronously, with the same answers for items there and not there, and conditions checked', async () => {
    // Prepare
    const putPlain = (count: string) =>
      dynalite.client.send(
        new PutItemCommand({
          TableName: 'entries',
          Item: { id: { S: 'read' }, count: { N: count } },
          ConditionExpression: 'attribute_not_exists(id)',
        }),
      );
    await putPlain('1');
    const before = itemIoCounts.synchronousReads;

    // Act
    const there = await dynalite.client.send(
      new GetItemCommand({ TableName: 'entries', Key: { id: { S: 'read' } } }),
    );
    const notThere = await dynalite.client.send(
      new GetItemCommand({ TableName: 'entries', Key: { id: { S: 'none' } } }),
    );
    const refused = await putPlain('2').catch((error: unknown) => error);
    const updated = await dynalite.client.send(
      new UpdateItemCommand({
        TableName: 'entries',
        Key: { id: { S: 'read' } },
        UpdateExpression: 'ADD #count :one',
        ExpressionAttributeNames: { '#count': 'count' },
        ExpressionAttributeValues: { ':one': { N: '1' } },
        ReturnValues: 'ALL_NEW',
      }),
    );

    // Assess
    expect(there.Item).toEqual({ id: { S: 'read' }, count: { N: '1' } });
    expect(notThere.Item).toBeUndefined();
    expect(refused).toBeInstanceOf(ConditionalCheckFailedException);
    expect(updated.Attributes).toEqual({ id: { S: 'read' }, count: { N: '2' } });
    // The two gets, the refused put's read of the item and the update's.
    expect(itemIoCounts.synchronousReads - before).toBe(4);
  });

  it('writes a new item with its entries in every index, in one batch', async () => {
    // Prepare
    const before = itemIoCounts.batchedWrites;

    // Act
    await putNew('a', 'ann', '1');

    // Assess
    expect(itemIoCounts.batchedWrites - before).toBe(1);
    expect(await byOwner('ann')).toEqual([
      { id: { S: 'a' }, owner: { S: 'ann' }, at: { N: '1' }, note: { S: 'note a' } },
    ]);
    expect(await byAt('1')).toEqual([
      { id: { S: 'a' }, owner: { S: 'ann' }, at: { N: '1' }, note: { S: 'note a' }, other: { S: 'x' } },
    ]);
  });

  it('writes nothing, in no index either, when the condition fails', async () => {
    // Prepare
    await putNew('b', 'bob', '2');
    const before = itemIoCounts.batchedWrites;

    // Act
    const refused = await putNew('b', 'carl', '3').catch((error: unknown) => error);

    // Assess
    expect(refused).toBeInstanceOf(ConditionalCheckFailedException);
    expect(itemIoCounts.batchedWrites).toBe(before);
    expect(await byOwner('carl')).toEqual([]);
    expect(await byAt('3')).toEqual([]);
    expect(await byOwner('bob')).toHaveLength(1);
  });

  it("moves an item's index entries when an update changes their keys, and leaves no old entry", async () => {
    // Prepare
    await putNew('c', 'cid', '4');

    // Act
    await dynalite.client.send(
      new UpdateItemCommand({
        TableName: 'entries',
        Key: { id: { S: 'c' } },
        UpdateExpression: 'SET #owner = :owner, #at = :at',
        ExpressionAttributeNames: { '#owner': 'owner', '#at': 'at' },
        ExpressionAttributeValues: { ':owner': { S: 'dee' }, ':at': { N: '5' } },
      }),
    );

    // Assess
    expect(await byOwner('cid')).toEqual([]);
    expect(await byAt('4')).toEqual([]);
    expect(await byOwner('dee')).toEqual([
      { id: { S: 'c' }, owner: { S: 'dee' }, at: { N: '5' }, note: { S: 'note c' } },
    ]);
    expect((await byAt('5'))?.map((item) => item.id)).toEqual([{ S: 'c' }]);
  });

  it('writes an item that no index holds on its own, as dynalite does', async () => {
    // Prepare
    const before = itemIoCounts.batchedWrites;

    // Act
    await dynalite.client.send(
      new PutItemCommand({ TableName: 'entries', Item: { id: { S: 'plain' }, note: { S: 'n' } } }),
    );

    // Assess
    expect(itemIoCounts.batchedWrites).toBe(before);
    expect(await byOwner('plain')).toEqual([]);
  });

  it("removes an item's index entries with it", async () => {
    // Prepare
    await putNew('e', 'eve', '6');

    // Act
    await dynalite.client.send(new DeleteItemCommand({ TableName: 'entries', Key: { id: { S: 'e' } } }));

    // Assess
    expect(await byOwner('eve')).toEqual([]);
    expect(await byAt('6')).toEqual([]);
  });

  it('keeps the item and its index entries across a restart on the same data dir', async () => {
    // Prepare
    await putNew('f', 'fay', '7');

    // Act
    await dynalite.restart();

    // Assess
    expect(await byOwner('fay')).toEqual([
      { id: { S: 'f' }, owner: { S: 'fay' }, at: { N: '7' }, note: { S: 'note f' } },
    ]);
    expect((await byAt('7'))?.map((item) => item.id)).toEqual([{ S: 'f' }]);
  });
});
