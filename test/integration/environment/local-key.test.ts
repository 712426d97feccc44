import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { keys } from '../../../catalog/resources';
import { loadEnvironment } from '../../../core/environment/service';
import { environmentDeps } from '../../../functions/wiring/environment';
import { startLocalService } from '../../../local/service';
import { makeClient } from '../../support/service';

describe('the local key file', () => {
  let dataDir: string;
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('is made on first start under the data dir, kept across restarts, and decrypts for the run path', async () => {
    process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
    dataDir = await mkdtemp(join(tmpdir(), 'workflow-service-key-'));
    const keyFile = join(dataDir, keys.environment.local.fileName);

    const first = makeClient(await startLocalService({ dataDir, port: 0, adminKey: 'test-admin-key' }));
    let tenant: Awaited<ReturnType<typeof first.newTenant>>;
    let key: Buffer;
    try {
      expect(process.env[keys.environment.local.envVar]).toBe(keyFile);
      expect(process.env[keys.environment.envVar]).toBeUndefined();
      key = await readFile(keyFile);
      expect(key).toHaveLength(32);
      if (process.platform !== 'win32') expect((await stat(keyFile)).mode & 0o777).toBe(0o600);

      tenant = await first.newTenant('run-path');
      await tenant.call('PUT', `/api/workspaces/${tenant.workspaceId}/environment/API_TOKEN`, {
        value: 'tok-1234',
      });
      await tenant.call('PUT', `/api/workspaces/${tenant.workspaceId}/environment/REGION`, {
        value: 'eu-west-1',
      });
      expect(await loadEnvironment(environmentDeps(), tenant.workspaceId)).toEqual({
        API_TOKEN: 'tok-1234',
        REGION: 'eu-west-1',
      });
    } finally {
      await first.service.stop();
    }

    const second = makeClient(await startLocalService({ dataDir, port: 0, adminKey: 'test-admin-key' }));
    try {
      expect((await readFile(keyFile)).equals(key)).toBe(true);
      const listed = await second.as(tenant.apiKey)(
        'GET',
        `/api/workspaces/${tenant.workspaceId}/environment`,
      );
      expect(listed.body.data.map((item: any) => [item.name, item.value])).toEqual([
        ['API_TOKEN', 'tok-1234'],
        ['REGION', 'eu-west-1'],
      ]);
      expect(await loadEnvironment(environmentDeps(), tenant.workspaceId)).toEqual({
        API_TOKEN: 'tok-1234',
        REGION: 'eu-west-1',
      });
    } finally {
      await second.service.stop();
    }
  });
});
