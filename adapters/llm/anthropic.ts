/**
 * Anthropic through the official `@anthropic-ai/sdk` and its Messages API. Streaming reads the raw
 * event stream (`message_start` carries the input tokens, `message_delta` the output tokens so far).
 * A structured answer is a tool whose `input_schema` is the schema, forced with `tool_choice`; the
 * tool's input is the answer.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type {
  MessageCreateParamsBase,
  MessageParam,
  Tool,
} from '@anthropic-ai/sdk/resources/messages/messages';
import type { ModelRequest, ModelResponse } from '../../core/engine/types';
import { parseStructuredAnswer, structuredFormatOf } from '../../core/llm/response-format';
import {
  apiKeyFor,
  ClientCache,
  claudeAcceptsTemperature,
  defaultMaxTokens,
  ModelCallError,
  type ModelProvider,
  tokenCounts,
  describeSdkError,
  type SdkErrorKind,
  type SdkProviderOptions,
} from './provider-contract';

/**
 * The SDK, loaded by the first call: it is kept out of the bundles and installed beside the functions
 * that run blocks (lib/bundling.ts), so a run that never calls this provider never loads it.
 */
let sdk: typeof Anthropic | undefined;

async function loadSdk(): Promise<typeof Anthropic> {
  sdk ??= (await import('@anthropic-ai/sdk')).default;
  return sdk;
}

export const anthropicDefaultBaseUrl = 'https://api.anthropic.com';

export type AnthropicProviderOptions = SdkProviderOptions;

function label(compatible: boolean): string {
  return compatible ? 'Anthropic-compatible server' : 'Anthropic';
}

function errorKind(error: unknown): SdkErrorKind {
  if (!sdk) return undefined;
  if (error instanceof sdk.APIError && error.status !== undefined) {
    const body = error.error as { error?: { message?: unknown }; message?: unknown } | undefined;
    return {
      status: error.status,
      providerMessage: body?.error?.message ?? body?.message,
      sdkMessage: error.message,
    };
  }
  return error instanceof sdk.APIConnectionError ? 'connection' : undefined;
}

interface Structured {
  tool: Tool;
}

function paramsOf(request: ModelRequest): { params: MessageCreateParamsBase; structured?: Structured } {
  const messages: MessageParam[] = request.messages.map((message) => ({
    role: message.role,
    content: message.content,
  }));
  const params: MessageCreateParamsBase = {
    model: request.model,
    max_tokens: request.maxTokens ?? defaultMaxTokens,
    messages,
  };
  if (request.systemPrompt) params.system = request.systemPrompt;
  if (request.temperature !== undefined && claudeAcceptsTemperature(request.model)) {
    // The SDK no longer types the deprecated parameter; older models still take it.
    (params as unknown as Record<string, unknown>).temperature = request.temperature;
  }
  if (!request.responseFormat) return { params };
  const format = structuredFormatOf(request.responseFormat);
  const tool: Tool = {
    name: format.name,
    description: format.description ?? 'Give your answer in this structure.',
    input_schema: format.schema as Tool['input_schema'],
  };
  params.tools = [tool];
  params.tool_choice = { type: 'tool', name: tool.name };
  return { params, structured: { tool } };
}

function refused(request: ModelRequest, stopReason: string | null | undefined): void {
  if (stopReason === 'refusal') throw new ModelCallError(request.provider, 'The model refused to answer');
}

function structuredResponse(input: unknown, model: string, tokens: ModelResponse['tokens']): ModelResponse {
  return { content: JSON.stringify(input), model, tokens, structured: input };
}

