/**
 * The Bedrock adapter through the real `BedrockRuntimeClient`, its `send` mocked with
 * aws-sdk-client-mock (Converse and ConverseStream; the stream is an async iterable of events).
 */
import {
  BedrockRuntimeClient,
  ConverseCommand,
  type ConverseStreamOutput,
  ConverseStreamCommand,
  ThrottlingException,
  ValidationException,
} from '@aws-sdk/client-bedrock-runtime';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createModelGateway, ModelCallError } from '../../../adapters/llm/gateway';
import type { ModelRequest } from '../../../core/engine/types';

const bedrock = mockClient(BedrockRuntimeClient);
const regions: string[] = [];
const gateway = createModelGateway({
  bedrock: {
    clientFor: (region) => {
      regions.push(region);
      return new BedrockRuntimeClient({
        region,
        credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'test-secret' },
      });
    },
  },
  env: { AWS_REGION: 'eu-west-1' },
});

beforeEach(() => {
  bedrock.reset();
  regions.length = 0;
});
afterEach(() => bedrock.reset());

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    provider: 'bedrock',
    model: 'amazon.nova-pro-v1:0',
    messages: [{ role: 'user', content: 'Say hello' }],
    timeoutInMs: 5_000,
    ...overrides,
  };
}

async function* events(...items: ConverseStreamOutput[]): AsyncIterable<ConverseStreamOutput> {
  for (const item of items) {
    await new Promise((resolve) => setTimeout(resolve, 2));
    yield item;
  }
}

const metadata = (inputTokens: number, outputTokens: number): ConverseStreamOutput => ({
  metadata: {
    usage: { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens },
    metrics: { latencyMs: 5 },
  },
});

