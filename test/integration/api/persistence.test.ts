import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startLocalService } from '../../../local/service';
import { makeClient, threeBlockGraph } from '../../support/service';

describe('restart persistence', () => {
  let dataDir: string;
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('keeps users, keys, workflows and deployments across a restart on the same data dir', async () => {
    process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
    dataDir = await mkdtemp(join(tmpdir(), 'workflow-service-restart-'));
    const first = makeClient(await startLocalService({ dataDir, port: 0 }));
    const tenant = await first.newTenant('persistent');
    const { body } = await tenant.call('POST', '/api/workflows', {
      workspaceId: tenant.workspaceId,
      name: 'Kept',
      state: threeBlockGraph(),
    });
    await tenant.call('POST', `/api/workflows/${body.data.id}/deploy`);
    const adminKey = first.service.adminKey;
    await first.service.stop();

    const second = makeClient(await startLocalService({ dataDir, port: 0 }));
    try {
      expect(second.service.adminKey).toBe(adminKey);
      const again = second.as(tenant.apiKey);
      expect((await again('GET', `/api/workflows/${body.data.id}`)).body.data).toMatchObject({
        name: 'Kept',
        isDeployed: true,
      });
      const run = await again('POST', `/api/workflows/${body.data.id}/execute`, { name: 'still here' });
      expect(run.body.output).toEqual({ shouted: 'STILL HERE' });
    } finally {
      await second.service.stop();
    }
  });
});