export function createAnthropicProvider(options: AnthropicProviderOptions = {}): ModelProvider {
  const clients = new ClientCache<Anthropic>();

  function clientFor(Sdk: typeof Anthropic, apiKey: string, baseUrl: string | undefined): Anthropic {
    return clients.get(`${apiKey}\u0000${baseUrl ?? ''}`, () => {
      return new Sdk({
        apiKey,
        // Explicit, so that ANTHROPIC_BASE_URL of the process never applies.
        baseURL: baseUrl ?? options.defaultBaseUrl ?? anthropicDefaultBaseUrl,
        maxRetries: options.maxRetries ?? 2,
        ...(baseUrl && options.fetch ? { fetch: options.fetch } : {}),
      });
    });
  }

  async function once(
    client: Anthropic,
    request: ModelRequest,
    params: MessageCreateParamsBase,
    structured: Structured | undefined,
    requestOptions: { signal: AbortSignal; timeout: number },
  ): Promise<ModelResponse> {
    const message = await client.messages.create({ ...params, stream: false }, requestOptions);
    refused(request, message.stop_reason);
    const tokens = tokenCounts(message.usage.input_tokens, message.usage.output_tokens);
    const model = message.model || request.model;
    const text = message.content
      .filter((block) => block.type === 'text')
      .map((block) => block.text)
      .join('');
    if (structured) {
      const toolUse = message.content.find(
        (block) => block.type === 'tool_use' && block.name === structured.tool.name,
      );
      if (toolUse && toolUse.type === 'tool_use') return structuredResponse(toolUse.input, model, tokens);
      return structuredResponse(parseOrFail(request, text), model, tokens);
    }
    return { content: text, model, tokens };
  }

  async function streamed(
    client: Anthropic,
    request: ModelRequest,
    params: MessageCreateParamsBase,
    structured: Structured | undefined,
    requestOptions: { signal: AbortSignal; timeout: number },
    onChunk: (text: string) => void,
  ): Promise<ModelResponse> {
    const stream = await client.messages.create({ ...params, stream: true }, requestOptions);
    let model = request.model;
    let inputTokens = 0;
    let outputTokens = 0;
    let text = '';
    let toolJson = '';
    let stopReason: string | null | undefined;
    const toolBlocks = new Set<number>();
    for await (const event of stream) {
      switch (event.type) {
        case 'message_start':
          model = event.message.model || model;
          inputTokens = event.message.usage.input_tokens ?? 0;
          outputTokens = event.message.usage.output_tokens ?? 0;
          break;
        case 'content_block_start':
          if (event.content_block.type === 'tool_use') toolBlocks.add(event.index);
          break;
        case 'content_block_delta':
          if (event.delta.type === 'text_delta') {
            text += event.delta.text;
            onChunk(event.delta.text);
          } else if (event.delta.type === 'input_json_delta' && toolBlocks.has(event.index)) {
            // The structured answer arrives as the tool's input JSON, piece by piece.
            toolJson += event.delta.partial_json;
            if (event.delta.partial_json) onChunk(event.delta.partial_json);
          }
          break;
        case 'message_delta':
          // Cumulative counts; input tokens appear here when the server revises them.
          outputTokens = event.usage.output_tokens ?? outputTokens;
          if (typeof event.usage.input_tokens === 'number') inputTokens = event.usage.input_tokens;
          stopReason = event.delta.stop_reason ?? stopReason;
          break;
        default:
          break;
      }
    }
    refused(request, stopReason);
    const tokens = tokenCounts(inputTokens, outputTokens);
    if (structured) {
      const input = toolJson ? parseOrFail(request, toolJson) : parseOrFail(request, text);
      return structuredResponse(input, model, tokens);
    }
    return { content: text, model, tokens };
  }

  return {
    async complete(request, signal) {
      const apiKey = apiKeyFor(request.provider, request, options.defaultApiKey);
      const client = clientFor(await loadSdk(), apiKey, request.baseUrl);
      const { params, structured } = paramsOf(request);
      const requestOptions = { signal, timeout: request.timeoutInMs };
      try {
        return request.onChunk
          ? await streamed(client, request, params, structured, requestOptions, request.onChunk)
          : await once(client, request, params, structured, requestOptions);
      } catch (error) {
        throw describeSdkError(
          error,
          request,
          apiKey,
          label(Boolean(request.baseUrl ?? options.defaultBaseUrl)),
          errorKind(error),
        );
      }
    },
  };
}

function parseOrFail(request: ModelRequest, text: string): unknown {
  try {
    return parseStructuredAnswer(text);
  } catch (error) {
    throw new ModelCallError(request.provider, (error as Error).message);
  }
}
