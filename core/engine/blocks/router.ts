import { parseStructuredAnswer } from '../../llm/response-format';
import { type ModelCallRequest, modelTimeoutInMs, usageOfCall } from '../../llm/usage';
import type { JsonSchema } from '../types';
import {
  modelGatewayOf,
  optionalNumber,
  optionalText,
  promptText,
  requiredText,
  resolveModelInputs,
} from './agent';
import { BlockError, type BlockDefinition } from './types';

interface Route {
  id: string;
  description: string;
}

function routesOf(value: unknown): Route[] {
  if (!Array.isArray(value) || value.length === 0) throw new BlockError('The router block has no routes');
  const seen = new Set<string>();
  return value.map((entry, index) => {
    const id =
      entry !== null && typeof entry === 'object' ? (entry as Record<string, unknown>).id : undefined;
    if (typeof id !== 'string' || id.trim() === '') throw new BlockError(`Route ${index + 1} has no id`);
    if (seen.has(id)) throw new BlockError(`Route id "${id}" is used twice`);
    seen.add(id);
    const description = (entry as Record<string, unknown>).description;
    return { id, description: typeof description === 'string' ? description : promptText(description) };
  });
}

function systemPromptOf(routes: Route[]): string {
  const list = routes
    .map((route) => `- ${JSON.stringify(route.id)}: ${route.description || '(no description)'}`)
    .join('\n');
  return [
    'You are a router. Read the request and choose the one route below that fits it best.',
    'Answer with the id of that route, exactly as written, and a short reasoning.',
    '',
    'Routes (id: description):',
    list,
  ].join('\n');
}

function answerSchema(routes: Route[]): JsonSchema {
  return {
    type: 'object',
    properties: {
      route: {
        type: 'string',
        enum: routes.map((route) => route.id),
        description: 'The id of the chosen route',
      },
      reasoning: { type: 'string', description: 'Why this route fits the request, in one or two sentences' },
    },
    required: ['route', 'reasoning'],
    additionalProperties: false,
  };
}

/** The route and reasoning the model gave, from its structured answer or, failing that, its text. */
function answerOf(structured: unknown, content: string): { route: unknown; reasoning: unknown } {
  let answer = structured;
  if (answer === undefined) {
    try {
      answer = parseStructuredAnswer(content);
    } catch {
      answer = { route: content.trim(), reasoning: '' };
    }
  }
  if (answer !== null && typeof answer === 'object') {
    const { route, reasoning } = answer as Record<string, unknown>;
    return { route, reasoning };
  }
  return { route: answer, reasoning: '' };
}

function matchRoute(routes: Route[], answer: unknown): Route | undefined {
  if (typeof answer !== 'string') return undefined;
  const exact = routes.find((route) => route.id === answer);
  if (exact) return exact;
  const loose = answer
    .trim()
    .replace(/^["'`]|["'`]$/g, '')
    .toLowerCase();
  return routes.find((route) => route.id.toLowerCase() === loose);
}

/**
 * Asks a model which of its routes fits the prompt (a structured answer whose `route` is one of the
 * route ids) and follows the edge of that route, `router-<id>`; every other route is pruned.
 */
export const routerBlock: BlockDefinition = {
  type: 'router',
  resolveInputs: (block, resolve) => resolveModelInputs(block, resolve),
  async execute(inputs, { deps, signal }) {
    const models = modelGatewayOf(deps, 'router');
    const provider = requiredText(inputs.provider, 'provider', 'router');
    const model = requiredText(inputs.model, 'model', 'router');
    const routes = routesOf(inputs.routes);
    const prompt = promptText(inputs.prompt);
    if (prompt.trim() === '') throw new BlockError('The router block has no prompt');
    const temperature = optionalNumber(inputs.temperature, 'temperature');
    const maxTokens = optionalNumber(inputs.maxTokens, 'maxTokens');
    const apiKey = optionalText(inputs.apiKey);
    const baseUrl = optionalText(inputs.baseUrl);
    const region = optionalText(inputs.region);

    const request: ModelCallRequest = {
      provider,
      model,
      systemPrompt: systemPromptOf(routes),
      messages: [{ role: 'user', content: prompt }],
      responseFormat: answerSchema(routes),
      ...(temperature !== undefined ? { temperature } : {}),
      ...(maxTokens !== undefined ? { maxTokens } : {}),
      ...(apiKey ? { apiKey } : {}),
      ...(baseUrl ? { baseUrl } : {}),
      ...(region ? { region } : {}),
      timeoutInMs: modelTimeoutInMs(inputs.timeoutMs),
      ...(signal ? { signal } : {}),
    };
    const response = await models.complete(request);

    const answer = answerOf(response.structured, response.content);
    const route = matchRoute(routes, answer.route);
    if (!route) {
      const named =
        typeof answer.route === 'string' ? `"${answer.route}"` : JSON.stringify(answer.route ?? null);
      throw new BlockError(
        `The router's model chose no known route (it answered ${named}); routes are ${routes.map((r) => `"${r.id}"`).join(', ')}`,
      );
    }
    const { usage, cost } = usageOfCall(model, response.tokens, deps.pricing, response.model);
    return {
      output: {
        selectedRoute: route.id,
        reasoning: typeof answer.reasoning === 'string' ? answer.reasoning : promptText(answer.reasoning),
        model,
        tokens: { ...response.tokens },
        cost,
      },
      selectedHandles: [`router-${route.id}`],
      usage,
    };
  },
};
