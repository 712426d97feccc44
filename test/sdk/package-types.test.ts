/**
 * The built package's typings as a TypeScript 5.0 project sees them, with neither the DOM library
 * nor @types/node: as an ES module and as CommonJS (module resolution node16), through a bundler,
 * and through the old `types` field (node10). Wrong calls must not type-check.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromProjectRoot } from '../../lib/project';
import { oldestSupported } from '../../scripts/oldest-supported';

let projectDir: string;
let tsc: string;

/** Uses every operation with its types; the @ts-expect-error lines fail the check if the typings were loose. */
const usage = `
const client = new WorkflowClient({ apiKey: 'key', baseUrl: 'http://127.0.0.1:3000', timeoutInMs: 5000 });
export async function use(bytes: Uint8Array): Promise<string[]> {
  const result: WorkflowExecutionResult = await client.execute('wf', { input: { name: 'ada', file: bytes }, timeout: 5000 });
  const accepted: AsyncExecutionResult = await client.execute('wf', { input: {}, async: true });
  const stream: ExecutionStream = await client.execute('wf', { stream: true, selectedOutputs: ['a.b'] });
  const positional: WorkflowExecutionResult = await client.execute('wf', { name: 'ada' }, { timeout: 5000 });
  const queued: AsyncExecutionResult = await client.execute('wf', {}, { async: true });
  const seen: string[] = [];
  for await (const event of stream) {
    if (event.event === 'chunk') seen.push(event.blockId, event.chunk);
    if (event.event === 'done') seen.push(String(event.metadata.duration));
  }
  const retried: WorkflowExecutionResult = await client.executeWithRetry('wf', {}, {}, { maxRetries: 2 });
  const retriedJob: AsyncExecutionResult = await client.executeWithRetry('wf', { input: {}, async: true }, { maxRetries: 2 });
  const job: JobStatus = await client.waitForJob(accepted.taskId, { pollIntervalInMs: 10 });
  const state: 'queued' | 'processing' | 'completed' | 'failed' | 'cancelled' = job.status;
  const ready: boolean = await client.validateWorkflow('wf');
  const status: WorkflowStatus = await client.getWorkflowStatus('wf');
  const limits: UsageLimits = await client.getUsageLimits();
  const info: RateLimitInfo | null = client.getRateLimitInfo();
  client.setApiKey('other');
  client.setBaseUrl('http://127.0.0.1:3001');
  const check: SignatureCheck = verifyWebhookSignature('secret', 't=1,v1=00', '{}', 1);
  const error = new WorkflowClientError('x', 'TIMEOUT', 408);
  const legacy = new SimStudioClient({ apiKey: 'key' });
  const legacyError: SimStudioError = error;
  // @ts-expect-error: a workflow id is a string
  await client.execute(42);
  // @ts-expect-error: not an option
  await client.execute('wf', {}, { asynchronous: true });
  // @ts-expect-error: the input goes under input, not among the options
  await client.execute('wf', { name: 'ada' });
  // @ts-expect-error: the positional form takes the input as an argument, not an option
  await client.execute('wf', {}, { input: { name: 'ada' } });
  // @ts-expect-error: a synchronous result has no taskId
  result.taskId;
  seen.push(result.error ?? '', state, String(ready), String(status.isDeployed), limits.usage.plan);
  seen.push(String(info?.limit), String(check.valid), String(error.code), String(retried.success));
  seen.push(String(legacyError.status), String(legacy instanceof WorkflowClient));
  seen.push(String(positional.success), queued.taskId, retriedJob.taskId);
  return seen;
}
`;

const namedImports =
  'WorkflowClient, WorkflowClientError, verifyWebhookSignature, ExecutionStream, SimStudioClient, SimStudioError, ' +
  'type WorkflowExecutionResult, type AsyncExecutionResult, type JobStatus, type WorkflowStatus, ' +
  'type UsageLimits, type RateLimitInfo, type SignatureCheck';

