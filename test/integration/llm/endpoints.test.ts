/**
 * The deployment's model endpoints (OPENAI_BASE_URL, ANTHROPIC_BASE_URL): calls without a block
 * `baseUrl` go there through the real SDKs, a block's own `baseUrl` still wins.
 */
import { describe, expect, it } from 'vitest';
import { modelBaseUrlsFrom } from '../../../adapters/llm/endpoints';
import { createModelGateway } from '../../../adapters/llm/gateway';
import type { ModelRequest } from '../../../core/engine/types';
import { startAnthropicServer, startOpenAiServer, useModelServer } from '../../support/model-servers';

const openai = useModelServer(startOpenAiServer);
const anthropic = useModelServer(startAnthropicServer);
const otherOpenAi = useModelServer(startOpenAiServer);

function request(provider: string, overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    provider,
    model: provider === 'openai' ? 'gpt-4o' : 'claude-test-model',
    messages: [{ role: 'user', content: 'Say hello' }],
    apiKey: 'sk-block-key-0001',
    timeoutInMs: 5_000,
    ...overrides,
  };
}

function gatewayOf() {
  return createModelGateway({
    maxRetries: 0,
    baseUrls: modelBaseUrlsFrom({ OPENAI_BASE_URL: openai().url, ANTHROPIC_BASE_URL: anthropic().url }),
  });
}

describe('deployment model endpoints', () => {
  it('send an OpenAI call without a baseUrl to OPENAI_BASE_URL', async () => {
    // Prepare
    openai().reply({ content: 'From the gateway' });

    // Act
    const response = await gatewayOf().complete(request('openai', { maxTokens: 32 }));

    // Assess
    expect(response.content).toBe('From the gateway');
    expect(openai().requests).toHaveLength(1);
    expect(openai().requests[0].headers.authorization).toBe('Bearer sk-block-key-0001');
    // A gateway is a compatible server: the widely known max_tokens.
    expect(openai().requests[0].body).toMatchObject({ max_tokens: 32 });
  });

  it('send an Anthropic call without a baseUrl to ANTHROPIC_BASE_URL', async () => {
    // Prepare
    anthropic().reply({ content: 'Claude via the gateway' });

    // Act
    const response = await gatewayOf().complete(request('anthropic', { maxTokens: 32 }));

    // Assess
    expect(response.content).toBe('Claude via the gateway');
    expect(anthropic().requests).toHaveLength(1);
    expect(anthropic().requests[0].path).toBe('/v1/messages');
  });

  it("let a block's own baseUrl win over the deployment's", async () => {
    // Prepare
    otherOpenAi().reply({ content: 'From the block endpoint' });

    // Act
    const response = await gatewayOf().complete(request('openai', { baseUrl: otherOpenAi().url }));

    // Assess
    expect(response.content).toBe('From the block endpoint');
    expect(otherOpenAi().requests).toHaveLength(1);
    expect(openai().requests).toHaveLength(0);
  });

  it("send the deployment's default key to the deployment's endpoint", async () => {
    // Prepare
    const gateway = createModelGateway({
      maxRetries: 0,
      apiKeys: { openai: 'sk-deployment-key-0002' },
      baseUrls: { openai: openai().url },
    });

    // Act
    await gateway.complete(request('openai', { apiKey: undefined }));

    // Assess
    expect(openai().requests[0].headers.authorization).toBe('Bearer sk-deployment-key-0002');
  });
});
