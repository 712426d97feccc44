import { parseResponseFormat } from '../../llm/response-format';
import { type ModelCallRequest, modelTimeoutInMs, usageOfCall } from '../../llm/usage';
import type { Block, EngineDeps, ModelGateway } from '../types';
import { BlockError, type BlockDefinition, type ConfigResolver } from './types';

/** Config members a model block resolves and shows in its span; `apiKey` is resolved but never shown. */
const shownFields = [
  'provider',
  'model',
  'systemPrompt',
  'userPrompt',
  'prompt',
  'routes',
  'temperature',
  'maxTokens',
  'responseFormat',
  'baseUrl',
  'region',
  'timeoutMs',
] as const;

/**
 * Resolves a model block's config member by member. `apiKey` is put on the inputs as a
 * non-enumerable property: `execute` reads it, but the span (which shows the inputs as JSON) and
 * any copy of them do not carry it, even when the key was typed into the config as it is.
 */
export function resolveModelInputs(block: Block, resolve: ConfigResolver): Record<string, unknown> {
  const inputs: Record<string, unknown> = {};
  for (const field of shownFields) {
    if (block.config[field] !== undefined) inputs[field] = resolve.value(block.config[field]);
  }
  if (block.config.apiKey !== undefined) {
    Object.defineProperty(inputs, 'apiKey', { value: resolve.value(block.config.apiKey), enumerable: false });
  }
  return inputs;
}

export function modelGatewayOf(deps: EngineDeps, blockType: string): ModelGateway {
  if (!deps.models) {
    throw new BlockError(
      `No model provider is configured in this deployment, so ${blockType} blocks cannot run`,
    );
  }
  return deps.models;
}

/** Text for a prompt: strings as they are, other values (a referenced object) as JSON. */
export function promptText(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export function requiredText(value: unknown, name: string, blockType: string): string {
  const text = typeof value === 'string' ? value.trim() : '';
  if (text === '') throw new BlockError(`The ${blockType} block has no ${name}`);
  return text;
}

/** A number from config (numbers or numeric text); undefined when not set. */
export function optionalNumber(value: unknown, name: string): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const number = typeof value === 'string' ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isFinite(number))
    throw new BlockError(`${name} must be a number`);
  return number;
}

export function optionalText(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function maxTokensOf(value: unknown): number | undefined {
  const number = optionalNumber(value, 'maxTokens');
  if (number === undefined) return undefined;
  if (!Number.isInteger(number) || number <= 0)
    throw new BlockError('maxTokens must be a whole number above 0');
  return number;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Calls a model with a system prompt and a user prompt. Output: `content`, `model`, `tokens`,
 * `cost` {input, output, total} in USD and, with a `responseFormat`, the fields of the structured
 * answer beside them (the four standard fields win a clash). Text chunks are streamed to
 * `deps.onChunk` as they arrive.
 */
export const agentBlock: BlockDefinition = {
  type: 'agent',
  resolveInputs: (block, resolve) => resolveModelInputs(block, resolve),
  async execute(inputs, { block, deps, signal }) {
    const models = modelGatewayOf(deps, 'agent');
    const provider = requiredText(inputs.provider, 'provider', 'agent');
    const model = requiredText(inputs.model, 'model', 'agent');
    const userPrompt = promptText(inputs.userPrompt);
    if (userPrompt.trim() === '') throw new BlockError('The agent block has no userPrompt');
    let responseFormat: ReturnType<typeof parseResponseFormat>;
    try {
      responseFormat = parseResponseFormat(inputs.responseFormat);
    } catch (error) {
      throw new BlockError((error as Error).message);
    }
    const systemPrompt = promptText(inputs.systemPrompt);
    const temperature = optionalNumber(inputs.temperature, 'temperature');
    const maxTokens = maxTokensOf(inputs.maxTokens);
    const apiKey = optionalText(inputs.apiKey);
    const baseUrl = optionalText(inputs.baseUrl);
    const region = optionalText(inputs.region);
    const onChunk = deps.onChunk;

    const request: ModelCallRequest = {
      provider,
      model,
      ...(systemPrompt.trim() !== '' ? { systemPrompt } : {}),
      messages: [{ role: 'user', content: userPrompt }],
      ...(temperature !== undefined ? { temperature } : {}),
      ...(maxTokens !== undefined ? { maxTokens } : {}),
      ...(responseFormat ? { responseFormat } : {}),
      ...(apiKey ? { apiKey } : {}),
      ...(baseUrl ? { baseUrl } : {}),
      ...(region ? { region } : {}),
      timeoutInMs: modelTimeoutInMs(inputs.timeoutMs),
      ...(onChunk ? { onChunk: (chunk: string) => onChunk(block.id, chunk) } : {}),
      ...(signal ? { signal } : {}),
    };
    const response = await models.complete(request);

    const { usage, cost } = usageOfCall(model, response.tokens, deps.pricing, response.model);
    const fields = responseFormat && isPlainObject(response.structured) ? response.structured : {};
    return {
      output: { ...fields, content: response.content, model, tokens: { ...response.tokens }, cost },
      usage,
    };
  },
};
