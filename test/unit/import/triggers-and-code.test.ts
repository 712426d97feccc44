import { describe, expect, it } from 'vitest';
import { importFixture, recordedHttp, runGraph } from './support';

describe('Sim triggers', () => {
  it('starter: its input format becomes the start block and <start.x> reaches the input', async () => {
    // Prepare
    const { graph, name, warnings } = importFixture('trigger-starter.json');
    // Act
    const result = await runGraph(graph, { input: { name: 'Ada' } });
    // Assess
    expect(name).toBe('Starter greeting');
    expect(warnings).toEqual([]);
    expect(graph.blocks.start).toMatchObject({
      type: 'start',
      config: { inputFormat: [{ name: 'name', type: 'string' }] },
    });
    expect(result.success).toBe(true);
    expect(result.output).toMatchObject({ result: 'Hello Ada' });
  });

  it('start_trigger: required and typed fields keep their meaning', async () => {
    const { graph } = importFixture('trigger-start.json');

    const result = await runGraph(graph, { input: { count: 21, label: 'x' } });

    expect(graph.blocks.start.config.inputFormat).toEqual([
      { name: 'count', type: 'number', required: true },
      { name: 'label', type: 'string' },
    ]);
    expect(result.output).toMatchObject({ result: { label: 'x', doubled: 42 } });
  });

  it('api_trigger in a {data} wrapper: blocks reach the trigger by its own name', async () => {
    const { graph } = importFixture('trigger-api.json');

    const result = await runGraph(graph, { input: { items: [1, 2, 3] } });

    expect(result.output).toMatchObject({ result: 3 });
  });

  it('input_trigger in the older form (blocks at the root)', async () => {
    const { graph, name } = importFixture('trigger-input.json');

    const result = await runGraph(graph, { input: { topic: 'tides', flag: true } });

    expect(name).toBe('Input trigger echo');
    expect(result.output).toMatchObject({ result: { topic: 'tides', flag: true } });
  });

  it('manual_trigger: a start block without inputs', async () => {
    const { graph } = importFixture('trigger-manual.json');

    const result = await runGraph(graph);

    expect(graph.blocks.trigger).toMatchObject({ type: 'start', config: {} });
    expect(result.output).toMatchObject({ result: 42 });
  });
});

describe('Sim function block', () => {
  it('gives {{ENV}} and references inside strings and templates the value Sim gives them', async () => {
    const { graph } = importFixture('function.json');

    const result = await runGraph(graph, {
      input: { name: 'Ada' },
      environment: { GREETING: 'Hi "there"', TOKEN: 't-1' },
    });

    expect(result.error).toBeUndefined();
    expect(result.output).toMatchObject({
      result: { bare: 'Hi "there"', quoted: 'Hi "there", Ada!', template: 'Token t-1', name: 'Ada' },
    });
  });
});

describe('Sim api block', () => {
  it('sends the url, method, query and header tables and the JSON body with references', async () => {
    const http = recordedHttp({
      'POST http://127.0.0.1:9/items/7?expand=owner&ref=7': { status: 200, body: { name: 'Widget' } },
    });
    const { graph } = importFixture('api.json');

    const result = await runGraph(graph, { input: { id: 7 }, deps: { http } });

    expect(result.error).toBeUndefined();
    expect(result.output).toEqual({ status: 200, name: 'Widget' });
    expect(http.requests).toHaveLength(1);
    const [request] = http.requests;
    expect(request.headers).toMatchObject({ 'x-trace': 'import-test', 'content-type': 'application/json' });
    expect(JSON.parse(String(request.body))).toEqual({ id: 7, note: 'item 7' });
    // Sim waits five minutes for an answer unless told otherwise; so does the imported block.
    expect(request.timeoutInMs).toBe(300_000);
  });

  it('warns about the tables Sim empties on export and keeps its timeout', async () => {
    const http = recordedHttp({ 'GET http://127.0.0.1:9/health': { body: { ok: true } } });
    const { graph, warnings } = importFixture('api-exported.json');

    const result = await runGraph(graph, { deps: { http } });

    expect(warnings.map((warning) => [warning.blockId, warning.message])).toEqual([
      ['call', expect.stringContaining('(params) was emptied')],
      ['call', expect.stringContaining('(headers) was emptied')],
    ]);
    expect(result.output).toMatchObject({ data: { ok: true }, status: 200 });
    expect(http.requests[0].timeoutInMs).toBe(5000);
  });
});
