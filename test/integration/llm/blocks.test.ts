/**
 * The agent and router blocks run by the engine (`runToCompletion`) with a real gateway whose SDK
 * clients talk to the loopback model servers.
 */
import { describe, expect, it } from 'vitest';
import { createModelGateway } from '../../../adapters/llm/gateway';
import { block, edge, graphOf } from '../../../core/engine/builders';
import { runToCompletion } from '../../../core/engine/run';
import type { EngineDeps, RunContext, TraceSpan, WorkflowGraph } from '../../../core/engine/types';
import { builtInPricingTable } from '../../../core/llm/pricing';
import { startAnthropicServer, startOpenAiServer, useModelServer } from '../../support/model-servers';

const openAiKey = 'sk-env-openai-key-0123456789';
const openai = useModelServer(startOpenAiServer);
const anthropic = useModelServer(startAnthropicServer);

const start = block('s', 'start', 'Start', { inputFormat: [{ name: 'topic', type: 'string' }] });

function contextOf(graph: WorkflowGraph, input: Record<string, unknown> = {}): RunContext {
  return {
    executionId: 'exec-models',
    workflowId: 'wf-models',
    workspaceId: 'ws-models',
    trigger: 'api',
    input,
    graph,
    environment: { OPENAI_KEY: openAiKey, ANTHROPIC_KEY: 'sk-ant-env-key-42' },
    startedAt: new Date().toISOString(),
  };
}

function depsOf(extra: Partial<EngineDeps> = {}): EngineDeps {
  return {
    codeRunner: {
      run: async () => {
        throw new Error('no code runs in these tests');
      },
    },
    now: () => Date.now(),
    models: createModelGateway({ maxRetries: 0 }),
    pricing: builtInPricingTable,
    ...extra,
  };
}

function spansOf(spans: TraceSpan[]): TraceSpan[] {
  return spans[0].children ?? [];
}

function agent(id: string, name: string, config: Record<string, unknown>) {
  return block(id, 'agent', name, {
    provider: 'openai',
    model: 'gpt-4o',
    apiKey: '{{OPENAI_KEY}}',
    baseUrl: openai().url,
    ...config,
  });
}

