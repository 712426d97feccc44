/**
 * Importing from Sim on the service `npm start` runs (compiled, and from the Lambda bundles): a Sim
 * export and a workspace ZIP imported and run, the Sim export round trip, refusals, and the
 * `npm run import` command against the running service.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromProjectRoot } from '../../lib/project';
import { postArchive, simGreeting, simParent, simUnsupported, simWorkspaceZip } from '../support/sim-files';
import type { Tenant } from '../../support/api-client';
import { useE2eService } from './service';

const service = useE2eService();
const run = promisify(execFile);
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'import-e2e-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const greeterId = '7c2d4a10-1b2c-4d3e-8f90-0a1b2c3d4e5f';

/** `npm run import -- …` as a user runs it; never throws, answers the exit code and output. */
async function importCommand(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(
      fromProjectRoot('node_modules/.bin/tsx'),
      ['scripts/import.ts', ...args],
      {
        cwd: fromProjectRoot('.'),
        // Only what the command is given: no key or address of the machine's environment.
        env: { ...process.env, WORKFLOW_API_KEY: '', WORKFLOW_SERVICE_URL: '', DATA_DIR: '' },
      },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** What a user names to reach a deployed service: its workspace, address and key. */
function deployedServiceArgs(owner: Tenant): string[] {
  return ['--workspace', owner.workspaceId, '--url', service.url, '--api-key', owner.apiKey];
}

describe('Sim import', () => {
  it("imports Sim's export and runs it", async () => {
    // Prepare
    const owner = await service.newTenant('importer');

    // Act
    const imported = await owner.call('POST', '/api/workflows/import', {
      workspaceId: owner.workspaceId,
      workflow: simGreeting(),
      deploy: true,
    });
    const answer = await owner.call('POST', `/api/workflows/${imported.body.data?.id}/execute`, {
      name: 'Ada',
    });

    // Assess
    expect(imported.status).toBe(201);
    expect(answer.body.output).toEqual({ greeting: 'Hello, Ada!' });
  });

  it('refuses blocks that cannot run here with 422, and stores nothing', async () => {
    // Prepare
    const owner = await service.newTenant('importer');

    // Act
    const answer = await owner.call('POST', '/api/workflows/import', {
      workspaceId: owner.workspaceId,
      workflow: simUnsupported(),
    });
    const listed = await owner.call('GET', `/api/workflows?workspaceId=${owner.workspaceId}`);

    // Assess
    expect(answer.status).toBe(422);
    expect(answer.body.details.map((detail: { blockId: string }) => detail.blockId).sort()).toEqual([
      'eval-1',
      'slack-1',
    ]);
    expect(listed.body.data).toEqual([]);
  });

  it('imports a workspace ZIP whose parent calls its imported child', async () => {
    // Prepare
    const owner = await service.newTenant('mover');
    const archive = simWorkspaceZip([
      { id: greeterId, file: simGreeting('Greeter') },
      { id: '0b1e2f30-4a5b-4c6d-9e8f-102132435465', file: simParent(greeterId) },
    ]);

    // Act
    const answer = await postArchive(
      service.url,
      owner.apiKey,
      { workspaceId: owner.workspaceId, deploy: 'true' },
      archive,
    );
    const parent = answer.body.data?.workflows.find(
      (workflow: { sourceName: string }) => workflow.sourceName === 'Parent',
    );
    const result = await owner.call('POST', `/api/workflows/${parent?.id}/execute`, {});

    // Assess
    expect(answer.status).toBe(201);
    expect(result.status).toBe(200);
    expect(JSON.stringify(result.body.output)).toContain('Hello, Lin!');
  });

  it('refuses a ZIP bomb with 413', async () => {
    // Prepare
    const owner = await service.newTenant('mover');
    const bomb = zipSync({ 'bomb.json': new Uint8Array(4 * 1024 * 1024) }, { level: 9 });

    // Act
    const answer = await postArchive(service.url, owner.apiKey, { workspaceId: owner.workspaceId }, bomb);

    // Assess
    expect(answer.status).toBe(413);
  });

  it("exports as Sim's format, which imports into a workflow that runs the same", async () => {
    // Prepare
    const owner = await service.newTenant('exporter');
    const original = await owner.call('POST', '/api/workflows/import', {
      workspaceId: owner.workspaceId,
      workflow: simGreeting(),
    });

    // Act
    const exported = await owner.call('GET', `/api/workflows/${original.body.data.id}/export?format=sim`);
    const copy = await owner.call('POST', '/api/workflows/import', {
      workspaceId: owner.workspaceId,
      workflow: exported.body.data,
      deploy: true,
    });
    const answer = await owner.call('POST', `/api/workflows/${copy.body.data.id}/execute`, { name: 'Grace' });

    // Assess
    expect(exported.body.data.version).toBe('1.0');
    expect(answer.body.output).toEqual({ greeting: 'Hello, Grace!' });
  });
});

describe('npm run import', () => {
  it('imports a Sim export with --url and --api-key and prints its id', async () => {
    // Prepare
    const owner = await service.newTenant('cli');
    const file = join(dir, 'greeter.json');
    await writeFile(file, JSON.stringify(simGreeting('From the CLI')));

    // Act
    const result = await importCommand([file, ...deployedServiceArgs(owner)]);

    // Assess
    expect(result.code).toBe(0);
    const listed = await owner.call('GET', `/api/workflows?workspaceId=${owner.workspaceId}`);
    expect(listed.body.data).toEqual([expect.objectContaining({ name: 'From the CLI' })]);
    expect(result.stdout).toContain(listed.body.data[0].id);
  });

  it("uses the local service's demo key and workspace from its data dir, and imports a ZIP", async () => {
    // Prepare
    const demo = JSON.parse(await readFile(join(service.dataDir, 'demo.json'), 'utf8'));
    const file = join(dir, 'workspace.zip');
    await writeFile(file, simWorkspaceZip([{ id: greeterId, file: simGreeting('Zipped greeter') }]));

    // Act
    const result = await importCommand([file, '--url', service.url, '--data-dir', service.dataDir]);

    // Assess
    expect(result.code).toBe(0);
    const listed = await service.as(demo.apiKey)('GET', `/api/workflows?workspaceId=${demo.workspaceId}`);
    const zipped = listed.body.data.find((workflow: { name: string }) => workflow.name === 'Zipped greeter');
    expect(result.stdout).toContain(zipped.id);
  });

  it('exits 1 and names every refused block', async () => {
    // Prepare
    const owner = await service.newTenant('cli');
    const file = join(dir, 'unsupported.json');
    await writeFile(file, JSON.stringify(simUnsupported()));

    // Act
    const result = await importCommand([file, ...deployedServiceArgs(owner)]);

    // Assess
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('UNSUPPORTED_WORKFLOW');
    expect(result.stdout).toContain('blocks.slack-1');
    expect(result.stdout).toContain('blocks.eval-1');
  });
});