describe('Bedrock provider', () => {
  it('calls Converse with the system prompt and inference settings and reads the usage', async () => {
    bedrock.on(ConverseCommand).resolves({
      output: { message: { role: 'assistant', content: [{ text: 'Hello ' }, { text: 'there' }] } },
      stopReason: 'end_turn',
      usage: { inputTokens: 12, outputTokens: 3, totalTokens: 15 },
      metrics: { latencyMs: 10 },
    });

    const response = await gateway.complete(
      request({ systemPrompt: 'Be terse.', temperature: 0.3, maxTokens: 50, region: 'us-west-2' }),
    );

    expect(response).toEqual({
      content: 'Hello there',
      model: 'amazon.nova-pro-v1:0',
      tokens: { prompt: 12, completion: 3, total: 15 },
    });
    expect(bedrock.commandCalls(ConverseCommand)[0].args[0].input).toEqual({
      modelId: 'amazon.nova-pro-v1:0',
      messages: [{ role: 'user', content: [{ text: 'Say hello' }] }],
      system: [{ text: 'Be terse.' }],
      inferenceConfig: { maxTokens: 50, temperature: 0.3 },
    });
    expect(regions).toEqual(['us-west-2']);
  });

  it('takes the region from the environment and keeps one client per region', async () => {
    bedrock
      .on(ConverseCommand)
      .resolves({ output: { message: { role: 'assistant', content: [{ text: 'x' }] } } });

    await gateway.complete(request());
    await gateway.complete(request());

    expect(regions).toEqual(['eu-west-1']);
    const noRegion = createModelGateway({ env: {} });
    await expect(noRegion.complete(request())).rejects.toThrow(
      'Bedrock needs a region: set region on the block or AWS_REGION',
    );
  });

  it('streams ConverseStream text deltas in order with the usage of the metadata event', async () => {
    bedrock.on(ConverseStreamCommand).resolves({
      stream: events(
        { messageStart: { role: 'assistant' } },
        { contentBlockDelta: { contentBlockIndex: 0, delta: { text: 'Guten' } } },
        { contentBlockDelta: { contentBlockIndex: 0, delta: { text: ' Tag' } } },
        { contentBlockDelta: { contentBlockIndex: 0, delta: { text: '!' } } },
        { contentBlockStop: { contentBlockIndex: 0 } },
        { messageStop: { stopReason: 'end_turn' } },
        metadata(9, 4),
      ),
    });
    const chunks: string[] = [];

    const response = await gateway.complete(request({ onChunk: (chunk) => chunks.push(chunk) }));

    expect(chunks).toEqual(['Guten', ' Tag', '!']);
    expect(response).toEqual({
      content: 'Guten Tag!',
      model: 'amazon.nova-pro-v1:0',
      tokens: { prompt: 9, completion: 4, total: 13 },
    });
  });

  it('forces a tool for a structured answer and returns its input', async () => {
    const schema = { type: 'object', properties: { label: { type: 'string' } }, required: ['label'] };
    bedrock.on(ConverseCommand).resolves({
      output: {
        message: {
          role: 'assistant',
          content: [{ toolUse: { toolUseId: 't1', name: 'label_answer', input: { label: 'spam' } } }],
        },
      },
      stopReason: 'tool_use',
      usage: { inputTokens: 30, outputTokens: 8, totalTokens: 38 },
    });

    const response = await gateway.complete(
      request({
        model: 'us.anthropic.claude-sonnet-4-6-v1:0',
        responseFormat: { name: 'label_answer', schema },
      }),
    );

    expect(response.structured).toEqual({ label: 'spam' });
    expect(response.content).toBe('{"label":"spam"}');
    expect(bedrock.commandCalls(ConverseCommand)[0].args[0].input.toolConfig).toEqual({
      tools: [
        {
          toolSpec: {
            name: 'label_answer',
            description: 'Give your answer in this structure.',
            inputSchema: { json: schema },
          },
        },
      ],
      toolChoice: { tool: { name: 'label_answer' } },
    });
  });

  it('streams the tool input of a structured answer', async () => {
    bedrock.on(ConverseStreamCommand).resolves({
      stream: events(
        { messageStart: { role: 'assistant' } },
        {
          contentBlockStart: {
            contentBlockIndex: 0,
            start: { toolUse: { toolUseId: 't1', name: 'response' } },
          },
        },
        { contentBlockDelta: { contentBlockIndex: 0, delta: { toolUse: { input: '{"label":' } } } },
        { contentBlockDelta: { contentBlockIndex: 0, delta: { toolUse: { input: '"ham"}' } } } },
        { contentBlockStop: { contentBlockIndex: 0 } },
        { messageStop: { stopReason: 'tool_use' } },
        metadata(20, 6),
      ),
    });
    const chunks: string[] = [];

    const response = await gateway.complete(
      request({
        responseFormat: { type: 'object', properties: { label: { type: 'string' } } },
        onChunk: (c) => chunks.push(c),
      }),
    );

    expect(chunks).toEqual(['{"label":', '"ham"}']);
    expect(response).toMatchObject({
      structured: { label: 'ham' },
      tokens: { prompt: 20, completion: 6, total: 26 },
    });
  });

  it('leaves temperature out for Claude models that no longer take it', async () => {
    bedrock
      .on(ConverseCommand)
      .resolves({ output: { message: { role: 'assistant', content: [{ text: 'x' }] } } });

    await gateway.complete(request({ model: 'global.anthropic.claude-opus-4-8-v1:0', temperature: 0.7 }));

    expect(bedrock.commandCalls(ConverseCommand)[0].args[0].input).not.toHaveProperty('inferenceConfig');
  });

  it('turns service exceptions into messages with status and name', async () => {
    bedrock.on(ConverseCommand).rejects(
      new ThrottlingException({
        message: 'Too many requests, please wait.',
        $metadata: { httpStatusCode: 429 },
      }),
    );

    const error = await gateway.complete(request()).catch((caught) => caught);

    expect(error).toBeInstanceOf(ModelCallError);
    expect(error.message).toBe('Bedrock error 429 (ThrottlingException): Too many requests, please wait.');
    expect(error.status).toBe(429);

    bedrock.on(ConverseStreamCommand).rejects(
      new ValidationException({
        message: 'The provided model identifier is invalid.',
        $metadata: { httpStatusCode: 400 },
      }),
    );
    await expect(gateway.complete(request({ onChunk: () => {} }))).rejects.toThrow(
      'Bedrock error 400 (ValidationException): The provided model identifier is invalid.',
    );
  });

  it('times out a call that does not answer in time', async () => {
    bedrock.on(ConverseCommand).callsFake(() => new Promise(() => {}));

    await expect(gateway.complete(request({ timeoutInMs: 100 }))).rejects.toThrow(
      'Model call timed out after 100 ms',
    );
  });
});
