/** Sim's `response` block: data from the builder or the JSON editor, a status, a header table. */
import { responseHeaderNameProblem } from '../../engine/response-headers';
import { type BlockMapContext, type BlockMapping, warnIfEmptied } from '../mapping';
import { parseJsonWithReferences } from '../references';
import { arrayValue, isRecord, numberValue, subText, subValue, tableToObject } from '../sim-values';

function isReferenceText(value: unknown): boolean {
  return typeof value === 'string' && value.trim().startsWith('<') && value.trim().includes('>');
}

function parsedOr(text: string, fallback: unknown): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return fallback;
  }
}

/** One field of the builder (`{name, type, value}`), read the way Sim's response handler reads it. */
function builderValue(type: unknown, value: unknown): unknown {
  if (isReferenceText(value)) return value;
  switch (type) {
    case 'object':
      if (Array.isArray(value)) return builderObject(value);
      return typeof value === 'string' ? parsedOr(value, value) : value;
    case 'array':
      if (Array.isArray(value)) {
        return value.map((item) =>
          isRecord(item) && typeof item.type === 'string' ? builderValue(item.type, item.value) : item,
        );
      }
      if (typeof value === 'string') {
        const parsed = parsedOr(value, value);
        return Array.isArray(parsed) ? parsed : value;
      }
      return value;
    case 'number': {
      const number = Number(value);
      return Number.isNaN(number) ? value : number;
    }
    case 'boolean':
      return value === true || value === 'true';
    default:
      return value;
  }
}

export function builderObject(fields: unknown[]): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const field of fields) {
    if (!isRecord(field) || typeof field.name !== 'string' || field.name.trim() === '') continue;
    result[field.name] = builderValue(field.type, field.value);
  }
  return result;
}

function dataOf(context: BlockMapContext): unknown {
  const mode = subText(context.sim, 'dataMode') ?? 'structured';
  if (mode === 'json') {
    const data = subValue(context.sim, 'data');
    if (typeof data !== 'string') return data ?? {};
    // Sim answers text that is not JSON as it is.
    return parseJsonWithReferences(data, context.blockNames) ?? data;
  }
  const fields = arrayValue(subValue(context.sim, 'builderData'));
  return fields ? builderObject(fields) : {};
}

export const responseMapping: BlockMapping = {
  type: 'response',
  config(context) {
    const config: Record<string, unknown> = { data: dataOf(context) };
    const status = subValue(context.sim, 'status');
    if (status !== undefined) config.status = numberValue(status) ?? status;
    warnIfEmptied(context, 'headers', 'The response headers table', 'add the headers again');
    const headers = tableToObject(subValue(context.sim, 'headers'));
    if (headers && Object.keys(headers).length > 0) {
      for (const name of Object.keys(headers)) {
        const problem = responseHeaderNameProblem(name);
        if (problem) context.refuse(problem);
      }
      config.headers = headers;
    }
    return config;
  },
};
