/**
 * Streamed runs of the execute route, built as a bundle of their own (`stream-run.js`, beside the
 * route's index.js) and loaded by the first streamed run (see `loadStreamedRuns` in ./execute.ts):
 * the engine, the blocks, the sandbox pool, the model gateway and file handling are neither carried
 * nor initialised by the cold start of a sync or async request, which the state machine runs.
 */
// First: the sandbox and document workers a streamed run starts are started from this file, and
// serve their role from it (see the module).
import '../../adapters/worker-roles';
import { prepareStream, type StreamOutcome, streamRun } from '../../core/runs/stream';
import type { ExecutionRequest } from '../../core/runs/types';
import { answerHeaders } from '../http/responses';
import type { ResponseSink } from '../http/streaming-route';
import { streamDeps } from '../wiring/stream';

/**
 * Runs `request` in this process, answering through `sink` with server-sent events. What can refuse
 * the request (an unknown selected output) throws before the stream starts.
 */
export async function runStreamed(
  request: ExecutionRequest,
  selectedOutputs: string[] | undefined,
  sink: ResponseSink,
): Promise<StreamOutcome> {
  const deps = streamDeps();
  const prepared = await prepareStream(deps, request, selectedOutputs);
  sink.start(200, {
    ...answerHeaders,
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    'x-accel-buffering': 'no',
    // The frames carry no execution id; this names the run's log entry.
    'x-execution-id': request.executionId,
  });
  const outcome = await streamRun(deps, prepared, (frame) => sink.write(frame));
  sink.end();
  return outcome;
}
