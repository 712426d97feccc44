/**
 * Importing a Sim workspace or folder ZIP over HTTP against the local emulators: every workflow with
 * child references mapped between them, one answer per workflow, one refused workflow not stopping
 * the others, and the archive's defences (bad entry, ZIP bomb, 50 MB) each a clear 4xx.
 */
import { readFileSync } from 'node:fs';
import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { fromProjectRoot } from '../../../lib/project';
import { type Tenant, useLocalService } from '../../support/service';
import {
  postArchive,
  simGreeting,
  simParent,
  simUnsupported,
  simWorkspaceZip,
} from '../../support/sim-files';

const service = useLocalService();

const childId = '7c2d4a10-1b2c-4d3e-8f90-0a1b2c3d4e5f';
const parentId = '0b1e2f30-4a5b-4c6d-9e8f-102132435465';
const unsupportedId = '5f4e3d2c-1b0a-4987-8765-43210fedcba9';

function archive(extraEntries: Record<string, Uint8Array> = {}) {
  return simWorkspaceZip(
    [
      { id: childId, folder: 'Helpers', file: simGreeting('Greeter') },
      { id: parentId, file: simParent(childId) },
      { id: unsupportedId, file: simUnsupported('Slack digest') },
    ],
    extraEntries,
  );
}

/** The archive sent into the tenant's own workspace. */
function sent(owner: Tenant, body: Uint8Array, query: Record<string, string> = {}) {
  return postArchive(service.get().url, owner.apiKey, { workspaceId: owner.workspaceId, ...query }, body);
}

async function workflowCount(owner: Tenant): Promise<number> {
  return (await owner.call('GET', `/api/workflows?workspaceId=${owner.workspaceId}`)).body.data.length;
}

describe('POST /api/workflows/import with a Sim workspace ZIP', () => {
  it('imports every workflow, answers per workflow, and the parent calls its imported child', async () => {
    // Prepare
    const owner = await service.get().newTenant('mover');

    // Act
    const answer = await sent(owner, archive(), { deploy: 'true' });

    // Assess
    expect(answer.status).toBe(201);
    const results = answer.body.data.workflows as {
      sourceName: string;
      id?: string;
      error?: { code: string };
    }[];
    expect(results.map((result) => result.sourceName).sort()).toEqual(['Greeter', 'Parent', 'Slack digest']);
    const byName = Object.fromEntries(results.map((result) => [result.sourceName, result]));
    expect(byName['Slack digest']).toMatchObject({ error: { code: 'UNSUPPORTED_WORKFLOW' } });
    expect(byName['Slack digest'].id).toBeUndefined();
    expect(byName.Greeter.id).toEqual(expect.any(String));
    expect(await workflowCount(owner)).toBe(2);
    const run = await owner.call('POST', `/api/workflows/${byName.Parent.id}/execute`, {});
    expect(run.status).toBe(200);
    expect(run.body.output).toMatchObject({ success: true, result: { greeting: 'Hello, Lin!' } });
  });

  it("maps the fixtures' parent to its child by the child's Sim id, and the parent runs it", async () => {
    // Prepare
    const owner = await service.get().newTenant('mover');
    // Sim names an archive's files after the workflows' ids, which are UUIDs.
    const sourceChildId = '3a9e1c2b-5d6f-4a7b-8c9d-0e1f2a3b4c5d';
    const fixture = (name: string) =>
      JSON.parse(
        readFileSync(fromProjectRoot(`test/fixtures/sim/${name}`), 'utf8').replaceAll(
          'source-child-id',
          sourceChildId,
        ),
      );
    const body = simWorkspaceZip([
      { id: sourceChildId, file: fixture('workflow-child.json') },
      { id: parentId, folder: 'Callers', file: fixture('workflow.json') },
    ]);

    // Act
    const answer = await sent(owner, body, { deploy: 'true' });
    const parent = answer.body.data.workflows.find((result: { path: string }) =>
      result.path.startsWith('Callers/'),
    );
    const run = await owner.call('POST', `/api/workflows/${parent.id}/execute`, {
      text: 'hey',
      payload: { text: 'first' },
    });

    // Assess
    expect(answer.status).toBe(201);
    expect(parent.warnings).toEqual([]);
    expect(run.status).toBe(200);
    expect(run.body.output).toMatchObject({ success: true, result: { result: 'HEY' } });
  });

  it('refuses an archive with an entry that is not JSON with 400 naming the entry, storing nothing', async () => {
    // Prepare
    const owner = await service.get().newTenant('mover');
    const body = archive({ 'Broken-1.json': strToU8('{"version": "1.0", "state": ') });

    // Act
    const answer = await sent(owner, body);

    // Assess
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatch(/Broken-1\.json/);
    expect(await workflowCount(owner)).toBe(0);
  });

  it('refuses a ZIP bomb with 413 naming the compression ratio limit', async () => {
    // Prepare
    const owner = await service.get().newTenant('mover');
    const bomb = zipSync({ 'bomb.json': new Uint8Array(4 * 1024 * 1024).fill(0x20) }, { level: 9 });

    // Act
    const answer = await sent(owner, bomb);

    // Assess
    expect(answer.status).toBe(413);
    expect(answer.body.error).toMatch(/bomb\.json is compressed \d+ to 1, over the ratio of 100 to 1/);
    expect(await workflowCount(owner)).toBe(0);
  });

  it('refuses a 50 MB file with 413', async () => {
    // Prepare
    const owner = await service.get().newTenant('mover');

    // Act
    const answer = await sent(owner, new Uint8Array(50 * 1024 * 1024));

    // Assess
    expect(answer.status).toBe(413);
    expect(answer.body.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('refuses an archive over 4 MB with 413 naming the limit', async () => {
    // Prepare
    const owner = await service.get().newTenant('mover');
    // Random bytes do not compress: a stored entry as large as the archive.
    const noise = new Uint8Array(Math.floor(4.2 * 1024 * 1024)).map(() => Math.floor(Math.random() * 256));
    const large = zipSync({ 'noise.json': noise }, { level: 0 });

    // Act
    const answer = await sent(owner, large);

    // Assess
    expect(answer.status).toBe(413);
    expect(answer.body.error).toMatch(/over the 4 MB an archive may have/);
  });

  it('refuses an archive without workspaceId in the query with 400 naming it', async () => {
    // Prepare
    const owner = await service.get().newTenant('mover');

    // Act
    const answer = await postArchive(service.get().url, owner.apiKey, {}, archive());

    // Assess
    expect(answer.status).toBe(400);
    expect(answer.body.details[0].path).toBe('workspaceId');
  });

  it('refuses a body that is no ZIP archive with 400', async () => {
    // Prepare
    const owner = await service.get().newTenant('mover');

    // Act
    const answer = await sent(owner, strToU8('this is not a zip archive'));

    // Assess
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatch(/not a readable ZIP archive/);
  });
});
