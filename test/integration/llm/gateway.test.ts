/** The gateway's own rules: provider dispatch, request checks, cancellation. */
import { describe, expect, it } from 'vitest';
import { createModelGateway, knownModelProviders, ModelCallError } from '../../../adapters/llm/gateway';
import type { ModelCallRequest } from '../../../core/llm/usage';
import type { ModelRequest } from '../../../core/engine/types';

function request(overrides: Partial<ModelCallRequest> = {}): ModelRequest {
  return {
    provider: 'openai',
    model: 'gpt-4o',
    messages: [{ role: 'user', content: 'hi' }],
    apiKey: 'sk-test-0000',
    timeoutInMs: 1_000,
    ...overrides,
  };
}

describe('model gateway', () => {
  it('names an unknown provider and lists the known ones', async () => {
    const error = await createModelGateway()
      .complete(request({ provider: 'gemini' }))
      .catch((caught) => caught);

    expect(error).toBeInstanceOf(ModelCallError);
    expect(error.message).toBe(
      'Unknown model provider "gemini": known providers are openai, anthropic, bedrock',
    );
    expect(knownModelProviders).toEqual(['openai', 'anthropic', 'bedrock']);
  });

  it('dispatches by provider name, in any case, to added providers too', async () => {
    const seen: string[] = [];
    const gateway = createModelGateway({
      providers: {
        echo: {
          async complete(call) {
            seen.push(call.provider);
            return {
              content: call.messages[0].content,
              model: call.model,
              tokens: { prompt: 1, completion: 1, total: 2 },
            };
          },
        },
      },
    });

    const response = await gateway.complete(request({ provider: ' Echo ' }));

    expect(response.content).toBe('hi');
    expect(seen).toEqual(['echo']);
  });

  it('checks the request before calling anyone', async () => {
    const gateway = createModelGateway();
    await expect(gateway.complete(request({ model: ' ' }))).rejects.toThrow('No model is set');
    await expect(gateway.complete(request({ messages: [] }))).rejects.toThrow(
      'The model call has no message',
    );
    await expect(gateway.complete(request({ timeoutInMs: 0 }))).rejects.toThrow(
      /timeoutInMs must be a positive/,
    );
    await expect(gateway.complete(request({ baseUrl: 'file:///etc/passwd' }))).rejects.toThrow(
      'baseUrl must be an http(s) URL',
    );
    await expect(gateway.complete(request({ apiKey: undefined }))).rejects.toThrow(
      'No API key for provider "openai": set apiKey on the block',
    );
  });

  it('stops a call when the run no longer needs it', async () => {
    const gateway = createModelGateway({
      providers: { slow: { complete: () => new Promise(() => {}) } },
    });
    const run = new AbortController();
    setTimeout(() => run.abort(), 20);

    await expect(gateway.complete(request({ provider: 'slow', signal: run.signal }))).rejects.toThrow(
      'Model call cancelled: the run no longer needs it',
    );
  });

  it('wraps an unexpected provider failure without the key', async () => {
    const gateway = createModelGateway({
      providers: {
        broken: {
          complete: async (call) => {
            throw new Error(`boom with ${call.apiKey}`);
          },
        },
      },
    });

    await expect(gateway.complete(request({ provider: 'broken' }))).rejects.toThrow(
      'Model call failed: boom with [redacted]',
    );
  });
});
