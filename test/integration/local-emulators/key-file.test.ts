import { existsSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type LocalService, startLocalService } from '../../../local/service';
import { makeClient } from '../../support/service';

const cleanups: Array<() => Promise<unknown>> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function start(dataDir: string, keyFile: string): Promise<LocalService> {
  const service = await startLocalService({
    dataDir,
    port: 0,
    adminKey: 'key-file-admin',
    keyFiles: { environment: keyFile },
  });
  cleanups.push(() => service.stop());
  return service;
}

describe('the secrets key outside the data dir', () => {
  it('is made where ENVIRONMENT_KEY_FILE says, not in the data dir, and opens the stored secrets after a restart', async () => {
    // Prepare
    const dataDir = await tempDir('workflow-service-data-');
    const keyFile = join(await tempDir('workflow-service-keys-'), 'nested', 'secrets.key');
    const first = await start(dataDir, keyFile);
    const tenant = await makeClient(first).newTenant('keeper');
    const put = await tenant.call('PUT', `/api/workspaces/${tenant.workspaceId}/environment/TOKEN`, {
      value: 's3cret',
    });
    await first.stop();

    // Act
    const second = await start(dataDir, keyFile);
    const listed = await makeClient(second).as(tenant.apiKey)(
      'GET',
      `/api/workspaces/${tenant.workspaceId}/environment`,
    );

    // Assess
    expect(put.status).toBe(201);
    expect(existsSync(join(dataDir, 'secrets.key'))).toBe(false);
    expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
    expect(listed.body.data).toEqual([expect.objectContaining({ name: 'TOKEN', value: 's3cret' })]);
  });
});
