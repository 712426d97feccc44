/** The Anthropic adapter through the real `@anthropic-ai/sdk` against a loopback Messages API server. */
import { describe, expect, it } from 'vitest';
import { createModelGateway, ModelCallError } from '../../../adapters/llm/gateway';
import type { ModelRequest } from '../../../core/engine/types';
import { defaultAnthropicContent, startAnthropicServer, useModelServer } from '../../support/model-servers';

const apiKey = 'sk-ant-test-key-0123456789';
const server = useModelServer(startAnthropicServer);

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    provider: 'anthropic',
    model: 'claude-sonnet-4-6',
    messages: [{ role: 'user', content: 'Say hello' }],
    apiKey,
    baseUrl: server().url,
    timeoutInMs: 5_000,
    ...overrides,
  };
}

const gateway = createModelGateway({ maxRetries: 0 });

const schema = {
  type: 'object',
  properties: { sentiment: { type: 'string', enum: ['positive', 'negative'] }, score: { type: 'number' } },
  required: ['sentiment', 'score'],
};

describe('Anthropic provider', () => {
  it('sends the system prompt, model and key, and answers with content and tokens', async () => {
    server().reply({ model: 'claude-sonnet-4-6-20260201', usage: { input: 31, output: 12 } });

    const response = await gateway.complete(request({ systemPrompt: 'You are terse.', temperature: 0.5 }));

    expect(response).toEqual({
      content: defaultAnthropicContent,
      model: 'claude-sonnet-4-6-20260201',
      tokens: { prompt: 31, completion: 12, total: 43 },
    });
    const [sent] = server().requests;
    expect(sent.path).toBe('/v1/messages');
    expect(sent.headers.authorization ?? sent.headers['x-api-key']).toContain(apiKey);
    expect(sent.headers['anthropic-version']).toBeTruthy();
    expect(sent.body).toMatchObject({
      model: 'claude-sonnet-4-6',
      system: 'You are terse.',
      messages: [{ role: 'user', content: 'Say hello' }],
      max_tokens: 4096,
      temperature: 0.5,
    });
    expect(sent.body).not.toHaveProperty('tools');
  });

  it('passes maxTokens, and leaves temperature out for models that no longer take it', async () => {
    await gateway.complete(request({ model: 'claude-opus-4-8', temperature: 0.5, maxTokens: 100 }));

    expect(server().requests[0].body.max_tokens).toBe(100);
    expect(server().requests[0].body).not.toHaveProperty('temperature');
  });

  it('streams text deltas in order with tokens from message_start and message_delta', async () => {
    server().reply({
      chunks: ['Bon', 'jour', ' à ', 'tous'],
      chunkDelayMs: 10,
      usage: { input: 17, output: 6 },
    });
    const chunks: string[] = [];

    const response = await gateway.complete(request({ onChunk: (chunk) => chunks.push(chunk) }));

    expect(chunks).toEqual(['Bon', 'jour', ' à ', 'tous']);
    expect(response).toEqual({
      content: 'Bonjour à tous',
      model: 'claude-sonnet-4-6',
      tokens: { prompt: 17, completion: 6, total: 23 },
    });
    expect(server().requests[0].body.stream).toBe(true);
  });

  it('gets a structured answer from a forced tool whose input schema is the schema', async () => {
    server().reply({ structured: { sentiment: 'positive', score: 0.9 } });

    const response = await gateway.complete(request({ responseFormat: schema }));

    expect(response.structured).toEqual({ sentiment: 'positive', score: 0.9 });
    expect(response.content).toBe('{"sentiment":"positive","score":0.9}');
    const sent = server().requests[0].body;
    expect(sent.tools).toEqual([
      { name: 'response', description: 'Give your answer in this structure.', input_schema: schema },
    ]);
    expect(sent.tool_choice).toEqual({ type: 'tool', name: 'response' });
  });

  it('streams the tool input of a structured answer and parses it at the end', async () => {
    server().reply({ structured: { sentiment: 'negative', score: 0.25 }, usage: { input: 40, output: 15 } });
    const chunks: string[] = [];

    const response = await gateway.complete(
      request({ responseFormat: { name: 'verdict', schema }, onChunk: (chunk) => chunks.push(chunk) }),
    );

    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.join('')).toBe('{"sentiment":"negative","score":0.25}');
    expect(response).toEqual({
      content: '{"sentiment":"negative","score":0.25}',
      model: 'claude-sonnet-4-6',
      tokens: { prompt: 40, completion: 15, total: 55 },
      structured: { sentiment: 'negative', score: 0.25 },
    });
    expect(server().requests[0].body.tool_choice).toEqual({ type: 'tool', name: 'verdict' });
  });

  it('times out a provider that does not answer in time', async () => {
    server().reply({ delayMs: 2_000 });

    await expect(gateway.complete(request({ timeoutInMs: 150 }))).rejects.toThrow(
      'Model call timed out after 150 ms',
    );
  });

  it("reports the provider's status and message, without the key", async () => {
    server().reply({ status: 529, errorMessage: 'Overloaded' });
    const overloaded = await gateway.complete(request()).catch((caught) => caught);
    expect(overloaded).toBeInstanceOf(ModelCallError);
    expect(overloaded.message).toBe('Anthropic-compatible server error 529: Overloaded');
    expect(overloaded.status).toBe(529);

    server().reply({ status: 401, errorMessage: `invalid x-api-key ${apiKey}` });
    const unauthorized = await gateway.complete(request()).catch((caught) => caught);
    expect(unauthorized.message).toBe('Anthropic-compatible server error 401: invalid x-api-key [redacted]');
  });

  it('reports a rate limit from a streamed call too', async () => {
    server().reply({
      status: 429,
      errorMessage: 'Number of request tokens has exceeded your per-minute rate limit',
    });

    await expect(gateway.complete(request({ onChunk: () => {} }))).rejects.toThrow(
      'Anthropic-compatible server error 429: Number of request tokens has exceeded your per-minute rate limit',
    );
  });
});
