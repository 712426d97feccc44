import { describe, expect, it } from 'vitest';
import { block, edge, graphOf } from '../../../core/engine/builders';
import type { ModelGateway, ModelRequest, WorkflowGraph } from '../../../core/engine/types';
import type { CheckpointStore, ExecutionLogEntry, ExecutionLogStore } from '../../../core/runs/log';
import { doneMarker, prepareStream, type StreamDeps, sseFrame, streamRun } from '../../../core/runs/stream';
import type { ExecutionRequest } from '../../../core/runs/types';
import { runState } from '../../support/runs';
import type { Deployment } from '../../../core/workflows/types';

const startedAt = '2026-01-01T00:00:00.000Z';
/** The clock stands still, so every duration is 0 and frames can be compared byte for byte. */
const clockInMs = Date.parse(startedAt);

const request: ExecutionRequest = runState({ input: {}, startedAt });

/** start → agent "Writer" → response with the writer's text. */
function writerGraph(userPrompt = 'Say hi'): WorkflowGraph {
  return graphOf(
    [
      block('start', 'start', 'Start', { inputFormat: [] }),
      block('writer', 'agent', 'Writer', { provider: 'openai', model: 'gpt-4o', userPrompt }),
      block('respond', 'response', 'Respond', { data: { text: '<writer.content>' } }),
    ],
    [edge('start', 'writer'), edge('writer', 'respond')],
  );
}

/** A provider that streams `chunks` when asked to, or fails with `failure`. */
function scriptedModels(chunks: string[], failure?: string): ModelGateway {
  return {
    async complete(call: ModelRequest) {
      for (const chunk of chunks) call.onChunk?.(chunk);
      if (failure) throw new Error(failure);
      return { content: chunks.join(''), model: call.model, tokens: { prompt: 3, completion: 2, total: 5 } };
    },
  };
}

class MemoryLogs implements Pick<ExecutionLogStore, 'putLogEntry'> {
  readonly entries: ExecutionLogEntry[] = [];
  async putLogEntry(entry: ExecutionLogEntry) {
    this.entries.push(entry);
    return true;
  }
}

const noCheckpoints: CheckpointStore = {
  save: async () => undefined,
  saveJson: async () => undefined,
  load: async () => undefined,
  delete: async () => undefined,
};

function deps(
  graph: WorkflowGraph,
  options: {
    models?: ModelGateway;
    environmentOf?: (workspaceId: string) => Promise<Record<string, string>>;
    logs?: Pick<ExecutionLogStore, 'putLogEntry'>;
  } = {},
): StreamDeps {
  const deployment: Deployment = {
    workflowId: 'wf_1',
    workspaceId: 'ws_1',
    version: 1,
    state: graph,
    stateHash: 'h',
    deployedAt: startedAt,
    deployedBy: 'usr_1',
  };
  return {
    step: {
      deployments: { getDeployment: async () => deployment },
      engine: {
        codeRunner: { run: async () => expect.unreachable('no function blocks here') },
        now: () => clockInMs,
        models: options.models ?? scriptedModels([]),
      },
      environmentOf: options.environmentOf,
    },
    finalize: {
      logs: options.logs ?? new MemoryLogs(),
      checkpoints: noCheckpoints,
      jobs: { recordDuration: async () => expect.unreachable('a streamed run settles no job') },
      now: () => new Date(clockInMs),
      usage: { addRunCost: async () => undefined },
      baseChargePerRunInUsd: 0,
    },
  };
}

async function framesOf(streamDeps: StreamDeps, selectedOutputs?: string[]) {
  const written: string[] = [];
  const prepared = await prepareStream(streamDeps, request, selectedOutputs);
  const outcome = await streamRun(streamDeps, prepared, (frame) => written.push(frame));
  return { text: written.join(''), written, outcome };
}

