/** Wiring of webhook triggers: the store, the environment cipher for secrets, and the public base URL. */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { DynamoWebhookStore } from '../../adapters/dynamodb/webhook-store';
import type { WebhookDeps } from '../../core/webhooks/service';
import { environmentCipher } from './environment';
import { identityDeps } from './identity';
import { workflowDeps } from './workflows';
import { setting } from '../settings';

export function webhookDeps(): WebhookDeps {
  return {
    identity: identityDeps().store,
    workflows: { getWorkflow: (id) => workflowDeps().workflows.getWorkflow(id) },
    webhooks: DynamoWebhookStore.fromEnv(),
    cipher: environmentCipher,
    now: () => new Date(),
  };
}

/** What deleting a workflow needs to retire its webhooks (`deleteWorkflowWebhooks`): the store only. */
export function workflowWebhookDeps(): Pick<WebhookDeps, 'webhooks'> {
  return { webhooks: DynamoWebhookStore.fromEnv() };
}

/**
 * Where callers reach this service: `PUBLIC_BASE_URL` when set (a custom domain, CloudFront),
 * else the host the request came to, with API Gateway's stage when it is in the path. The first
 * X-Forwarded-Proto wins, as it names what the caller used before any proxy.
 */
export function publicBaseUrl(
  event: APIGatewayProxyEvent,
  headers: Record<string, string>,
  configured = setting('PUBLIC_BASE_URL'),
): string {
  if (configured) return configured.replace(/\/+$/, '');
  const host = headers.host ?? 'localhost';
  const local = /^(localhost|127\.|\[::1\])/.test(host);
  const forwarded = headers['x-forwarded-proto']?.split(',')[0].trim().toLowerCase();
  const protocol = forwarded === 'http' || forwarded === 'https' ? forwarded : local ? 'http' : 'https';
  const stage = event.requestContext?.stage;
  const stagePrefix = stage && event.requestContext.path?.startsWith(`/${stage}/`) ? `/${stage}` : '';
  return `${protocol}://${host}${stagePrefix}`;
}
