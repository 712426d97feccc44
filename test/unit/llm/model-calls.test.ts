import { describe, expect, it } from 'vitest';
import { chatCompletionParams } from '../../../adapters/llm/openai';
import {
  ClientCache,
  claudeAcceptsTemperature,
  redact,
  tokenCounts,
} from '../../../adapters/llm/provider-contract';
import {
  closedObjectSchema,
  parseResponseFormat,
  parseStructuredAnswer,
  structuredFormatOf,
} from '../../../core/llm/response-format';
import { defaultModelTimeoutInMs, modelTimeoutInMs, usageOfCall } from '../../../core/llm/usage';
import { builtInPricingTable } from '../../../core/llm/pricing';

const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] };

describe('response formats', () => {
  it('takes a schema object, a JSON string, or nothing', () => {
    expect(parseResponseFormat(schema)).toEqual(schema);
    expect(parseResponseFormat(JSON.stringify(schema))).toEqual(schema);
    expect(parseResponseFormat('  ')).toBeUndefined();
    expect(parseResponseFormat(undefined)).toBeUndefined();
    expect(() => parseResponseFormat('{oops')).toThrow(/responseFormat is not valid JSON/);
    expect(() => parseResponseFormat(42)).toThrow(/JSON schema object/);
    expect(() => parseResponseFormat({ type: 'array', items: {} })).toThrow(/schema of an object/);
  });

  it("reads OpenAI's wrapper and a bare schema alike", () => {
    expect(structuredFormatOf({ name: 'My answer!', schema, strict: false })).toEqual({
      name: 'My_answer_',
      schema,
      strict: false,
    });
    expect(structuredFormatOf({ properties: { a: { type: 'number' } } })).toMatchObject({
      name: 'response',
      schema: { type: 'object' },
      strict: true,
    });
  });

  it('closes every object schema for strict mode unless it says otherwise', () => {
    const closed = closedObjectSchema({
      type: 'object',
      properties: {
        nested: { type: 'object', properties: { x: { type: 'string' } } },
        list: { type: 'array', items: { type: 'object', properties: {} } },
        open: { type: 'object', additionalProperties: true },
      },
    });
    expect(closed.additionalProperties).toBe(false);
    expect((closed.properties as any).nested.additionalProperties).toBe(false);
    expect((closed.properties as any).list.items.additionalProperties).toBe(false);
    expect((closed.properties as any).open.additionalProperties).toBe(true);
  });

  it('parses a structured answer, with or without a code fence', () => {
    expect(parseStructuredAnswer('{"a":1}')).toEqual({ a: 1 });
    expect(parseStructuredAnswer('```json\n{"a":1}\n```')).toEqual({ a: 1 });
    expect(() => parseStructuredAnswer('not json')).toThrow(/not the JSON the response format asks for/);
  });
});

describe('OpenAI request body', () => {
  const base = {
    provider: 'openai',
    model: 'gpt-5',
    messages: [{ role: 'user' as const, content: 'hi' }],
    timeoutInMs: 1,
  };

  it("uses max_completion_tokens on OpenAI's endpoint and max_tokens on a compatible server", () => {
    expect(chatCompletionParams({ ...base, maxTokens: 50 })).toMatchObject({ max_completion_tokens: 50 });
    expect(chatCompletionParams({ ...base, maxTokens: 50 })).not.toHaveProperty('max_tokens');
    expect(chatCompletionParams({ ...base, maxTokens: 50, baseUrl: 'http://x/v1' })).toMatchObject({
      max_tokens: 50,
    });
  });

  it('sends temperature only when set, and the system prompt first', () => {
    expect(chatCompletionParams(base)).not.toHaveProperty('temperature');
    expect(chatCompletionParams({ ...base, temperature: 0, systemPrompt: 'Be brief' })).toMatchObject({
      temperature: 0,
      messages: [
        { role: 'system', content: 'Be brief' },
        { role: 'user', content: 'hi' },
      ],
    });
  });
});

describe('adapter helpers', () => {
  it('removes keys and key-shaped text from messages', () => {
    expect(redact('bad key my-secret-key here', ['my-secret-key'])).toBe('bad key [redacted] here');
    expect(redact('Incorrect API key provided: sk-proj-****abcd.', [])).toBe(
      'Incorrect API key provided: [redacted]',
    );
    expect(redact('header Authorization: Bearer abc.def', [])).toBe(
      'header Authorization: Bearer [redacted]',
    );
  });

  it('counts tokens from usage reports, deriving a missing total', () => {
    expect(tokenCounts(3, 4)).toEqual({ prompt: 3, completion: 4, total: 7 });
    expect(tokenCounts(3, 4, 9)).toEqual({ prompt: 3, completion: 4, total: 9 });
    expect(tokenCounts(undefined, null)).toEqual({ prompt: 0, completion: 0, total: 0 });
  });

  it('sends temperature only to Claude generations that still take it', () => {
    expect(claudeAcceptsTemperature('claude-3-5-sonnet-20241022')).toBe(true);
    expect(claudeAcceptsTemperature('claude-sonnet-4-20250514')).toBe(true);
    expect(claudeAcceptsTemperature('claude-sonnet-4-5')).toBe(true);
    expect(claudeAcceptsTemperature('us.anthropic.claude-opus-4-6-v1:0')).toBe(true);
    expect(claudeAcceptsTemperature('claude-opus-4-7')).toBe(false);
    expect(claudeAcceptsTemperature('claude-opus-4-8')).toBe(false);
    expect(claudeAcceptsTemperature('claude-sonnet-5')).toBe(false);
    expect(claudeAcceptsTemperature('claude-fable-5')).toBe(false);
  });

  it('keeps the most recently used clients', () => {
    const cache = new ClientCache<object>(2);
    const a = cache.get('a', () => ({}));
    expect(cache.get('a', () => ({}))).toBe(a);
    cache.get('b', () => ({}));
    cache.get('a', () => ({}));
    cache.get('c', () => ({}));
    expect(cache.size).toBe(2);
    expect(cache.get('a', () => ({}))).toBe(a);
  });
});

describe('model block helpers', () => {
  it('defaults the time limit to 60 s and accepts numeric text', () => {
    expect(modelTimeoutInMs(undefined)).toBe(defaultModelTimeoutInMs);
    expect(defaultModelTimeoutInMs).toBe(60_000);
    expect(modelTimeoutInMs('250')).toBe(250);
    expect(modelTimeoutInMs(-1)).toBe(60_000);
    expect(modelTimeoutInMs(10 ** 9)).toBe(15 * 60 * 1000);
  });

  it('keys usage by the configured model and prices it, else by the reported model', () => {
    const tokens = { prompt: 1000, completion: 100, total: 1100 };
    expect(usageOfCall('gpt-4o', tokens, builtInPricingTable)).toEqual({
      usage: { model: 'gpt-4o', input: 0.0025, output: 0.001, tokens },
      cost: { input: 0.0025, output: 0.001, total: 0.0035 },
      priced: true,
    });
    expect(usageOfCall('my-alias', tokens, builtInPricingTable, 'gpt-4o-2024-08-06').cost.total).toBe(0.0035);
    expect(usageOfCall('local-llama', tokens, builtInPricingTable)).toMatchObject({
      usage: { model: 'local-llama', input: 0, output: 0, tokens },
      priced: false,
    });
    expect(usageOfCall('gpt-4o', tokens, undefined).cost.total).toBe(0);
  });
});
