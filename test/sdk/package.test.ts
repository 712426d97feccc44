/**
 * The built package as its users run it: installed into a project of its own, imported as an ES
 * module and required as CommonJS, on Node 16 (the oldest supported, no global fetch) and on the
 * Node running the tests, against the local service; and no timer left running after the calls.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromProjectRoot } from '../../lib/project';
import { oldestSupported } from '../../scripts/oldest-supported';
import { deployedWorkflow, fileEchoGraph, useLocalService, waitingGraph } from '../support/service';

const service = useLocalService();

/** What the consumer scripts need to know: where the service is, a key, and three workflows. */
let caseJson: string;
let projectDir: string;
let node16: string;

/** Runs every operation and prints what it saw as JSON; the process must then end by itself. */
const esmScript = `
import { WorkflowClient, signatureHeaderOf, verifyWebhookSignature } from 'workflow-service-sdk';
const { url, apiKey, shout, echo, slow } = JSON.parse(process.env.SDK_CASE);
const client = new WorkflowClient({ apiKey, baseUrl: url });
const report = { runtime: process.version, globalFetch: typeof globalThis.fetch === 'function' };
report.sync = (await client.execute(shout, { input: { name: 'ada' } })).output;
const accepted = await client.execute(shout, { input: { name: 'bob' }, async: true });
const job = await client.waitForJob(accepted.taskId, { pollIntervalInMs: 20 });
report.job = [job.status, job.output];
const events = [];
for await (const event of await client.stream(shout, { input: { name: 'cy' }, selectedOutputs: ['Shout.result'] })) {
  events.push(event.event === 'chunk' ? event.chunk : event.event);
}
report.stream = events;
const file = (await client.execute(echo, { input: { docs: Buffer.from('some bytes') } })).output.docs[0];
report.file = [file.name, file.size];
report.ready = await client.validateWorkflow(shout);
report.status = (await client.getWorkflowStatus(shout)).isDeployed;
report.plan = (await client.getUsageLimits()).usage.plan;
report.rateLimit = client.getRateLimitInfo().limit;
report.timeout = await client.execute(slow, { timeout: 200 }).catch((error) => error.code);
report.retried = (await client.executeWithRetry(shout, { input: { name: 'dee' } })).output;
report.positional = (await client.execute(shout, { name: 'pos' }, {})).output;
const header = signatureHeaderOf('whsec_s', Date.now(), '{}');
report.signature = verifyWebhookSignature('whsec_s', header, '{}').valid;
report.timers = process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length;
console.log(JSON.stringify(report));
`;

const cjsScript = `
const sdk = require('workflow-service-sdk');
const { url, apiKey, shout } = JSON.parse(process.env.SDK_CASE);
(async () => {
  const client = new sdk.SimStudioClient({ apiKey, baseUrl: url });
  const report = { sameClass: sdk.default === sdk.WorkflowClient && sdk.SimStudioClient === sdk.WorkflowClient };
  report.sync = (await client.executeWorkflow(shout, { name: 'ada' })).output;
  report.streamed = (await client.executeWorkflow(shout, { name: 'eve' }, { stream: true })).output;
  report.error = await client.getJobStatus('no-such-task').catch((error) => [error instanceof sdk.SimStudioError, error.code, error.status]);
  console.log(JSON.stringify(report));
})().catch((error) => { console.error(error); process.exit(1); });
`;

/** The public client, for comparison: its time-out timer outlives the call. */
const publicClientScript = (moduleUrl: string) => `
import { SimStudioClient } from ${JSON.stringify(moduleUrl)};
const { url, apiKey, shout } = JSON.parse(process.env.SDK_CASE);
await new SimStudioClient({ apiKey, baseUrl: url }).executeWorkflow(shout, { name: 'ada' });
console.log(JSON.stringify({ timers: process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length }));
process.exit(0);
`;

/**
 * Runs a script of the consumer project with `node`; answers its parsed output. Killed after 20 s,
 * well under the 30 s default time-out, so a timer left running fails the test.
 */
function run(node: string, script: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    execFile(
      node,
      [join(projectDir, script)],
      { cwd: projectDir, timeout: 20_000, env: { PATH: process.env.PATH, SDK_CASE: caseJson } },
      (error, stdout, stderr) => {
        if (error) {
          const why = error.killed ? 'was still running after 20 s (something kept it alive)' : 'failed';
          reject(new Error(`${script} on ${node} ${why}: ${error.message}\n${stderr}`));
          return;
        }
        resolve(JSON.parse(stdout.trim().split('\n').pop() ?? '{}'));
      },
    );
  });
}

beforeAll(async () => {
  node16 = oldestSupported().node;
  projectDir = await mkdtemp(join(tmpdir(), 'sdk-consumer-'));
  const packageDir = join(projectDir, 'node_modules', 'workflow-service-sdk');
  await mkdir(packageDir, { recursive: true });
  execFileSync(process.execPath, [fromProjectRoot('sdk/scripts/build.mjs'), packageDir], { stdio: 'pipe' });
  const publicClient = pathToFileURL(fromProjectRoot('node_modules/simstudio-ts-sdk/dist/index.js')).href;
  await writeFile(join(projectDir, 'package.json'), '{"name":"consumer","private":true}\n');
  await writeFile(join(projectDir, 'operations.mjs'), esmScript);
  await writeFile(join(projectDir, 'compatible.cjs'), cjsScript);
  await writeFile(join(projectDir, 'public-client.mjs'), publicClientScript(publicClient));

  const tenant = await service.get().newTenant('package');
  const shout = await deployedWorkflow(tenant);
  const echo = await deployedWorkflow(tenant, fileEchoGraph());
  const slow = await deployedWorkflow(tenant, waitingGraph(2_000));
  caseJson = JSON.stringify({ url: service.get().url, apiKey: tenant.apiKey, shout, echo, slow });
}, 180_000);

afterAll(async () => {
  if (projectDir) await rm(projectDir, { recursive: true, force: true });
});

const expectedOperations = {
  sync: { shouted: 'ADA' },
  job: ['completed', { shouted: 'BOB' }],
  stream: ['CY', 'done', 'end'],
  file: ['file', 'some bytes'.length],
  ready: true,
  status: true,
  plan: 'free',
  rateLimit: 1_000_000,
  timeout: 'TIMEOUT',
  retried: { shouted: 'DEE' },
  positional: { shouted: 'POS' },
  signature: true,
};

describe('the built package', () => {
  it('runs every operation on Node 16, over node:http, with no timer left running afterwards', async () => {
    // Act
    const report = await run(node16, 'operations.mjs');

    // Assess
    expect(report).toEqual({
      runtime: 'v16.20.2',
      globalFetch: false,
      ...expectedOperations,
      timers: 0,
    });
  });

  it('is required as CommonJS on Node 16 under the names of simstudio-ts-sdk', async () => {
    // Act
    const report = await run(node16, 'compatible.cjs');

    // Assess
    expect(report).toEqual({
      sameClass: true,
      sync: { shouted: 'ADA' },
      streamed: { shouted: 'EVE' },
      error: [true, 'NOT_FOUND', 404],
    });
  });

  it('runs every operation on this Node, over its fetch, with no timer left running afterwards', async () => {
    // Act
    const report = await run(process.execPath, 'operations.mjs');

    // Assess
    expect(report).toEqual({ runtime: process.version, globalFetch: true, ...expectedOperations, timers: 0 });
  });

  it('(the same check catches the public client, whose 30 s time-out timer outlives its call)', async () => {
    // Act
    const report = await run(process.execPath, 'public-client.mjs');

    // Assess
    expect(report).toEqual({ timers: 1 });
  });
});
