/** Streamed runs through the client library: the events as they come, the result, early exits. */
import { describe, expect, it } from 'vitest';
import { block, edge, graphOf } from '../../core/engine/builders';
import {
  type FetchLike,
  nodeHttpFetch,
  type StreamEvent,
  WorkflowClient,
  WorkflowClientError,
} from '../../sdk/src/index';
import {
  deployedWorkflow,
  type Tenant,
  threeBlockGraph,
  useLocalService,
  waitingGraph,
} from '../support/service';

const service = useLocalService();

const clientOf = (tenant: Tenant, fetch = nodeHttpFetch) =>
  new WorkflowClient({ apiKey: tenant.apiKey, baseUrl: service.get().url, fetch });

const selected = ['Shout.result', 'Respond.status'];

async function eventsOf(stream: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe('a streamed run', () => {
  it.each([
    ['the runtime fetch', undefined],
    ['the node:http fallback', nodeHttpFetch],
  ])('yields the chunks, the done event and the end marker, in order, over %s', async (_name, fetch) => {
    // Prepare
    const tenant = await service.get().newTenant('stream');
    const id = await deployedWorkflow(tenant);

    // Act
    const stream = await clientOf(tenant, fetch).execute(
      id,
      { name: 'ada' },
      { stream: true, selectedOutputs: selected },
    );
    const events = await eventsOf(stream);

    // Assess
    expect(events).toEqual([
      { event: 'chunk', blockId: 'shout', chunk: 'ADA' },
      { event: 'chunk', blockId: 'respond', chunk: '200' },
      {
        event: 'done',
        success: true,
        output: { shouted: 'ADA' },
        metadata: { duration: expect.any(Number) },
      },
      { event: 'end' },
    ]);
    expect(stream.executionId).toEqual(expect.any(String));
  });

  it('collects the result: output, duration, execution id and chunks', async () => {
    // Prepare
    const tenant = await service.get().newTenant('stream');
    const id = await deployedWorkflow(tenant);
    const client = clientOf(tenant);

    // Act
    const stream = await client.stream(id, { name: 'ada' }, { selectedOutputs: selected });
    const result = await stream.result();

    // Assess
    expect(result).toEqual({
      success: true,
      output: { shouted: 'ADA' },
      metadata: { duration: expect.any(Number), executionId: stream.executionId },
      chunks: [
        { blockId: 'shout', chunk: 'ADA' },
        { blockId: 'respond', chunk: '200' },
      ],
    });
  });

  it('yields the error event of a failed run, and result() raises EXECUTION_ERROR with the result', async () => {
    // Prepare
    const tenant = await service.get().newTenant('stream');
    const id = await deployedWorkflow(tenant, threeBlockGraph({ code: "throw new Error('no luck');" }));
    const client = clientOf(tenant);

    // Act
    const events = await eventsOf(await client.stream(id, { input: { name: 'ada' } }));
    const error = await (await client.stream(id, { input: { name: 'ada' } }))
      .result()
      .catch((caught: unknown) => caught);

    // Assess
    expect(events).toEqual([
      { event: 'error', error: 'Shout: Error: no luck' },
      { event: 'done', success: false, output: {}, metadata: { duration: expect.any(Number) } },
      { event: 'end' },
    ]);
    expect(error).toBeInstanceOf(WorkflowClientError);
    expect(error).toMatchObject({
      code: 'EXECUTION_ERROR',
      message: 'Shout: Error: no luck',
      result: { success: false, error: 'Shout: Error: no luck' },
    });
  });

  it('raises the refusal of a stream before any event (unknown workflow, 404)', async () => {
    // Prepare
    const tenant = await service.get().newTenant('stream');

    // Act
    const error = await clientOf(tenant)
      .stream('wf_missing', {})
      .catch((caught: unknown) => caught);

    // Assess
    expect(error).toMatchObject({ code: 'NOT_FOUND', status: 404 });
  });

  it('stops at a break out of the loop, and cannot be read twice', async () => {
    // Prepare: a run that waits between its first chunk and its end
    const tenant = await service.get().newTenant('stream');
    const graph = graphOf(
      [
        block('start', 'start', 'Start', { inputFormat: [] }),
        block('first', 'function', 'First', { code: "return 'one';" }),
        block('pause', 'wait', 'Pause', { durationMs: 1_500 }),
        block('respond', 'response', 'Respond', { data: { done: true } }),
      ],
      [edge('start', 'first'), edge('first', 'pause'), edge('pause', 'respond')],
    );
    const id = await deployedWorkflow(tenant, graph);
    const stream = await clientOf(tenant).stream(id, {}, { selectedOutputs: ['First.result'] });

    // Act
    const seen: StreamEvent[] = [];
    for await (const event of stream) {
      seen.push(event);
      break;
    }
    const again = (() => {
      try {
        stream[Symbol.asyncIterator]();
      } catch (error) {
        return error;
      }
    })();

    // Assess
    expect(seen).toEqual([{ event: 'chunk', blockId: 'first', chunk: 'one' }]);
    expect(again).toMatchObject({ message: 'This stream has already been read' });
  });

  it('closes the connection on cancel(), and cannot be read afterwards', async () => {
    // Prepare: a run that takes 2 s to answer anything, through a fetch that keeps the response
    const tenant = await service.get().newTenant('stream');
    const id = await deployedWorkflow(tenant, waitingGraph(2_000));
    let response: Response | undefined;
    const fetch: FetchLike = async (url, init) => {
      response = await globalThis.fetch(url, init as RequestInit);
      return response;
    };
    const stream = await new WorkflowClient({
      apiKey: tenant.apiKey,
      baseUrl: service.get().url,
      fetch,
    }).stream(id, {});

    // Act
    stream.cancel();
    const body = await response?.text().catch((error: unknown) => error);
    const read = await stream.result().catch((error: unknown) => error);

    // Assess: the body was cut off (aborted), not read to the run's end
    expect(body).toMatchObject({ name: 'AbortError' });
    expect(read).toMatchObject({ message: 'This stream has already been read' });
  });

  it('times out when the stream stays silent for longer than the timeout', async () => {
    // Prepare
    const tenant = await service.get().newTenant('stream');
    const id = await deployedWorkflow(tenant, waitingGraph(2_000));
    const stream = await clientOf(tenant).stream(id, {}, { timeout: 300 });

    // Act
    const error = await stream.result().catch((caught: unknown) => caught);

    // Assess
    expect(error).toMatchObject({ code: 'TIMEOUT' });
    expect((error as Error).message).toContain('300 ms');
  });
});