describe('agent block', () => {
  it('outputs content, model, tokens and cost, and adds the call to the run cost and the span', async () => {
    openai().reply({
      content: 'Bees are great.',
      model: 'gpt-4o-2024-08-06',
      usage: { input: 1000, output: 200 },
    });
    const graph = graphOf(
      [
        start,
        agent('a', 'Writer', {
          systemPrompt: 'You write one sentence.',
          userPrompt: 'Write about <start.topic>',
          temperature: 0.4,
          maxTokens: '120',
        }),
      ],
      [edge('s', 'a')],
    );

    const result = await runToCompletion(contextOf(graph, { topic: 'bees' }), depsOf());

    expect(result.success).toBe(true);
    const cost = { input: 0.0025, output: 0.002, total: 0.0045 };
    const tokens = { prompt: 1000, completion: 200, total: 1200 };
    expect(result.output).toEqual({ content: 'Bees are great.', model: 'gpt-4o', tokens, cost });
    expect(result.cost).toEqual({ total: 0.0045, tokens, models: { 'gpt-4o': { ...cost, tokens } } });
    const span = spansOf(result.traceSpans).find((s) => s.name === 'Writer')!;
    expect(span).toMatchObject({ type: 'agent', model: 'gpt-4o', tokens, cost: { ...cost, tokens } });

    const sent = openai().requests[0];
    expect(sent.headers.authorization).toBe(`Bearer ${openAiKey}`);
    expect(sent.body).toMatchObject({
      model: 'gpt-4o',
      messages: [
        { role: 'system', content: 'You write one sentence.' },
        { role: 'user', content: 'Write about bees' },
      ],
      temperature: 0.4,
      max_tokens: 120,
    });
    expect(JSON.stringify(result.traceSpans)).not.toContain(openAiKey);
  });

  it('never shows an API key typed into the config in the span', async () => {
    const graph = graphOf(
      [start, agent('a', 'Writer', { userPrompt: 'hi', apiKey: 'sk-literal-key-987654' })],
      [edge('s', 'a')],
    );

    const result = await runToCompletion(contextOf(graph), depsOf());

    expect(result.success).toBe(true);
    expect(openai().requests[0].headers.authorization).toBe('Bearer sk-literal-key-987654');
    const span = spansOf(result.traceSpans).find((s) => s.name === 'Writer')!;
    expect(span.input).toMatchObject({ provider: 'openai', model: 'gpt-4o', userPrompt: 'hi' });
    expect(JSON.stringify(result.traceSpans)).not.toContain('sk-literal-key-987654');
  });

  it('streams its chunks to deps.onChunk with the block id, in order', async () => {
    openai().reply({ chunks: ['One', ' two', ' three'], chunkDelayMs: 5 });
    const chunks: Array<[string, string]> = [];
    const graph = graphOf([start, agent('a', 'Writer', { userPrompt: 'count' })], [edge('s', 'a')]);

    const result = await runToCompletion(
      contextOf(graph),
      depsOf({ onChunk: (blockId, chunk) => chunks.push([blockId, chunk]) }),
    );

    expect(chunks).toEqual([
      ['a', 'One'],
      ['a', ' two'],
      ['a', ' three'],
    ]);
    expect(result.output).toMatchObject({
      content: 'One two three',
      tokens: { prompt: 11, completion: 7, total: 18 },
    });
  });

  it('puts the fields of a structured answer into its output (Anthropic, schema as JSON text)', async () => {
    anthropic().reply({
      structured: { title: 'Hello', tags: ['a', 'b'] },
      usage: { input: 100, output: 20 },
    });
    const graph = graphOf(
      [
        start,
        block('a', 'agent', 'Extractor', {
          provider: 'anthropic',
          model: 'claude-haiku-4-5',
          apiKey: '{{ANTHROPIC_KEY}}',
          baseUrl: anthropic().url,
          userPrompt: 'Extract from <start.topic>',
          responseFormat: JSON.stringify({
            type: 'object',
            properties: { title: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } },
            required: ['title', 'tags'],
          }),
        }),
        block('r', 'response', 'Reply', {
          data: { title: '<extractor.title>', firstTag: '<extractor.tags[0]>' },
        }),
      ],
      [edge('s', 'a'), edge('a', 'r')],
    );

    const result = await runToCompletion(contextOf(graph, { topic: 'a text' }), depsOf());

    expect(result.output).toEqual({ title: 'Hello', firstTag: 'a' });
    const agentSpan = spansOf(result.traceSpans).find((s) => s.name === 'Extractor')!;
    expect(agentSpan.output).toEqual({
      title: 'Hello',
      tags: ['a', 'b'],
      content: '{"title":"Hello","tags":["a","b"]}',
      model: 'claude-haiku-4-5',
      tokens: { prompt: 100, completion: 20, total: 120 },
      cost: { input: 0.0001, output: 0.0001, total: 0.0002 },
    });
    expect(anthropic().requests[0].body.tool_choice).toEqual({ type: 'tool', name: 'response' });
  });

  it('costs nothing for an unpriced model and still counts its tokens', async () => {
    openai().reply({ usage: { input: 50, output: 25 } });
    const graph = graphOf(
      [start, agent('a', 'Local', { model: 'llama3.1:8b', userPrompt: 'hi' })],
      [edge('s', 'a')],
    );

    const result = await runToCompletion(contextOf(graph), depsOf());

    const tokens = { prompt: 50, completion: 25, total: 75 };
    expect(result.output).toMatchObject({
      model: 'llama3.1:8b',
      tokens,
      cost: { input: 0, output: 0, total: 0 },
    });
    expect(result.cost).toEqual({
      total: 0,
      tokens,
      models: { 'llama3.1:8b': { input: 0, output: 0, total: 0, tokens } },
    });
  });

  it('fails the run clearly without a model gateway, on a provider error, and on a time-out', async () => {
    const graph = (config: Record<string, unknown>) =>
      graphOf([start, agent('a', 'Writer', { userPrompt: 'hi', ...config })], [edge('s', 'a')]);

    const noModels = await runToCompletion(contextOf(graph({})), depsOf({ models: undefined }));
    expect(noModels.success).toBe(false);
    expect(noModels.error).toContain(
      'No model provider is configured in this deployment, so agent blocks cannot run',
    );

    openai().reply({ status: 429, errorMessage: 'Rate limit reached for gpt-4o' });
    const limited = await runToCompletion(contextOf(graph({})), depsOf());
    expect(limited.error).toContain('OpenAI-compatible server error 429: Rate limit reached for gpt-4o');
    expect(limited.error).not.toContain(openAiKey);

    openai().reply({ delayMs: 1_000 });
    const slow = await runToCompletion(contextOf(graph({ timeoutMs: 150 })), depsOf());
    expect(slow.error).toContain('Model call timed out after 150 ms');

    const noPrompt = await runToCompletion(contextOf(graph({ userPrompt: '' })), depsOf());
    expect(noPrompt.error).toContain('The agent block has no userPrompt');

    const badSchema = await runToCompletion(contextOf(graph({ responseFormat: '{not json' })), depsOf());
    expect(badSchema.error).toContain('responseFormat is not valid JSON');
  });
});

