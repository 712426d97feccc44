/** What the provider modules share: their contract with the gateway, errors, secrets, client caches. */
import type { ModelRequest, ModelResponse, TokenCounts } from '../../core/engine/types';
import { normalizeModelId } from '../../core/llm/pricing';

/** One provider behind the gateway. The gateway has already checked the request and owns the time limit. */
export interface ModelProvider {
  complete(request: ModelRequest, signal: AbortSignal): Promise<ModelResponse>;
}

/** A model call that failed; the message is meant for the workflow's author and holds no secret. */
export class ModelCallError extends Error {
  readonly provider: string;
  /** HTTP status the provider answered with, when it answered. */
  readonly status?: number;

  constructor(provider: string, message: string, status?: number) {
    super(message);
    this.name = 'ModelCallError';
    this.provider = provider;
    if (status !== undefined) this.status = status;
  }
}

export function timeoutMessage(timeoutInMs: number): string {
  return `Model call timed out after ${timeoutInMs} ms`;
}

/** Key-shaped text that providers echo back (OpenAI masks the middle of a wrong key, not its ends). */
const keyShapes = [/\bsk-[A-Za-z0-9_*.-]{4,}/g, /\b(Bearer)\s+[A-Za-z0-9_*.~+/=-]+/gi];

/** The text with these secrets, and anything shaped like an API key, replaced. */
export function redact(text: string, secrets: ReadonlyArray<string | undefined>): string {
  let result = text;
  for (const secret of secrets) {
    if (secret && secret.length >= 4) result = result.split(secret).join('[redacted]');
  }
  result = result.replace(keyShapes[0], '[redacted]');
  return result.replace(keyShapes[1], '$1 [redacted]');
}

/** The innermost message of an error and its causes (`fetch failed` says less than `ECONNREFUSED`). */
export function rootMessage(error: unknown): string {
  let current: unknown = error;
  let message = error instanceof Error ? error.message : String(error);
  for (let depth = 0; depth < 5 && current instanceof Error && current.cause !== undefined; depth += 1) {
    current = current.cause;
    if (current instanceof Error && current.message) message = current.message;
    else if (typeof current === 'string') message = current;
  }
  return message;
}

/** Token counts from a provider's usage report; missing numbers count 0 and the total is derived if absent. */
export function tokenCounts(prompt: unknown, completion: unknown, total?: unknown): TokenCounts {
  const count = (value: unknown) =>
    typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
  const promptTokens = count(prompt);
  const completionTokens = count(completion);
  const totalTokens = count(total);
  return {
    prompt: promptTokens,
    completion: completionTokens,
    total: totalTokens > 0 ? totalTokens : promptTokens + completionTokens,
  };
}

/** Maximum tokens when a block sets none and the provider insists on a number (Anthropic, Bedrock Claude). */
export const defaultMaxTokens = 4096;

/**
 * Whether a Claude model accepts `temperature`. Anthropic deprecated sampling parameters for models
 * after the 4.6 generation (Opus 4.7 and later, Sonnet 5, Fable 5), which answer 400 when it is
 * present; every model accepts its absence. So it is sent only to the generations known to take it.
 */
export function claudeAcceptsTemperature(model: string): boolean {
  const id = normalizeModelId(model);
  if (id.startsWith('claude-3') || id.startsWith('claude-2') || id.startsWith('claude-instant')) return true;
  const four = /^claude-(?:opus|sonnet|haiku)-4(?:-(\d{1,2}))?(?=$|[-@:])/.exec(id);
  if (!four) return false;
  return Number(four[1] ?? 0) <= 6;
}

/** A small least-recently-used map for SDK clients (one per provider, key and base URL). */
export class ClientCache<T> {
  private readonly entries = new Map<string, T>();

  constructor(private readonly capacity = 64) {}

  get(key: string, create: () => T): T {
    const existing = this.entries.get(key);
    if (existing !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, existing);
      return existing;
    }
    const created = create();
    this.entries.set(key, created);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as string);
    return created;
  }

  get size(): number {
    return this.entries.size;
  }
}

/** The API key a call uses: the block's own, else the deployment's default for the provider's own endpoint. */
export function apiKeyFor(provider: string, request: ModelRequest, defaultKey: string | undefined): string {
  if (request.apiKey) return request.apiKey;
  // A URL the user chose never receives the deployment's key.
  if (!request.baseUrl && defaultKey) return defaultKey;
  throw new ModelCallError(
    provider,
    request.baseUrl
      ? `No API key for provider "${provider}" at a custom baseUrl: set apiKey on the block (a server that needs none accepts any value)`
      : `No API key for provider "${provider}": set apiKey on the block`,
  );
}

/** Options of the providers that use an HTTP SDK (OpenAI, Anthropic). */
export interface SdkProviderOptions {
  /** Used when a request carries no `apiKey` and no `baseUrl`. */
  defaultApiKey?: string;
  /**
   * The deployment's endpoint for the provider (`OPENAI_BASE_URL`, `ANTHROPIC_BASE_URL`): used when
   * a request sets no `baseUrl` of its own. The operator chose it, so it is reached with the global
   * fetch (a company gateway may sit on a private network) and may receive `defaultApiKey`.
   */
  defaultBaseUrl?: string;
  /** Used by clients of a custom `baseUrl` (a user-controlled URL), e.g. the guarded client. */
  fetch?: typeof globalThis.fetch;
  /** SDK retries of connection errors, 408, 409, 429 and 5xx; default 2. */
  maxRetries?: number;
}

/**
 * How one SDK's errors read: an HTTP answer with its status and the provider's own message (when
 * its body has one), or no connection at all.
 */
export type SdkErrorKind =
  | { status: number; providerMessage: unknown; sdkMessage: string }
  | 'connection'
  | undefined;

/** A provider failure as a person should read it, with the API key never in it. */
export function describeSdkError(
  error: unknown,
  request: { provider: string },
  apiKey: string,
  label: string,
  kind: SdkErrorKind,
): ModelCallError {
  const secrets = [apiKey];
  if (kind === 'connection') {
    return new ModelCallError(
      request.provider,
      redact(`Could not reach ${label}: ${rootMessage(error)}`, secrets),
    );
  }
  if (kind) {
    const detail =
      typeof kind.providerMessage === 'string' && kind.providerMessage !== ''
        ? kind.providerMessage
        : kind.sdkMessage.replace(/^\d{3}\s*/, '') || 'no details';
    return new ModelCallError(
      request.provider,
      redact(`${label} error ${kind.status}: ${detail}`, secrets),
      kind.status,
    );
  }
  if (error instanceof ModelCallError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new ModelCallError(request.provider, redact(`${label} call failed: ${message}`, secrets));
}