const compilerOptions = {
  strict: true,
  noEmit: true,
  skipLibCheck: false,
  target: 'ES2020',
  lib: ['ES2020'],
  types: [],
};

/** A consumer project in `dir` whose tsconfig has these module settings. */
async function project(dir: string, settings: Record<string, string>, files: Record<string, string>) {
  const root = join(projectDir, dir);
  await mkdir(root, { recursive: true });
  for (const [name, text] of Object.entries(files)) await writeFile(join(root, name), text);
  const tsconfig = { compilerOptions: { ...compilerOptions, ...settings }, files: Object.keys(files) };
  await writeFile(join(root, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
  return root;
}

/** Runs TypeScript 5.0 on the project; answers its output (empty when it type-checks). */
function typeCheck(root: string): Promise<string> {
  return new Promise((resolve) => {
    execFile(process.execPath, [tsc, '-p', root, '--pretty', 'false'], (_error, stdout, stderr) =>
      resolve(`${stdout}${stderr}`.trim()),
    );
  });
}

beforeAll(async () => {
  tsc = oldestSupported().tsc;
  projectDir = await mkdtemp(join(tmpdir(), 'sdk-types-'));
  const packageDir = join(projectDir, 'node_modules', 'workflow-service-sdk');
  await mkdir(packageDir, { recursive: true });
  execFileSync(process.execPath, [fromProjectRoot('sdk/scripts/build.mjs'), packageDir], { stdio: 'pipe' });
  await writeFile(join(projectDir, 'package.json'), '{"name":"consumer","private":true}\n');
}, 120_000);

afterAll(async () => {
  if (projectDir) await rm(projectDir, { recursive: true, force: true });
});

describe('the typings of the built package under TypeScript 5.0', () => {
  it('check an ES module consumer (node16 resolution)', async () => {
    // Prepare
    const root = await project(
      'esm',
      { module: 'node16', moduleResolution: 'node16' },
      { 'esm.mts': `import { ${namedImports} } from 'workflow-service-sdk';\n${usage}` },
    );

    // Act
    const output = await typeCheck(root);

    // Assess
    expect(output).toBe('');
  });

  it('check a CommonJS consumer (node16 resolution), the default export included', async () => {
    // Prepare
    const root = await project(
      'cjs',
      { module: 'node16', moduleResolution: 'node16' },
      {
        'cjs.cts':
          `import { ${namedImports} } from 'workflow-service-sdk';\n` +
          `import sdk = require('workflow-service-sdk');\n` +
          `export const sameClass: typeof sdk.WorkflowClient = sdk.default;\n${usage}`,
      },
    );

    // Act
    const output = await typeCheck(root);

    // Assess
    expect(output).toBe('');
  });

  it('check through a bundler and through the types field (node10)', async () => {
    // Prepare
    const file = { 'consumer.ts': `import { ${namedImports} } from 'workflow-service-sdk';\n${usage}` };
    const bundler = await project('bundler', { module: 'esnext', moduleResolution: 'bundler' }, file);
    const node10 = await project('node10', { module: 'commonjs', moduleResolution: 'node10' }, file);

    // Act
    const outputs = [await typeCheck(bundler), await typeCheck(node10)];

    // Assess
    expect(outputs).toEqual(['', '']);
  });

  it('refuse a wrong call (the check can fail)', async () => {
    // Prepare
    const root = await project(
      'wrong',
      { module: 'node16', moduleResolution: 'node16' },
      {
        'wrong.mts':
          "import { WorkflowClient } from 'workflow-service-sdk';\n" +
          "export const answer = new WorkflowClient({ apiKey: 'k' }).execute('wf', { timeout: 'soon' });\n",
      },
    );

    // Act
    const output = await typeCheck(root);

    // Assess
    expect(output).toContain("Type 'string' is not assignable to type 'number'");
  });
});
