/**
 * Structured answers: the JSON schema a block asks for, in the two shapes people write it, and the
 * JSON that comes back.
 */
import type { JsonSchema } from '../engine/types';

export interface StructuredFormat {
  /** A name providers accept for a schema or tool: letters, digits, `_` and `-`, at most 64. */
  name: string;
  description?: string;
  /** The JSON schema of the answer; always of an object. */
  schema: JsonSchema;
  /** Ask the provider to enforce the schema exactly (OpenAI `strict`); default true. */
  strict: boolean;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * A block's `responseFormat` as given: a JSON schema object, the same as a JSON string, or nothing
 * (undefined, null, empty string). Throws a message meant for the workflow's author otherwise.
 */
export function parseResponseFormat(value: unknown): JsonSchema | undefined {
  if (value === undefined || value === null) return undefined;
  let parsed = value;
  if (typeof value === 'string') {
    if (value.trim() === '') return undefined;
    try {
      parsed = JSON.parse(value);
    } catch (error) {
      throw new Error(`responseFormat is not valid JSON: ${(error as Error).message}`);
    }
  }
  if (!isRecord(parsed)) throw new Error('responseFormat must be a JSON schema object');
  structuredFormatOf(parsed);
  return parsed;
}

function safeName(name: unknown): string {
  const cleaned = typeof name === 'string' ? name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64) : '';
  return cleaned === '' ? 'response' : cleaned;
}

/**
 * The schema and its settings. Accepts a bare JSON schema (`{"type": "object", "properties": ...}`)
 * or OpenAI's wrapper (`{"name": ..., "schema": {...}, "strict"?: ...}`). The answer must be an
 * object: OpenAI's strict mode, Anthropic tools and Bedrock tools all require one.
 */
export function structuredFormatOf(responseFormat: JsonSchema): StructuredFormat {
  const wrapped =
    isRecord(responseFormat.schema) &&
    responseFormat.type === undefined &&
    responseFormat.properties === undefined;
  const schema: JsonSchema = wrapped ? { ...(responseFormat.schema as JsonSchema) } : { ...responseFormat };
  if (schema.type === undefined && isRecord(schema.properties)) schema.type = 'object';
  if (schema.type !== 'object') {
    throw new Error(
      'responseFormat must be the JSON schema of an object ("type": "object" with "properties")',
    );
  }
  const description = wrapped ? responseFormat.description : schema.description;
  return {
    name: safeName(wrapped ? responseFormat.name : schema.title),
    ...(typeof description === 'string' && description !== '' ? { description } : {}),
    schema,
    strict: wrapped && typeof responseFormat.strict === 'boolean' ? responseFormat.strict : true,
  };
}

const nestedSchemaLists = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];
const nestedSchemaMaps = ['properties', '$defs', 'definitions', 'patternProperties'];

/**
 * A copy where every object schema that does not say otherwise has `additionalProperties: false`,
 * which OpenAI's strict mode requires. Properties left out of `required` stay optional; strict mode
 * rejects such a schema with a message naming the property, which the caller passes on.
 */
export function closedObjectSchema(schema: JsonSchema): JsonSchema {
  const copy: JsonSchema = { ...schema };
  const isObject = copy.type === 'object' || (Array.isArray(copy.type) && copy.type.includes('object'));
  if ((isObject || isRecord(copy.properties)) && copy.additionalProperties === undefined) {
    copy.additionalProperties = false;
  }
  for (const key of nestedSchemaMaps) {
    const map = copy[key];
    if (isRecord(map)) {
      copy[key] = Object.fromEntries(
        Object.entries(map).map(([name, sub]) => [name, isRecord(sub) ? closedObjectSchema(sub) : sub]),
      );
    }
  }
  for (const key of nestedSchemaLists) {
    const list = copy[key];
    if (Array.isArray(list)) copy[key] = list.map((sub) => (isRecord(sub) ? closedObjectSchema(sub) : sub));
  }
  if (isRecord(copy.items)) copy.items = closedObjectSchema(copy.items);
  if (isRecord(copy.additionalProperties))
    copy.additionalProperties = closedObjectSchema(copy.additionalProperties);
  return copy;
}

/**
 * The JSON of a structured answer. Tolerates a Markdown code fence around it, which some
 * OpenAI-compatible servers add. Throws when the text is not JSON.
 */
export function parseStructuredAnswer(text: string): unknown {
  const fenced = /^\s*```(?:json)?\s*\n?([\s\S]*?)\n?```\s*$/i.exec(text);
  const json = fenced ? fenced[1] : text;
  try {
    return JSON.parse(json);
  } catch {
    const preview = text.length > 200 ? `${text.slice(0, 200)}...` : text;
    throw new Error(`The model's answer is not the JSON the response format asks for: ${preview}`);
  }
}
