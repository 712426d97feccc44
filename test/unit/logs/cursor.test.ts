import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from '../../../core/logs/cursor';
import type { LogFilters } from '../../../core/logs/types';

const key = async () => new Uint8Array(32).fill(7);
const otherKey = async () => new Uint8Array(32).fill(8);
const filters: LogFilters = { workspaceId: 'ws_1', level: 'error', triggers: ['api'] };
const position = '2026-01-01T00:00:00.000Z#log_1';

async function refusal(
  attempt: Promise<unknown>,
): Promise<{ message: string; statusCode: number; path?: string }> {
  const error = await attempt.then(
    () => undefined,
    (caught) => caught,
  );
  return { message: error?.message, statusCode: error?.statusCode, path: error?.details?.[0]?.path };
}

describe('log cursors', () => {
  it('give back the position they were made with', async () => {
    // Prepare
    const cursor = await encodeCursor(key, filters, 'desc', position);

    // Act
    const decoded = await decodeCursor(key, cursor, { ...filters }, 'desc');

    // Assess
    expect(decoded).toBe(position);
  });

  it('carry no position for a poll that starts from the beginning of the range', async () => {
    // Prepare
    const cursor = await encodeCursor(key, filters, 'asc', undefined);

    // Act
    const decoded = await decodeCursor(key, cursor, filters, 'asc');

    // Assess
    expect(decoded).toBeUndefined();
  });

  it('are a 400 naming cursor when changed, made with another key, or not cursors at all', async () => {
    // Prepare
    const cursor = await encodeCursor(key, filters, 'desc', position);
    const [text, signature] = cursor.split('.');
    const body = JSON.parse(Buffer.from(text as string, 'base64url').toString());
    const moved = Buffer.from(JSON.stringify({ ...body, p: '2030-01-01T00:00:00.000Z#log_9' })).toString(
      'base64url',
    );

    // Act
    const refusals = await Promise.all([
      refusal(decodeCursor(key, `${moved}.${signature}`, filters, 'desc')),
      refusal(decodeCursor(otherKey, cursor, filters, 'desc')),
      refusal(decodeCursor(key, 'not-a-cursor', filters, 'desc')),
      refusal(decodeCursor(key, `${cursor}.extra`, filters, 'desc')),
    ]);

    // Assess
    for (const answer of refusals) {
      expect(answer.statusCode).toBe(400);
      expect(answer.path).toBe('cursor');
    }
  });

  it('are a 400 with another workspace, other filters or another order', async () => {
    // Prepare
    const cursor = await encodeCursor(key, filters, 'desc', position);

    // Act
    const foreign = await refusal(decodeCursor(key, cursor, { ...filters, workspaceId: 'ws_2' }, 'desc'));
    const otherFilters = await refusal(decodeCursor(key, cursor, { ...filters, level: 'info' }, 'desc'));
    const otherOrder = await refusal(decodeCursor(key, cursor, filters, 'asc'));

    // Assess
    expect(foreign).toMatchObject({
      statusCode: 400,
      path: 'cursor',
      message: expect.stringContaining('another workspace'),
    });
    expect(otherFilters).toMatchObject({
      statusCode: 400,
      path: 'cursor',
      message: expect.stringContaining('other filters'),
    });
    expect(otherOrder).toMatchObject({ statusCode: 400, path: 'cursor' });
  });
});
