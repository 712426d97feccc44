/**
 * Starts the whole local service (embedded stack + HTTP server) for a test file, in a fresh data
 * dir, and gives small helpers to call it as a user would.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { type LocalServiceOptions, startLocalService } from '../../local/service';
import { makeClient, type TestService } from '../../support/service-client';

export {
  type Answer,
  deployedWorkflow,
  draftWorkflow,
  fileEchoGraph,
  fileReadGraph,
  finishedJob,
  request,
  type Tenant,
  threeBlockGraph,
  waitingGraph,
} from '../../support/api-client';

export { makeClient, type TestService } from '../../support/service-client';

/** One service per test file; vitest runs each file in its own process. */
export function useLocalService(
  options: Pick<
    LocalServiceOptions,
    'allowLoopbackOutbound' | 'waitOverrideMs' | 'integrationTimeoutInMs'
  > = {},
): { get(): TestService } {
  let dataDir: string;
  let client: TestService | undefined;
  beforeAll(async () => {
    process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
    dataDir = await mkdtemp(join(tmpdir(), 'workflow-service-test-'));
    const service = await startLocalService({ dataDir, port: 0, adminKey: 'test-admin-key', ...options });
    client = makeClient(service);
  });
  afterAll(async () => {
    await client?.service.stop();
    await rm(dataDir, { recursive: true, force: true });
  });
  return {
    get() {
      if (!client) throw new Error('The local service has not started');
      return client;
    },
  };
}
