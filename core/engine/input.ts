/**
 * The run input against the start block's input format: defaults, required fields, and the coercions
 * that let form posts and query-string-minded clients send `"42"` or `"true"`. The reverse is
 * refused: a number or boolean for a string field is a caller's mistake (a phone number or a code
 * that lost its leading zeros), not text, so it is a 400 naming the field.
 */
import { type ErrorDetail, ValidationError } from '../errors';
import { maxJsonDepth, nestsDeeperThan } from '../json-depth';
import { normalizeInputFieldType } from './graph';
import type { InputField, InputFieldType, WorkflowGraph } from './types';

/** Members of the execute body that steer the call and are not workflow input. */
export const controlMembers: readonly string[] = ['stream', 'selectedOutputs'];

export function startInputFormat(graph: WorkflowGraph): InputField[] {
  const start = Object.values(graph.blocks).find((block) => block.type === 'start');
  const format = start?.config.inputFormat;
  if (!Array.isArray(format)) return [];
  const fields: InputField[] = [];
  for (const entry of format) {
    if (
      entry === null ||
      typeof entry !== 'object' ||
      typeof entry.name !== 'string' ||
      entry.name.trim() === ''
    )
      continue;
    const type = normalizeInputFieldType(entry.type);
    if (!type) continue;
    fields.push({ ...entry, name: entry.name, type });
  }
  return fields;
}

type Coerced = { ok: true; value: unknown } | { ok: false; message: string };

const expected: Record<InputFieldType, string> = {
  string: 'a string',
  number: 'a number',
  boolean: 'a boolean',
  object: 'an object',
  array: 'an array',
  files: 'a list of files',
};

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function coerce(value: unknown, type: InputFieldType, source: 'input' | 'default'): unknown {
  switch (type) {
    case 'string':
      if (typeof value === 'string') return value;
      // A workflow's own default (`default: 5` on a text field) is taken as its text.
      if (source === 'default' && (typeof value === 'number' || typeof value === 'boolean'))
        return String(value);
      return undefined;
    case 'number': {
      if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
      if (typeof value === 'string' && value.trim() !== '') {
        const number = Number(value.trim());
        return Number.isFinite(number) ? number : undefined;
      }
      return undefined;
    }
    case 'boolean':
      if (typeof value === 'boolean') return value;
      if (typeof value === 'string') {
        const text = value.trim().toLowerCase();
        if (text === 'true') return true;
        if (text === 'false') return false;
      }
      return undefined;
    case 'object': {
      const parsed = typeof value === 'string' ? parseJson(value) : value;
      return isPlainObject(parsed) ? parsed : undefined;
    }
    case 'array': {
      const parsed = typeof value === 'string' ? parseJson(value) : value;
      return Array.isArray(parsed) ? parsed : undefined;
    }
    case 'files': {
      // A single file is accepted for a files field, as a list of one.
      const list = isPlainObject(value) ? [value] : value;
      return Array.isArray(list) && list.every(isPlainObject) ? list : undefined;
    }
  }
}

function coerceField(field: InputField, value: unknown, source: 'input' | 'default' = 'input'): Coerced {
  // A JSON string is parsed here, past the check of the request body's own nesting.
  const parsesJson = field.type === 'object' || field.type === 'array';
  if (parsesJson && typeof value === 'string' && nestsDeeperThan(value, maxJsonDepth)) {
    return { ok: false, message: `Input field "${field.name}" is nested deeper than ${maxJsonDepth} levels` };
  }
  const coerced = coerce(value, field.type, source);
  if (coerced === undefined)
    return { ok: false, message: `Input field "${field.name}" must be ${expected[field.type]}` };
  return { ok: true, value: coerced };
}

/** Null, and an empty string for anything but a string field, count as not given (forms send both). */
function isMissing(value: unknown, type: InputFieldType): boolean {
  return value === undefined || value === null || (value === '' && type !== 'string');
}

/**
 * Returns the workflow input: control members dropped, defaults applied, values coerced to their
 * declared types, unknown members passed through. Throws a `ValidationError` naming the first bad
 * field in its message and listing every bad field in its details.
 */
export function validateStartInput(
  graph: WorkflowGraph,
  body: Record<string, unknown>,
): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body ?? {}))
    if (!controlMembers.includes(key)) input[key] = value;

  const details: ErrorDetail[] = [];
  for (const field of startInputFormat(graph)) {
    const given = input[field.name];
    if (isMissing(given, field.type) || (field.required && given === '')) {
      if (field.default !== undefined && field.default !== null && field.default !== '') {
        const coerced = coerceField(field, field.default, 'default');
        input[field.name] = coerced.ok ? coerced.value : field.default;
      } else if (field.required) {
        details.push({ path: field.name, message: `Input field "${field.name}" is required` });
      } else if (given === null || given === '') {
        delete input[field.name];
      }
      continue;
    }
    const coerced = coerceField(field, given);
    if (coerced.ok) input[field.name] = coerced.value;
    else details.push({ path: field.name, message: coerced.message });
  }

  if (details.length > 0) throw new ValidationError(details[0].message, details);
  return input;
}