describe('streamRun', () => {
  it('ends a run out of its budget with an error frame, logs it as timed out, and writes nothing after', async () => {
    // Prepare: a model that starts answering and never finishes; the budget is long gone
    const logs = new MemoryLogs();
    let late: ((text: string) => void) | undefined;
    const hanging: ModelGateway = {
      complete: (call) => {
        late = call.onChunk;
        call.onChunk?.('Hel');
        return new Promise(() => undefined);
      },
    };
    const streamDeps = { ...deps(writerGraph(), { models: hanging, logs }), budgetInMs: 60_000 };

    // Act
    const { written } = await framesOf(streamDeps);
    late?.('lo, too late');

    // Assess
    expect(written).toEqual([
      sseFrame({ blockId: 'writer', chunk: 'Hel' }),
      sseFrame({ event: 'error', error: 'The run did not finish within 60 s' }),
      'data: {"event":"done","success":false,"output":{},"metadata":{"duration":0}}\n\n',
      doneMarker,
    ]);
    expect(logs.entries[0]).toMatchObject({ level: 'error', executionData: { error: 'The run timed out' } });
  });

  it('sends model chunks as they come, then the done frame and [DONE]', async () => {
    // Prepare
    const streamDeps = deps(writerGraph(), { models: scriptedModels(['Hel', 'lo']) });

    // Act
    const { written, outcome } = await framesOf(streamDeps);

    // Assess
    expect(written).toEqual([
      sseFrame({ blockId: 'writer', chunk: 'Hel' }),
      sseFrame({ blockId: 'writer', chunk: 'lo' }),
      'data: {"event":"done","success":true,"output":{"text":"Hello"},"metadata":{"duration":0}}\n\n',
      doneMarker,
    ]);
    expect(outcome).toEqual({ success: true, durationInMs: 0 });
  });

  it("sends a selected agent's content as its chunks, once, and other selected outputs when their block completes", async () => {
    // Prepare
    const streamDeps = deps(writerGraph(), { models: scriptedModels(['Hel', 'lo']) });

    // Act
    const { written } = await framesOf(streamDeps, ['writer.content', 'Writer.tokens', 'respond.data.text']);

    // Assess: a string as it is, anything else as JSON
    expect(written.slice(0, -2)).toEqual([
      'data: {"blockId":"writer","chunk":"Hel"}\n\n',
      'data: {"blockId":"writer","chunk":"lo"}\n\n',
      'data: {"blockId":"writer","chunk":"{\\"prompt\\":3,\\"completion\\":2,\\"total\\":5}"}\n\n',
      'data: {"blockId":"respond","chunk":"Hello"}\n\n',
    ]);
  });

  it('sends only the selected outputs: an agent that is not selected streams no chunk', async () => {
    // Prepare
    const streamDeps = deps(writerGraph(), { models: scriptedModels(['Hel', 'lo']) });

    // Act
    const { written } = await framesOf(streamDeps, ['respond.data.text']);

    // Assess
    expect(written).toEqual([
      'data: {"blockId":"respond","chunk":"Hello"}\n\n',
      'data: {"event":"done","success":true,"output":{"text":"Hello"},"metadata":{"duration":0}}\n\n',
      doneMarker,
    ]);
  });

  it("sends a selected agent's content once when it completes if its model sent no chunks", async () => {
    // Prepare: a provider that answers whole
    const whole: ModelGateway = {
      complete: async (call) => ({
        content: 'Hello',
        model: call.model,
        tokens: { prompt: 1, completion: 1, total: 2 },
      }),
    };
    const streamDeps = deps(writerGraph(), { models: whole });

    // Act
    const { written } = await framesOf(streamDeps, ['Writer.content']);

    // Assess
    expect(written.slice(0, -2)).toEqual(['data: {"blockId":"writer","chunk":"Hello"}\n\n']);
  });

  it('sends the error frame before a failed done frame, and logs the run as an error', async () => {
    // Prepare
    const logs = new MemoryLogs();
    const streamDeps = deps(writerGraph(), { models: scriptedModels(['Par'], 'provider down'), logs });

    // Act
    const { written, outcome } = await framesOf(streamDeps);

    // Assess
    expect(written[0]).toBe(sseFrame({ blockId: 'writer', chunk: 'Par' }));
    expect(JSON.parse(written[1].slice('data: '.length))).toEqual({
      event: 'error',
      error: expect.stringContaining('provider down'),
    });
    expect(written.slice(2)).toEqual([
      'data: {"event":"done","success":false,"output":{},"metadata":{"duration":0}}\n\n',
      doneMarker,
    ]);
    expect(outcome).toEqual({ success: false, durationInMs: 0 });
    expect(logs.entries).toMatchObject([{ executionId: 'exec-1', level: 'error', trigger: 'api' }]);
  });

  it('replaces secret values of the environment in chunks and in the done frame', async () => {
    // Prepare
    const streamDeps = deps(writerGraph('Use {{TOKEN}}'), {
      models: scriptedModels(['key=s3cr3t-value']),
      environmentOf: async () => ({ TOKEN: 's3cr3t-value' }),
    });

    // Act
    const { text } = await framesOf(streamDeps);

    // Assess
    expect(text).not.toContain('s3cr3t-value');
    expect(text).toBe(
      sseFrame({ blockId: 'writer', chunk: 'key=[REDACTED]' }) +
        'data: {"event":"done","success":true,"output":{"text":"key=[REDACTED]"},"metadata":{"duration":0}}\n\n' +
        doneMarker,
    );
  });

  it('logs a run that crashed before its result as failed, and still ends the stream', async () => {
    // Prepare
    const logs = new MemoryLogs();
    const crash = new Error('key service unreachable');
    const streamDeps = deps(writerGraph('Use {{TOKEN}}'), {
      environmentOf: async () => {
        throw crash;
      },
      logs,
    });

    // Act
    const { text, outcome } = await framesOf(streamDeps);

    // Assess
    expect(text).toBe(
      'data: {"event":"error","error":"The run failed"}\n\n' +
        'data: {"event":"done","success":false,"output":{},"metadata":{"duration":0}}\n\n' +
        doneMarker,
    );
    expect(outcome).toEqual({ success: false, durationInMs: 0, fault: crash });
    expect(logs.entries).toMatchObject([
      { level: 'error', executionData: { error: 'The run failed: key service unreachable' } },
    ]);
  });

  it('ends the stream as failed when the log entry cannot be written', async () => {
    // Prepare
    const refusal = new Error('table unavailable');
    const logs = new MemoryLogs();
    logs.putLogEntry = async () => {
      throw refusal;
    };
    const streamDeps = deps(writerGraph(), { models: scriptedModels(['ok']), logs });

    // Act
    const { written, outcome } = await framesOf(streamDeps);

    // Assess
    expect(written.slice(1)).toEqual([
      'data: {"event":"error","error":"The run failed"}\n\n',
      'data: {"event":"done","success":false,"output":{},"metadata":{"duration":0}}\n\n',
      doneMarker,
    ]);
    expect(outcome.fault).toBe(refusal);
  });
});
