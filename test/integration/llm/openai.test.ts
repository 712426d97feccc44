/** The OpenAI adapter through the real `openai` SDK against a loopback server speaking its wire format. */
import { describe, expect, it } from 'vitest';
import { createModelGateway, ModelCallError } from '../../../adapters/llm/gateway';
import type { ModelRequest } from '../../../core/engine/types';
import { defaultOpenAiContent, startOpenAiServer, useModelServer } from '../../support/model-servers';

const apiKey = 'sk-test-openai-0123456789';
const server = useModelServer(startOpenAiServer);

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    provider: 'openai',
    model: 'gpt-4o',
    messages: [{ role: 'user', content: 'Say hello' }],
    apiKey,
    baseUrl: server().url,
    timeoutInMs: 5_000,
    ...overrides,
  };
}

const gateway = createModelGateway({ maxRetries: 0 });

describe('OpenAI provider', () => {
  it('answers with the content, the model and the tokens of the usage report', async () => {
    server().reply({ content: 'Hi there!', model: 'gpt-4o-2024-08-06', usage: { input: 21, output: 4 } });

    const response = await gateway.complete(
      request({ systemPrompt: 'You are terse.', temperature: 0.2, maxTokens: 64 }),
    );

    expect(response).toEqual({
      content: 'Hi there!',
      model: 'gpt-4o-2024-08-06',
      tokens: { prompt: 21, completion: 4, total: 25 },
    });
    expect(server().requests).toHaveLength(1);
    const [sent] = server().requests;
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.headers.authorization).toBe(`Bearer ${apiKey}`);
    expect(sent.body).toEqual({
      model: 'gpt-4o',
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'Say hello' },
      ],
      temperature: 0.2,
      max_tokens: 64,
      stream: false,
    });
  });

  it('streams the chunks in order and still returns the full content and usage', async () => {
    server().reply({
      chunks: ['Hel', 'lo', ', wor', 'ld!'],
      chunkDelayMs: 15,
      usage: { input: 8, output: 5 },
    });
    const chunks: string[] = [];

    const response = await gateway.complete(request({ onChunk: (chunk) => chunks.push(chunk) }));

    expect(chunks).toEqual(['Hel', 'lo', ', wor', 'ld!']);
    expect(response).toEqual({
      content: 'Hello, world!',
      model: 'gpt-4o',
      tokens: { prompt: 8, completion: 5, total: 13 },
    });
    expect(server().requests[0].body).toMatchObject({
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('asks for a strict json_schema answer and parses it into structured', async () => {
    const schema = {
      type: 'object',
      properties: { city: { type: 'string' }, population: { type: 'number' } },
      required: ['city', 'population'],
    };
    server().reply({ structured: { city: 'Lyon', population: 522_000 } });

    const response = await gateway.complete(request({ responseFormat: schema }));

    expect(response.structured).toEqual({ city: 'Lyon', population: 522_000 });
    expect(JSON.parse(response.content)).toEqual({ city: 'Lyon', population: 522_000 });
    expect(server().requests[0].body.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'response', schema: { ...schema, additionalProperties: false }, strict: true },
    });
  });

  it("streams a structured answer and takes OpenAI's own wrapper format", async () => {
    server().reply({ structured: { ok: true } });
    const chunks: string[] = [];

    const response = await gateway.complete(
      request({
        responseFormat: {
          name: 'verdict',
          strict: false,
          schema: { type: 'object', properties: { ok: { type: 'boolean' } } },
        },
        onChunk: (chunk) => chunks.push(chunk),
      }),
    );

    expect(response.structured).toEqual({ ok: true });
    expect(chunks.join('')).toBe('{"ok":true}');
    expect(server().requests[0].body.response_format.json_schema).toEqual({
      name: 'verdict',
      schema: { type: 'object', properties: { ok: { type: 'boolean' } } },
      strict: false,
    });
  });

  it('fails clearly when the structured answer is not JSON', async () => {
    server().reply({ content: 'I cannot answer in JSON' });

    await expect(
      gateway.complete(request({ responseFormat: { type: 'object', properties: {} } })),
    ).rejects.toThrow(/not the JSON the response format asks for: I cannot answer in JSON/);
  });

  it('times out a provider that does not answer in time', async () => {
    server().reply({ delayMs: 2_000 });
    const started = Date.now();

    await expect(gateway.complete(request({ timeoutInMs: 200 }))).rejects.toThrow(
      'Model call timed out after 200 ms',
    );
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('times out a stream that stalls, and sends no chunk after that', async () => {
    server().reply({ chunks: ['one', 'two', 'three', 'four'], chunkDelayMs: 150 });
    const chunks: string[] = [];

    await expect(
      gateway.complete(request({ timeoutInMs: 250, onChunk: (chunk) => chunks.push(chunk) })),
    ).rejects.toThrow('Model call timed out after 250 ms');
    const seen = chunks.length;
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(chunks.length).toBe(seen);
    expect(seen).toBeLessThan(4);
  });

  it("reports the provider's status and message", async () => {
    server().reply({
      status: 429,
      errorMessage: 'Rate limit reached for gpt-4o in organization org-1 on tokens per min.',
    });

    const error = await gateway.complete(request()).catch((caught) => caught);

    expect(error).toBeInstanceOf(ModelCallError);
    expect(error.message).toBe(
      'OpenAI-compatible server error 429: Rate limit reached for gpt-4o in organization org-1 on tokens per min.',
    );
    expect(error.status).toBe(429);
    expect(error.provider).toBe('openai');
  });

  it('never puts the API key in an error, even when the provider echoes it', async () => {
    server().reply({
      status: 401,
      errorMessage: `Incorrect API key provided: ${apiKey}. You can find your API key at https://platform.openai.com/account/api-keys.`,
    });

    const error = await gateway.complete(request()).catch((caught) => caught);

    expect(error.message).toMatch(
      /^OpenAI-compatible server error 401: Incorrect API key provided: \[redacted\]/,
    );
    expect(error.message).not.toContain(apiKey);
    expect(error.message).not.toContain('0123456789');
  });

  it('retries a 500 inside the time limit when retries are allowed', async () => {
    const retrying = createModelGateway({ maxRetries: 1 });
    server().reply({
      status: 500,
      errorMessage: 'The server had an error',
      headers: { 'retry-after-ms': '10' },
    });

    const response = await retrying.complete(request());

    expect(response.content).toBe(defaultOpenAiContent);
    expect(server().requests).toHaveLength(2);
  });

  it('says so when the server cannot be reached', async () => {
    const closed = await startOpenAiServer();
    await closed.close();

    await expect(gateway.complete(request({ baseUrl: closed.url }))).rejects.toThrow(
      /^Could not reach OpenAI-compatible server: .*ECONNREFUSED/,
    );
  });

  it("never sends the deployment's default key to a custom baseUrl", async () => {
    const withDefaultKey = createModelGateway({
      maxRetries: 0,
      apiKeys: { openai: 'sk-deployment-key-000' },
    });

    await expect(withDefaultKey.complete(request({ apiKey: undefined }))).rejects.toThrow(
      /No API key for provider "openai" at a custom baseUrl/,
    );
    expect(server().requests).toHaveLength(0);
  });

  it('routes custom baseUrl calls through the fetch it was given', async () => {
    const urls: string[] = [];
    const guarded = createModelGateway({
      maxRetries: 0,
      fetch: (input, init) => {
        urls.push(String(input instanceof Request ? input.url : input));
        return fetch(input, init);
      },
    });

    await guarded.complete(request());

    expect(urls).toEqual([`${server().url}/chat/completions`]);
  });
});
