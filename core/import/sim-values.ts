/**
 * Reading the values of Sim's sub-blocks: each is `{id, type, value}`, and the same setting may be
 * stored as an array or as its JSON text, a number as text, a table as rows of cells.
 */
import type { SimBlock } from './types';

export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The value of a sub-block, or undefined when it is absent, null or empty text. */
export function subValue(block: SimBlock, id: string): unknown {
  const sub = block.subBlocks?.[id];
  if (!isRecord(sub)) return undefined;
  const { value } = sub;
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'string' && value.trim() === '') return undefined;
  return value;
}

/** Whether the sub-block is present with a null value: what Sim's export leaves of a secret or a table. */
export function subEmptied(block: SimBlock, id: string): boolean {
  const sub = block.subBlocks?.[id];
  return isRecord(sub) && sub.value === null;
}

export function subText(block: SimBlock, id: string): string | undefined {
  const value = subValue(block, id);
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** An array kept as it is, or JSON text of one parsed; anything else is undefined. */
export function arrayValue(value: unknown): unknown[] | undefined {
  if (Array.isArray(value)) return value;
  if (typeof value !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(value);
    return Array.isArray(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** A finite number from a number or numeric text; undefined otherwise. */
export function numberValue(value: unknown): number | undefined {
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value.trim()) : value;
  return typeof number === 'number' && Number.isFinite(number) ? number : undefined;
}

/** Rows of a Sim table (`[{id, cells: {Key, Value}}]`) as an object; rows without a key are the editor's empty rows. */
export function tableToObject(value: unknown): Record<string, string> | undefined {
  const rows = arrayValue(value);
  if (!rows) return isRecord(value) ? (value as Record<string, string>) : undefined;
  const result: Record<string, string> = {};
  for (const row of rows) {
    const cells = isRecord(row) && isRecord(row.cells) ? row.cells : undefined;
    const key = typeof cells?.Key === 'string' ? cells.Key.trim() : '';
    if (key === '') continue;
    result[key] = typeof cells?.Value === 'string' ? cells.Value : String(cells?.Value ?? '');
  }
  return result;
}

/** An object as the rows of a Sim table. */
export function objectToTable(
  value: Record<string, unknown>,
): Array<{ id: string; cells: Record<string, string> }> {
  return Object.entries(value).map(([key, cell], index) => ({
    id: `row-${index + 1}`,
    cells: { Key: key, Value: typeof cell === 'string' ? cell : JSON.stringify(cell) },
  }));
}
