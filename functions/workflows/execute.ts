/**
 * Execute: sync (the Express machine), async (`X-Execution-Mode: async`: a job), or streamed
 * (`stream: true` or `X-Stream-Response: true`: server-sent events from the engine run here).
 */
import { workflowRoutes } from '../../catalog/workflow-routes';
import { enqueueRun } from '../../core/jobs/service';
import { withinSyncDeadline } from '../../core/runs/deadline';
import { admitRun } from '../../core/runs/admission';
import { prepareRun } from '../../core/runs/prepare';
import { streamRunFile } from '../../catalog/route-definition';
import { executionBucketOf } from '../http/limits';
import type { JsonResponse } from '../http/responses';
import type { ExecutionRequest } from '../../core/runs/types';
import type { Logger } from '@aws-lambda-powertools/logger';
import { runAdmissionDeps } from '../wiring/limits';
import { type ResponseSink, streamingHttpRoute } from '../http/streaming-route';
import { executionStarter } from '../wiring/execution';
import { syncBudgetInMs } from '../wiring/sync-budget';
import { prepareDeps } from '../wiring/prepare';
import { enqueueDeps } from '../wiring/jobs';

type StreamedRuns = typeof import('./stream-run');

/**
 * The streamed runs' module, loaded on the first streamed run only. The deployed bundle requires
 * its sibling `stream-run.js` (built from ./stream-run.ts beside index.js); the sources (the local
 * server, the tests) import the TypeScript module. Both are named through a variable so that
 * esbuild leaves them out of this bundle.
 */
export async function loadStreamedRuns(): Promise<StreamedRuns> {
  // A CommonJS bundle has no import.meta.url; the sources, ES modules, have one.
  if (!import.meta.url) {
    const sibling = `./${streamRunFile}`;
    return require(sibling) as StreamedRuns;
  }
  // Beside this module with its own extension: `.ts` in the sources, `.js` in the compiled server.
  const extension = import.meta.url.slice(import.meta.url.lastIndexOf('.'));
  const source = new URL(`./stream-run${extension}`, import.meta.url).href;
  return (await import(source)) as StreamedRuns;
}

export const handler = streamingHttpRoute(
  workflowRoutes,
  'executeWorkflow',
  async ({ principal, params, body, headers, limits, logger }, sink) => {
    const { stream, selectedOutputs, ...input } = body;
    const mode = executionBucketOf(headers);
    const streamed =
      mode === 'sync' && (stream === true || headers['x-stream-response']?.trim().toLowerCase() === 'true');
    // A streamed run is not bound by the sync budget: its caller gets answers as it goes.
    const prepare = streamed ? { ...prepareDeps(), syncBudgetInMs: undefined } : prepareDeps();
    return admitRun(
      runAdmissionDeps(),
      limits,
      {
        prepare: (usage) =>
          prepareRun(prepare, principal, params.workflowId, input, { trigger: 'api', mode, usage }),
        start: (request) => {
          logger.appendKeys({ executionId: request.executionId, workflowId: request.workflowId });
          if (mode === 'async') return enqueued(request);
          return streamed ? runStreamedTo(sink, request, selectedOutputs, logger) : runSync(request, logger);
        },
      },
      { streamed },
    );
  },
);

async function enqueued(request: ExecutionRequest): Promise<JsonResponse> {
  return { statusCode: 202, body: await enqueueRun(enqueueDeps(), request) };
}

async function runStreamedTo(
  sink: ResponseSink,
  request: ExecutionRequest,
  selectedOutputs: string[] | undefined,
  logger: Logger,
): Promise<undefined> {
  const { runStreamed } = await loadStreamedRuns();
  const outcome = await runStreamed(request, selectedOutputs, sink);
  logger.info('Run finished', { success: outcome.success, durationMs: outcome.durationInMs });
  if (outcome.fault) logger.error('Streamed run broke', { error: outcome.fault as Error });
  return undefined;
}

async function runSync(request: ExecutionRequest, logger: Logger): Promise<JsonResponse> {
  const answer = await withinSyncDeadline(
    executionStarter().startSync(request),
    request.startedAt,
    syncBudgetInMs(),
  );
  logger.info('Run finished', { success: answer.body.success, durationMs: answer.body.metadata.duration });
  return { statusCode: answer.httpStatus, headers: answer.headers, body: answer.body };
}
