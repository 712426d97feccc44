/**
 * The `ModelGateway` port: one entry to every model provider. It picks the provider module, bounds
 * the call by `timeoutInMs` (AbortSignal.timeout; the SDK request is aborted too), and turns every
 * failure into a `ModelCallError` whose message names the provider's status and message, never a key.
 *
 * Model calls go to the providers' endpoints directly, or to the deployment's endpoint of a provider
 * (`baseUrls`, ./endpoints.ts). A custom `baseUrl` of a block is a user-controlled URL:
 * pass `fetch` (e.g. one that goes through the guarded outbound client) and the OpenAI and Anthropic
 * clients of custom base URLs use it. The deployment's default API keys are never sent to a custom
 * `baseUrl`. Bedrock ignores `baseUrl` and signs with the credentials of its default chain.
 */
import type { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import type { ModelGateway, ModelRequest, ModelResponse } from '../../core/engine/types';
import type { ModelCallRequest } from '../../core/llm/usage';
import { createAnthropicProvider } from './anthropic';
import { createBedrockProvider } from './bedrock';
import { createOpenAiProvider } from './openai';
import { ModelCallError, type ModelProvider, redact, timeoutMessage } from './provider-contract';

export { ModelCallError } from './provider-contract';
export type { ModelProvider } from './provider-contract';

export const knownModelProviders: readonly string[] = ['openai', 'anthropic', 'bedrock'];

export interface ModelGatewayOptions {
  /** Used by the OpenAI and Anthropic clients of a custom `baseUrl`; default: the global fetch. */
  fetch?: typeof globalThis.fetch;
  /** Keys for the providers' own endpoints when a block sets no `apiKey` (e.g. from the environment). */
  apiKeys?: { openai?: string; anthropic?: string };
  /**
   * The deployment's endpoint per provider (`OPENAI_BASE_URL`, `ANTHROPIC_BASE_URL`): a company's
   * model gateway or an OpenAI-compatible server. A block's own `baseUrl` still wins.
   */
  baseUrls?: { openai?: string; anthropic?: string };
  /** SDK retries of connection errors, 429 and 5xx inside the time limit; default 2. */
  maxRetries?: number;
  bedrock?: {
    /** The client for a region; default: `new BedrockRuntimeClient({region})` with the default credential chain. */
    clientFor?: (region: string) => BedrockRuntimeClient;
    /** Region when a request names none; default `AWS_REGION`, then `AWS_DEFAULT_REGION`. */
    region?: string;
  };
  /** Environment read for Bedrock's region; default: this process's `AWS_REGION`, `AWS_DEFAULT_REGION`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Providers added to or replacing the built-in ones, by name. */
  providers?: Readonly<Record<string, ModelProvider>>;
}

function validate(request: ModelRequest, provider: string): void {
  const fail = (message: string) => {
    throw new ModelCallError(provider, message);
  };
  if (typeof request.model !== 'string' || request.model.trim() === '') fail('No model is set');
  if (!Array.isArray(request.messages) || request.messages.length === 0)
    fail('The model call has no message');
  if (!Number.isFinite(request.timeoutInMs) || request.timeoutInMs <= 0) {
    fail(`timeoutInMs must be a positive number of milliseconds, not ${request.timeoutInMs}`);
  }
  if (request.baseUrl !== undefined && provider !== 'bedrock') {
    let url: URL | undefined;
    try {
      url = new URL(request.baseUrl);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
      fail('baseUrl must be an http(s) URL');
  }
}

/** The provider's promise, or the signal's reason once it aborts (for a provider that ignores the signal). */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) {
      onAbort();
      return;
    }
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

export function createModelGateway(options: ModelGatewayOptions = {}): ModelGateway {
  const providers: Record<string, ModelProvider> = {
    openai: createOpenAiProvider({
      defaultApiKey: options.apiKeys?.openai,
      defaultBaseUrl: options.baseUrls?.openai,
      fetch: options.fetch,
      maxRetries: options.maxRetries,
    }),
    anthropic: createAnthropicProvider({
      defaultApiKey: options.apiKeys?.anthropic,
      defaultBaseUrl: options.baseUrls?.anthropic,
      fetch: options.fetch,
      maxRetries: options.maxRetries,
    }),
    bedrock: createBedrockProvider({
      clientFor: options.bedrock?.clientFor,
      region: options.bedrock?.region,
      env: options.env,
    }),
    ...options.providers,
  };

  return {
    async complete(request: ModelRequest): Promise<ModelResponse> {
      const name = typeof request.provider === 'string' ? request.provider.trim().toLowerCase() : '';
      const provider = Object.hasOwn(providers, name) ? providers[name] : undefined;
      if (!provider) {
        throw new ModelCallError(
          String(request.provider),
          `Unknown model provider "${String(request.provider)}": known providers are ${Object.keys(providers).join(', ')}`,
        );
      }
      validate(request, name);
      const timeout = AbortSignal.timeout(request.timeoutInMs);
      const runSignal = (request as ModelCallRequest).signal;
      const signal = runSignal ? AbortSignal.any([timeout, runSignal]) : timeout;
      let settled = false;
      const { onChunk, signal: _omitted, ...rest } = request as ModelCallRequest;
      const call: ModelRequest = {
        ...rest,
        provider: name,
        // No chunk after the call has ended (timed out or failed).
        ...(onChunk ? { onChunk: (text: string) => !settled && onChunk(text) } : {}),
      };
      try {
        return await abortable(provider.complete(call, signal), signal);
      } catch (error) {
        if (timeout.aborted) throw new ModelCallError(name, timeoutMessage(request.timeoutInMs));
        if (runSignal?.aborted)
          throw new ModelCallError(name, 'Model call cancelled: the run no longer needs it');
        if (error instanceof ModelCallError) throw error;
        const message = error instanceof Error ? error.message : String(error);
        throw new ModelCallError(name, redact(`Model call failed: ${message}`, [request.apiKey]));
      } finally {
        settled = true;
      }
    },
  };
}