describe('router block', () => {
  const routes = [
    { id: 'sales', description: 'Questions about buying or prices' },
    { id: 'support', description: 'Problems with an order already placed' },
  ];

  function routedGraph(routerConfig: Record<string, unknown> = {}): WorkflowGraph {
    return graphOf(
      [
        start,
        block('r', 'router', 'Triage', {
          provider: 'openai',
          model: 'gpt-4o-mini',
          apiKey: '{{OPENAI_KEY}}',
          baseUrl: openai().url,
          prompt: '<start.topic>',
          routes,
          ...routerConfig,
        }),
        agent('sa', 'Sales agent', { userPrompt: 'Sell: <start.topic>' }),
        block('sr', 'response', 'Sales reply', { data: { team: 'sales', text: '<salesagent.content>' } }),
        agent('su', 'Support agent', { userPrompt: 'Help: <start.topic>' }),
        block('ur', 'response', 'Support reply', {
          data: { team: 'support', text: '<supportagent.content>' },
        }),
      ],
      [
        edge('s', 'r'),
        edge('r', 'sa', 'router-sales'),
        edge('sa', 'sr'),
        edge('r', 'su', 'router-support'),
        edge('su', 'ur'),
      ],
    );
  }

  it('follows the route the model picks and prunes the other branch', async () => {
    openai().reply(
      {
        structured: { route: 'support', reasoning: 'The order arrived broken.' },
        usage: { input: 200, output: 20 },
      },
      { content: 'Sorry, a replacement is on its way.', usage: { input: 30, output: 10 } },
    );

    const result = await runToCompletion(
      contextOf(routedGraph(), { topic: 'My order arrived broken' }),
      depsOf(),
    );

    expect(result.success).toBe(true);
    expect(result.output).toEqual({ team: 'support', text: 'Sorry, a replacement is on its way.' });
    const executed = spansOf(result.traceSpans).map((span) => span.name);
    expect(executed).toContain('Support agent');
    expect(executed).not.toContain('Sales agent');
    expect(executed).not.toContain('Sales reply');
    expect(openai().requests).toHaveLength(2);

    const routerSpan = spansOf(result.traceSpans).find((span) => span.name === 'Triage')!;
    const routerTokens = { prompt: 200, completion: 20, total: 220 };
    const routerCost = { input: 0.00003, output: 0.000012, total: 0.000042 };
    expect(routerSpan.output).toEqual({
      selectedRoute: 'support',
      reasoning: 'The order arrived broken.',
      model: 'gpt-4o-mini',
      tokens: routerTokens,
      cost: routerCost,
    });
    expect(routerSpan).toMatchObject({ model: 'gpt-4o-mini', tokens: routerTokens });
    expect(Object.keys(result.cost.models).sort()).toEqual(['gpt-4o', 'gpt-4o-mini']);

    const asked = openai().requests[0].body;
    expect(asked.messages[1]).toEqual({ role: 'user', content: 'My order arrived broken' });
    expect(asked.messages[0].content).toContain('"support": Problems with an order already placed');
    expect(asked.response_format.json_schema.schema.properties.route.enum).toEqual(['sales', 'support']);
    expect(asked.response_format.json_schema.strict).toBe(true);
  });

  it('routes with Anthropic through a forced tool', async () => {
    anthropic().reply({ structured: { route: 'sales', reasoning: 'Asks for a price.' } });
    openai().reply({ content: 'It costs 10 EUR.' });
    const graph = routedGraph({
      provider: 'anthropic',
      model: 'claude-haiku-4-5',
      apiKey: '{{ANTHROPIC_KEY}}',
      baseUrl: anthropic().url,
    });

    const result = await runToCompletion(contextOf(graph, { topic: 'How much is it?' }), depsOf());

    expect(result.output).toEqual({ team: 'sales', text: 'It costs 10 EUR.' });
    expect(anthropic().requests[0].body.tools[0].input_schema.properties.route.enum).toEqual([
      'sales',
      'support',
    ]);
  });

  it('fails with a clear error when the answer names no known route', async () => {
    openai().reply({ structured: { route: 'billing', reasoning: 'About an invoice.' } });

    const result = await runToCompletion(contextOf(routedGraph(), { topic: 'Invoice?' }), depsOf());

    expect(result.success).toBe(false);
    expect(result.error).toContain(
      `The router's model chose no known route (it answered "billing"); routes are "sales", "support"`,
    );
    expect(openai().requests).toHaveLength(1);
  });

  it('refuses a router without routes', async () => {
    const result = await runToCompletion(contextOf(routedGraph({ routes: [] }), { topic: 'x' }), depsOf());

    expect(result.error).toContain('The router block has no routes');
  });
});
