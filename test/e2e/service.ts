/** The `npm start` service of this file's project (started by test/e2e/global-setup.ts), as a client. */
import { inject } from 'vitest';
import { type Answer, type ApiClient, apiClientOf, request, type Tenant } from '../../support/api-client';
import type { ServiceMode } from '../support/compiled-service';
import './settings';

export interface E2eService extends ApiClient {
  readonly mode: ServiceMode;
  readonly adminKey: string;
  /** The service's DATA_DIR: only for what a local user reads there (the e-mail outbox). */
  readonly dataDir: string;
}

export function useE2eService(): E2eService {
  const service = inject('e2eService');
  return {
    ...apiClientOf(service),
    mode: service.mode,
    adminKey: service.adminKey,
    dataDir: service.dataDir,
  };
}

/** `POST /api/workflows/{workflowId}/execute` with `X-Execution-Mode: async`: answers 202 and a job. */
export function executeAsync(
  service: E2eService,
  tenant: Tenant,
  workflowId: string,
  input: unknown = {},
): Promise<Answer> {
  return request(service.url, 'POST', `/api/workflows/${workflowId}/execute`, {
    headers: { 'x-api-key': tenant.apiKey, 'x-execution-mode': 'async' },
    body: input,
  });
}
