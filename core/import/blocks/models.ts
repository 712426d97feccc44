/**
 * Sim's model blocks: `agent`, the legacy `router` (routes to the blocks it is connected to) and
 * `router_v2` (routes of its own). A Sim model id names its provider by its form; the providers
 * here are OpenAI (and OpenAI-compatible endpoints), Anthropic and Bedrock.
 */
import { type BlockMapContext, type BlockMapping, warnIfEmptied } from '../mapping';
import { parseJsonWithReferences } from '../references';
import { arrayValue, isRecord, numberValue, subText, subValue } from '../sim-values';

/** Our provider and model for a Sim model id, or undefined when it has no counterpart. */
export function providerOfModel(model: string): { provider: string; model: string } | undefined {
  if (model.startsWith('bedrock/')) return { provider: 'bedrock', model: model.slice('bedrock/'.length) };
  if (/^(gpt|o\d|chatgpt)/.test(model)) return { provider: 'openai', model };
  if (/^claude/.test(model)) return { provider: 'anthropic', model };
  return undefined;
}

/** A Sim model id for our provider and model. */
export function simModelOf(provider: string, model: string): string {
  return provider === 'bedrock' ? `bedrock/${model}` : model;
}

function modelConfig(context: BlockMapContext): Record<string, unknown> {
  const model = subText(context.sim, 'model') ?? '';
  const mapped = providerOfModel(model);
  if (!mapped) {
    context.refuse(
      model === ''
        ? 'it names no model'
        : `its model "${model}" is served by a provider this service does not call (OpenAI, Anthropic and Bedrock models are supported)`,
    );
  }
  const config: Record<string, unknown> = { provider: mapped?.provider ?? '', model: mapped?.model ?? model };
  const apiKey = subText(context.sim, 'apiKey');
  if (apiKey !== undefined) config.apiKey = apiKey;
  else {
    warnIfEmptied(
      context,
      'apiKey',
      'The API key',
      'put the key in the workspace environment and write {{NAME}} in apiKey',
    );
  }
  const temperature = numberValue(subValue(context.sim, 'temperature'));
  if (temperature !== undefined) config.temperature = temperature;
  return config;
}

interface Message {
  role: string;
  content: string;
}

function messagesOf(context: BlockMapContext): Message[] | undefined {
  const rows = arrayValue(subValue(context.sim, 'messages'));
  if (!rows) return undefined;
  return rows.filter(isRecord).map((row) => ({
    role: typeof row.role === 'string' ? row.role : 'user',
    content: typeof row.content === 'string' ? row.content : JSON.stringify(row.content ?? ''),
  }));
}

/** Our agent takes a system prompt and one user prompt: Sim's messages are read into those. */
function promptsOf(context: BlockMapContext): { systemPrompt?: string; userPrompt: string } {
  const messages = messagesOf(context);
  if (!messages) {
    const systemPrompt = subText(context.sim, 'systemPrompt');
    return {
      ...(systemPrompt !== undefined ? { systemPrompt } : {}),
      userPrompt: subText(context.sim, 'userPrompt') ?? subText(context.sim, 'context') ?? '',
    };
  }
  const system = messages.filter((message) => message.role === 'system' && message.content.trim() !== '');
  const user = messages.filter((message) => message.role === 'user' && message.content.trim() !== '');
  if (messages.some((message) => message.role === 'assistant' && message.content.trim() !== '')) {
    context.refuse(
      'its messages hold assistant turns; an agent here sends one system prompt and one user prompt',
    );
  }
  if (user.length > 1) {
    context.warn(`its ${user.length} user messages are sent as one, separated by blank lines`);
  }
  const systemPrompt = system.map((message) => message.content).join('\n\n');
  return {
    ...(systemPrompt !== '' ? { systemPrompt } : {}),
    userPrompt: user.map((message) => message.content).join('\n\n'),
  };
}

/** Settings of Sim's agent that change what it does and have no counterpart here. */
function refuseAgentExtras(context: BlockMapContext): void {
  const tools = arrayValue(subValue(context.sim, 'tools'));
  if (tools && tools.length > 0)
    context.refuse(`it gives the model ${tools.length} tool(s); agents here call no tools`);
  const skills = arrayValue(subValue(context.sim, 'skills'));
  if (skills && skills.length > 0) context.refuse('it gives the model skills; agents here have none');
  const memory = subText(context.sim, 'memoryType');
  if (memory !== undefined && memory !== 'none')
    context.refuse(`it keeps conversation memory (${memory}); agents here have none`);
  for (const id of ['files', 'attachmentFiles']) {
    const files = subValue(context.sim, id);
    if (files !== undefined && !(Array.isArray(files) && files.length === 0)) {
      context.refuse('it sends files to the model; agents here send text only');
    }
  }
  for (const id of ['reasoningEffort', 'verbosity', 'thinkingLevel']) {
    const value = subText(context.sim, id);
    if (value !== undefined && value !== 'auto' && value !== 'none') {
      context.warn(`its ${id} "${value}" is not sent: agents here use the model's default`);
    }
  }
}

export const agentMapping: BlockMapping = {
  type: 'agent',
  config(context) {
    refuseAgentExtras(context);
    const config = { ...modelConfig(context), ...promptsOf(context) };
    if (config.userPrompt === '') context.refuse('it has no user message');
    const maxTokens = numberValue(subValue(context.sim, 'maxTokens'));
    if (maxTokens !== undefined) Object.assign(config, { maxTokens });
    const format = subValue(context.sim, 'responseFormat');
    if (format !== undefined) {
      const parsed =
        typeof format === 'string' ? parseJsonWithReferences(format, context.blockNames) : format;
      if (!isRecord(parsed)) context.refuse('its responseFormat is not a JSON schema object');
      else Object.assign(config, { responseFormat: parsed });
    }
    return config;
  },
};

/** `router_v2`: its context is our prompt, its routes `[{id, title, value}]` ours `[{id, description}]`. */
export const routerV2Mapping: BlockMapping = {
  type: 'router',
  config(context) {
    const rows = arrayValue(subValue(context.sim, 'routes')) ?? [];
    const routes = rows.filter(isRecord).map((row) => ({
      id: String(row.id ?? ''),
      description:
        typeof row.value === 'string' && row.value.trim() !== '' ? row.value : String(row.title ?? ''),
    }));
    if (routes.length === 0) context.refuse('it has no routes');
    const prompt = subText(context.sim, 'context') ?? subText(context.sim, 'prompt') ?? '';
    return { ...modelConfig(context), prompt, routes };
  },
};

/**
 * The legacy `router` chooses among the blocks it is connected to: each becomes a route (its id the
 * target's id, described by the target's name), and each edge the handle of its route.
 */
export const legacyRouterMapping: BlockMapping = {
  type: 'router',
  config(context) {
    const blocks = context.state.blocks;
    const routes = context.outgoing
      .filter((edge) => (edge.sourceHandle ?? 'source').startsWith('source'))
      .map((edge) => ({ id: edge.target, description: blocks[edge.target]?.name ?? edge.target }));
    if (routes.length === 0) context.refuse('it is connected to no block to route to');
    return { ...modelConfig(context), prompt: subText(context.sim, 'prompt') ?? '', routes };
  },
  edgeHandle(edge, handle) {
    return handle === 'source' ? `router-${edge.target}` : handle;
  },
};
