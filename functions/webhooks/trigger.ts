import { webhookRoutes } from '../../catalog/webhook-routes';
import { ValidationError } from '../../core/errors';
import { enqueueRun } from '../../core/jobs/service';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { admitRun } from '../../core/runs/admission';
import { prepareRun } from '../../core/runs/prepare';
import { resolveWebhookCall } from '../../core/webhooks/service';
import { parseJsonBody, requireJsonContentType } from '../http/json-body';
import { bodyBytesOf } from '../http/raw-body';
import { publicRoute } from '../http/route';
import { prepareDeps } from '../wiring/prepare';
import { enqueueDeps } from '../wiring/jobs';
import { webhookDeps } from '../wiring/webhooks';
import { runAdmissionDeps } from '../wiring/limits';

/** A webhook call: signed (or bearer) when the webhook has a secret; its JSON body is the run's input. */
export const handler = publicRoute(
  webhookRoutes,
  'triggerWebhook',
  async ({ params, headers, event, limits, logger }) => {
    const rawBody = rawBodyOf(event);
    const { principal, workflowId, webhookId } = await resolveWebhookCall(webhookDeps(), params.path, {
      signatureHeader: headers['svc-signature'],
      authorizationHeader: headers.authorization,
      rawBody,
    });
    // The owner's async bucket, as an asynchronous execution by the owner would draw; then the body.
    return admitRun(
      runAdmissionDeps(),
      limits,
      {
        prepare: (usage) =>
          prepareRun(prepareDeps(), principal, workflowId, webhookInput(event, headers, rawBody), {
            trigger: 'webhook',
            mode: 'async',
            usage,
          }),
        start: async (request) => {
          logger.appendKeys({ executionId: request.executionId, workflowId, webhookId });
          return { statusCode: 202, body: await enqueueRun(enqueueDeps(), request) };
        },
      },
      { drawFor: principal.user },
    );
  },
);

/** The call's JSON body: its members are the workflow inputs. */
function webhookInput(
  event: APIGatewayProxyEvent,
  headers: Record<string, string>,
  rawBody: string,
): Record<string, unknown> {
  if (rawBody !== '') requireJsonContentType(headers['content-type']);
  const input = parseJsonBody(event);
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw new ValidationError('The webhook body must be a JSON object: its members are the workflow inputs');
  }
  return input as Record<string, unknown>;
}

function rawBodyOf(event: APIGatewayProxyEvent): string {
  return event.isBase64Encoded ? bodyBytesOf(event).toString('utf8') : (event.body ?? '');
}
