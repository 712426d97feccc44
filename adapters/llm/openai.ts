/**
 * OpenAI and any OpenAI-compatible server (`baseUrl`), through the official `openai` SDK and its
 * Chat Completions API. Streaming asks for a final usage chunk (`stream_options.include_usage`);
 * a structured answer uses `response_format: {type: 'json_schema', json_schema: {strict}}`.
 */
import type OpenAI from 'openai';
import type {
  ChatCompletionCreateParamsBase,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions/completions';
import type { CompletionUsage } from 'openai/resources/completions';
import type { ModelRequest, ModelResponse } from '../../core/engine/types';
import {
  closedObjectSchema,
  parseStructuredAnswer,
  structuredFormatOf,
} from '../../core/llm/response-format';
import {
  apiKeyFor,
  ClientCache,
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
let sdk: typeof OpenAI | undefined;

async function loadSdk(): Promise<typeof OpenAI> {
  sdk ??= (await import('openai')).default;
  return sdk;
}

export const openAiDefaultBaseUrl = 'https://api.openai.com/v1';

export type OpenAiProviderOptions = SdkProviderOptions;

function label(compatible: boolean): string {
  return compatible ? 'OpenAI-compatible server' : 'OpenAI';
}

function errorKind(error: unknown): SdkErrorKind {
  if (!sdk) return undefined;
  if (error instanceof sdk.APIError && error.status !== undefined) {
    const body = error.error as { message?: unknown } | undefined;
    return { status: error.status, providerMessage: body?.message, sdkMessage: error.message };
  }
  return error instanceof sdk.APIConnectionError ? 'connection' : undefined;
}

function messagesOf(request: ModelRequest): ChatCompletionMessageParam[] {
  const messages: ChatCompletionMessageParam[] = [];
  if (request.systemPrompt) messages.push({ role: 'system', content: request.systemPrompt });
  for (const message of request.messages) messages.push({ role: message.role, content: message.content });
  return messages;
}

/**
 * The Chat Completions body of a request, without the streaming members; `compatible`: the call
 * goes to another endpoint than OpenAI's own (the block's `baseUrl` or the deployment's).
 */
export function chatCompletionParams(
  request: ModelRequest,
  compatible = Boolean(request.baseUrl),
): ChatCompletionCreateParamsBase {
  const params: ChatCompletionCreateParamsBase = { model: request.model, messages: messagesOf(request) };
  if (request.temperature !== undefined) params.temperature = request.temperature;
  if (request.maxTokens !== undefined) {
    // OpenAI's own endpoint takes `max_completion_tokens` (reasoning models refuse `max_tokens`);
    // compatible servers widely know only `max_tokens`.
    if (compatible) params.max_tokens = request.maxTokens;
    else params.max_completion_tokens = request.maxTokens;
  }
  if (request.responseFormat) {
    const format = structuredFormatOf(request.responseFormat);
    params.response_format = {
      type: 'json_schema',
      json_schema: {
        name: format.name,
        ...(format.description ? { description: format.description } : {}),
        schema: format.strict ? closedObjectSchema(format.schema) : format.schema,
        strict: format.strict,
      },
    };
  }
  return params;
}

function responseOf(
  request: ModelRequest,
  content: string,
  model: string | undefined,
  usage: CompletionUsage | null | undefined,
  finishReason: string | null | undefined,
): ModelResponse {
  const response: ModelResponse = {
    content,
    model: model || request.model,
    tokens: tokenCounts(usage?.prompt_tokens, usage?.completion_tokens, usage?.total_tokens),
  };
  if (request.responseFormat) {
    if (finishReason === 'length') {
      throw new ModelCallError(
        request.provider,
        'The structured answer was cut off at the token limit: raise maxTokens',
      );
    }
    try {
      response.structured = parseStructuredAnswer(content);
    } catch (error) {
      throw new ModelCallError(request.provider, (error as Error).message);
    }
  }
  return response;
}

export function createOpenAiProvider(options: OpenAiProviderOptions = {}): ModelProvider {
  const clients = new ClientCache<OpenAI>();

  function clientFor(Sdk: typeof OpenAI, apiKey: string, baseUrl: string | undefined): OpenAI {
    return clients.get(`${apiKey}\u0000${baseUrl ?? ''}`, () => {
      return new Sdk({
        apiKey,
        // Explicit, so that OPENAI_BASE_URL, OPENAI_ORG_ID and OPENAI_PROJECT_ID of the process never apply.
        baseURL: baseUrl ?? options.defaultBaseUrl ?? openAiDefaultBaseUrl,
        organization: null,
        project: null,
        maxRetries: options.maxRetries ?? 2,
        ...(baseUrl && options.fetch ? { fetch: options.fetch } : {}),
      });
    });
  }

  return {
    async complete(request, signal) {
      const apiKey = apiKeyFor(request.provider, request, options.defaultApiKey);
      const client = clientFor(await loadSdk(), apiKey, request.baseUrl);
      const requestOptions = { signal, timeout: request.timeoutInMs };
      const compatible = Boolean(request.baseUrl ?? options.defaultBaseUrl);
      const params = chatCompletionParams(request, compatible);
      try {
        if (!request.onChunk) {
          const completion = await client.chat.completions.create(
            { ...params, stream: false },
            requestOptions,
          );
          const choice = completion.choices[0];
          if (choice?.message.refusal) {
            throw new ModelCallError(
              request.provider,
              `The model refused to answer: ${choice.message.refusal}`,
            );
          }
          return responseOf(
            request,
            choice?.message.content ?? '',
            completion.model,
            completion.usage,
            choice?.finish_reason,
          );
        }
        const stream = await client.chat.completions.create(
          { ...params, stream: true, stream_options: { include_usage: true } },
          requestOptions,
        );
        let content = '';
        let refusal = '';
        let model: string | undefined;
        let usage: CompletionUsage | undefined;
        let finishReason: string | null | undefined;
        for await (const chunk of stream) {
          model ||= chunk.model;
          if (chunk.usage) usage = chunk.usage;
          const choice = chunk.choices[0];
          if (!choice) continue;
          if (choice.finish_reason) finishReason = choice.finish_reason;
          if (choice.delta.refusal) refusal += choice.delta.refusal;
          const text = choice.delta.content;
          if (text) {
            content += text;
            request.onChunk(text);
          }
        }
        if (refusal) throw new ModelCallError(request.provider, `The model refused to answer: ${refusal}`);
        return responseOf(request, content, model, usage, finishReason);
      } catch (error) {
        throw describeSdkError(error, request, apiKey, label(compatible), errorKind(error));
      }
    },
  };
}
