/**
 * Amazon Bedrock through the official `@aws-sdk/client-bedrock-runtime`, with the Converse and
 * ConverseStream APIs (one request shape for every model family). Credentials come from the
 * client's default chain (the Lambda role in AWS); no API key is used. A structured answer is a tool
 * whose input schema is the schema, forced with `toolChoice`. The SDK is loaded with the first
 * Bedrock call, so the Step function's cold start does not pay for it (as for the other providers).
 */
import type {
  BedrockRuntimeClient,
  ContentBlock,
  ConverseCommandInput,
  ConverseStreamOutput,
  TokenUsage,
} from '@aws-sdk/client-bedrock-runtime';
import { type BedrockSdk, loadBedrockSdk } from '../aws/sdk-on-demand';
import type { ModelRequest, ModelResponse } from '../../core/engine/types';
import { normalizeModelId } from '../../core/llm/pricing';
import { parseStructuredAnswer, structuredFormatOf } from '../../core/llm/response-format';
import {
  ClientCache,
  claudeAcceptsTemperature,
  ModelCallError,
  type ModelProvider,
  rootMessage,
  tokenCounts,
} from './provider-contract';
import { optionalEnv } from '../aws/require-env';

export interface BedrockProviderOptions {
  /** The client for a region; default: a `BedrockRuntimeClient` with the default credential chain. */
  clientFor?: (region: string) => BedrockRuntimeClient;
  /** Region when a request names none; default `AWS_REGION`, then `AWS_DEFAULT_REGION`. */
  region?: string;
  env?: Readonly<Record<string, string | undefined>>;
}

function regionOf(request: ModelRequest, options: BedrockProviderOptions): string {
  const env = options.env ?? {
    AWS_REGION: optionalEnv('AWS_REGION'),
    AWS_DEFAULT_REGION: optionalEnv('AWS_DEFAULT_REGION'),
  };
  const region = request.region || options.region || env.AWS_REGION || env.AWS_DEFAULT_REGION;
  if (!region) {
    throw new ModelCallError(
      request.provider,
      'Bedrock needs a region: set region on the block or AWS_REGION',
    );
  }
  return region;
}

function describeError(error: unknown, request: ModelRequest, sdk: BedrockSdk): ModelCallError {
  if (error instanceof ModelCallError) return error;
  if (error instanceof sdk.BedrockRuntimeServiceException) {
    const status = error.$metadata?.httpStatusCode;
    const detail = error.message || 'no details';
    return new ModelCallError(
      request.provider,
      `Bedrock error${status ? ` ${status}` : ''} (${error.name}): ${detail}`,
      status,
    );
  }
  return new ModelCallError(request.provider, `Bedrock call failed: ${rootMessage(error)}`);
}

function inputOf(request: ModelRequest): { input: ConverseCommandInput; toolName?: string } {
  const input: ConverseCommandInput = {
    modelId: request.model,
    messages: request.messages.map((message) => ({
      role: message.role,
      content: [{ text: message.content }],
    })),
  };
  if (request.systemPrompt) input.system = [{ text: request.systemPrompt }];
  const isClaude = normalizeModelId(request.model).startsWith('claude');
  const sendTemperature =
    request.temperature !== undefined && (!isClaude || claudeAcceptsTemperature(request.model));
  if (request.maxTokens !== undefined || sendTemperature) {
    input.inferenceConfig = {
      ...(request.maxTokens !== undefined ? { maxTokens: request.maxTokens } : {}),
      ...(sendTemperature ? { temperature: request.temperature } : {}),
    };
  }
  if (!request.responseFormat) return { input };
  const format = structuredFormatOf(request.responseFormat);
  input.toolConfig = {
    tools: [
      {
        toolSpec: {
          name: format.name,
          description: format.description ?? 'Give your answer in this structure.',
          inputSchema: { json: format.schema as Record<string, never> },
        },
      },
    ],
    toolChoice: { tool: { name: format.name } },
  };
  return { input, toolName: format.name };
}

function tokensOf(usage: TokenUsage | undefined): ModelResponse['tokens'] {
  return tokenCounts(usage?.inputTokens, usage?.outputTokens, usage?.totalTokens);
}

function parseOrFail(request: ModelRequest, text: string): unknown {
  try {
    return parseStructuredAnswer(text);
  } catch (error) {
    throw new ModelCallError(request.provider, (error as Error).message);
  }
}

const streamErrors = [
  'internalServerException',
  'modelStreamErrorException',
  'validationException',
  'throttlingException',
  'serviceUnavailableException',
] as const;

export function createBedrockProvider(options: BedrockProviderOptions = {}): ModelProvider {
  const clients = new ClientCache<BedrockRuntimeClient>();

  async function once(
    sdk: BedrockSdk,
    client: BedrockRuntimeClient,
    request: ModelRequest,
    input: ConverseCommandInput,
    toolName: string | undefined,
    signal: AbortSignal,
  ): Promise<ModelResponse> {
    const output = await client.send(new sdk.ConverseCommand(input), { abortSignal: signal });
    const blocks: ContentBlock[] = output.output?.message?.content ?? [];
    const text = blocks.map((block) => block.text ?? '').join('');
    const tokens = tokensOf(output.usage);
    if (toolName === undefined) return { content: text, model: request.model, tokens };
    const toolUse = blocks.find((block) => block.toolUse?.name === toolName)?.toolUse;
    const structured = toolUse ? toolUse.input : parseOrFail(request, text);
    return { content: JSON.stringify(structured), model: request.model, tokens, structured };
  }

  async function streamed(
    sdk: BedrockSdk,
    client: BedrockRuntimeClient,
    request: ModelRequest,
    input: ConverseCommandInput,
    toolName: string | undefined,
    signal: AbortSignal,
    onChunk: (text: string) => void,
  ): Promise<ModelResponse> {
    const output = await client.send(new sdk.ConverseStreamCommand(input), { abortSignal: signal });
    let text = '';
    let toolJson = '';
    let usage: TokenUsage | undefined;
    for await (const event of (output.stream ?? []) as AsyncIterable<ConverseStreamOutput>) {
      for (const name of streamErrors) {
        const failure = (event as unknown as Record<string, { message?: string } | undefined>)[name];
        if (failure)
          throw new ModelCallError(
            request.provider,
            `Bedrock stream error (${name}): ${failure.message ?? ''}`,
          );
      }
      const delta = event.contentBlockDelta?.delta;
      if (delta?.text) {
        text += delta.text;
        onChunk(delta.text);
      } else if (delta?.toolUse?.input) {
        toolJson += delta.toolUse.input;
        onChunk(delta.toolUse.input);
      }
      if (event.metadata?.usage) usage = event.metadata.usage;
    }
    const tokens = tokensOf(usage);
    if (toolName === undefined) return { content: text, model: request.model, tokens };
    const structured = parseOrFail(request, toolJson || text);
    return { content: JSON.stringify(structured), model: request.model, tokens, structured };
  }

  return {
    async complete(request, signal) {
      const region = regionOf(request, options);
      const sdk = await loadBedrockSdk();
      const client = clients.get(region, () =>
        options.clientFor ? options.clientFor(region) : new sdk.BedrockRuntimeClient({ region }),
      );
      const { input, toolName } = inputOf(request);
      try {
        return request.onChunk
          ? await streamed(sdk, client, request, input, toolName, signal, request.onChunk)
          : await once(sdk, client, request, input, toolName, signal);
      } catch (error) {
        throw describeError(error, request, sdk);
      }
    },
  };
}
