import { describe, expect, it } from 'vitest';
import { importFixture, recordedModels, runGraph } from './support';

describe('Sim agent block', () => {
  it('sends its messages, model, temperature, max tokens, response format and key, and answers with the fields', async () => {
    // Prepare
    const models = recordedModels({
      'gpt-4o': () => ({ content: '{"word":"blue"}', structured: { word: 'blue' } }),
    });
    const { graph, warnings } = importFixture('agent.json');
    // Act
    const result = await runGraph(graph, {
      input: { question: 'Colour of the sky?' },
      environment: { OPENAI_API_KEY: 'sk-test' },
      deps: { models },
    });
    // Assess
    expect(warnings).toEqual([]);
    expect(result.output).toEqual({ word: 'blue', model: 'gpt-4o' });
    expect(models.requests).toHaveLength(1);
    expect(models.requests[0]).toMatchObject({
      provider: 'openai',
      model: 'gpt-4o',
      systemPrompt: 'You answer in one word.',
      messages: [{ role: 'user', content: 'Question: Colour of the sky?' }],
      temperature: 0.2,
      maxTokens: 100,
      apiKey: 'sk-test',
      responseFormat: { name: 'answer', schema: { required: ['word'] } },
    });
  });

  it('reads the older systemPrompt/userPrompt, maps claude to Anthropic, and warns of the emptied key', async () => {
    const models = recordedModels({ 'claude-sonnet-4-5': () => ({ content: 'Tide goes out' }) });
    const { graph, warnings } = importFixture('agent-legacy.json');

    const result = await runGraph(graph, { input: { topic: 'tides' }, deps: { models } });

    expect(warnings).toEqual([
      { blockId: 'agent', message: expect.stringContaining('The API key (apiKey) was emptied') },
    ]);
    expect(result.output).toMatchObject({ content: 'Tide goes out' });
    expect(models.requests[0]).toMatchObject({
      provider: 'anthropic',
      systemPrompt: 'You write haiku.',
      messages: [{ role: 'user', content: 'A haiku about tides' }],
    });
  });
});

describe('Sim router blocks', () => {
  it('legacy router: the connected blocks are its routes, and only the chosen one runs', async () => {
    const models = recordedModels({
      'gpt-4o-mini': (request) => ({
        structured: { route: 'support', reasoning: 'a question' },
        content: request.systemPrompt ?? '',
      }),
    });
    const { graph } = importFixture('router.json');

    const result = await runGraph(graph, {
      input: { message: 'How do I log in?' },
      environment: { OPENAI_API_KEY: 'k' },
      deps: { models },
    });

    expect(graph.blocks.router.config.routes).toEqual([
      { id: 'billing', description: 'Billing' },
      { id: 'support', description: 'Support' },
    ]);
    expect(models.requests[0].messages[0].content).toBe('Route this message: How do I log in?');
    expect(result.output).toMatchObject({ result: 'support' });
    expect(result.traceSpans[0].children?.map((span) => span.name)).not.toContain('Billing');
  });

  it('router_v2: its routes and context, router-<id> edges', async () => {
    const models = recordedModels({
      'claude-haiku-4-5': () => ({ structured: { route: 'r-tech', reasoning: 'an outage' } }),
    });
    const { graph } = importFixture('router-v2.json');

    const result = await runGraph(graph, {
      input: { message: 'The site is down' },
      environment: { ANTHROPIC_API_KEY: 'k' },
      deps: { models },
    });

    expect(graph.blocks.router.config).toMatchObject({
      provider: 'anthropic',
      prompt: 'Customer says: <start.message>',
      routes: [
        { id: 'r-billing', description: 'Invoices, refunds and payments' },
        { id: 'r-tech', description: 'Errors, bugs and outages' },
      ],
    });
    expect(result.output).toMatchObject({ result: 'tech' });
  });
});
