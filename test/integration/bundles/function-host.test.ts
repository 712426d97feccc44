/**
 * The bundle mode's Lambda stand-in (local/bundles/function-host.ts and lambda-runtime.cjs) on small
 * artifacts written here: a function sees only its own environment, resolves only inside its asset
 * folder (but for the runtime's SDK), streams through awslambda.streamifyResponse, and is cut at its
 * time-out.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ResponseSink } from '../../../functions/http/streaming-route';
import { BundleFunction, LambdaInvocationError } from '../../../local/bundles/function-host';
import { streamParser } from '../../../local/bundles/response-stream';
import { projectRoot } from '../../../lib/project';

let root: string;
const started: BundleFunction[] = [];
const inProjectFolders: string[] = [];

/** An asset folder `<root>/<id>` with these files; the function made from it, with `environment`. */
async function artifact(
  id: string,
  files: Record<string, string>,
  environment: Record<string, string> = {},
  timeoutInSeconds = 10,
): Promise<BundleFunction> {
  const taskRoot = join(root, id);
  for (const [name, text] of Object.entries(files)) {
    await mkdir(join(taskRoot, name, '..'), { recursive: true });
    await writeFile(join(taskRoot, name), text);
  }
  const fn = new BundleFunction({
    id,
    taskRoot,
    environment,
    memoryInMb: 128,
    timeoutInSeconds,
    runtimeSdkDir: join(projectRoot, 'node_modules'),
  });
  started.push(fn);
  return fn;
}

/**
 * An asset folder inside the project (dist/), where Node would find the project's node_modules up the
 * tree; a package.json of its own keeps index.js CommonJS, as in Lambda's /var/task.
 */
async function inProjectArtifact(folder: string, id: string, indexJs: string, memoryInMb = 128) {
  const taskRoot = join(projectRoot, 'dist', folder, id);
  await mkdir(taskRoot, { recursive: true });
  await writeFile(join(projectRoot, 'dist', folder, 'package.json'), '{"type":"commonjs"}\n');
  await writeFile(join(taskRoot, 'index.js'), indexJs);
  const fn = new BundleFunction({
    id,
    taskRoot,
    environment: {},
    memoryInMb,
    timeoutInSeconds: 20,
    runtimeSdkDir: join(projectRoot, 'node_modules'),
  });
  started.push(fn);
  inProjectFolders.push(join(projectRoot, 'dist', folder));
  return fn;
}

function recordingSink() {
  const seen = { statusCode: 0, headers: {} as Record<string, string>, body: '', ended: false };
  const sink: ResponseSink = {
    start(statusCode, headers) {
      seen.statusCode = statusCode;
      seen.headers = headers;
    },
    write(text) {
      seen.body += text;
    },
    end() {
      seen.ended = true;
    },
  };
  return { seen, sink };
}

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'bundle-host-test-'));
});

afterEach(async () => {
  await Promise.all(started.splice(0).map((fn) => fn.stop()));
  await rm(root, { recursive: true, force: true });
  for (const folder of inProjectFolders.splice(0)) await rm(folder, { recursive: true, force: true });
});

describe('BundleFunction', () => {
  it('gives the handler its own environment and none of the host process', async () => {
    // Prepare
    process.env.ONLY_IN_THE_HOST = 'host value';
    const fn = await artifact(
      'env',
      {
        'index.js':
          'exports.handler = async () => ({ mine: process.env.FROM_TEMPLATE ?? null, host: process.env.ONLY_IN_THE_HOST ?? null });',
      },
      { FROM_TEMPLATE: 'template value' },
    );

    // Act
    const answer = await fn.invoke({});

    // Assess
    expect(answer).toEqual({ mine: 'template value', host: null });
    delete process.env.ONLY_IN_THE_HOST;
  });

  it('fails the invocation with an import error naming a side file the artifact lacks', async () => {
    // Prepare
    const fn = await artifact('side', {
      'index.js': "exports.handler = async () => require('./stream-run.js').run();",
    });

    // Act
    const failure = await fn.invoke({}).catch((error: unknown) => error);

    // Assess
    expect(failure).toBeInstanceOf(LambdaInvocationError);
    expect((failure as Error).message).toContain("Cannot find module './stream-run.js'");
  });

  it.each([
    [
      'require',
      'needs-zod',
      "require('zod'); exports.handler = async () => 'loaded';",
      "Cannot find module 'zod'",
    ],
    [
      'import()',
      'imports-croner',
      "exports.handler = async () => (await import('croner')).Cron.name;",
      "Cannot find package 'croner'",
    ],
  ])(
    'refuses by %s a package installed in the project but not beside the bundle',
    async (_how, id, indexJs, message) => {
      // Prepare: the package is in the project's node_modules, up the tree from the asset folder.
      const fn = await inProjectArtifact(`bundle-host-${id}`, id, indexJs);

      // Act
      const failure = await fn.invoke({}).catch((error: unknown) => error);

      // Assess
      expect((failure as Error).message).toContain(message);
      expect((failure as Error).message).toContain("not in the function's artifact");
    },
  );

  it("lets the bundle require the runtime's AWS SDK, as the nodejs22.x runtime provides it", async () => {
    // Prepare
    const fn = await inProjectArtifact(
      'bundle-host-sdk-test',
      'sdk',
      "const { SQSClient } = require('@aws-sdk/client-sqs'); exports.handler = async () => typeof SQSClient;",
      256,
    );

    // Act
    const answer = await fn.invoke({});

    // Assess
    expect(answer).toBe('function');
  });

  it('streams a streamified answer: the prelude gives status and headers, the rest is the body', async () => {
    // Prepare
    const fn = await artifact('stream', {
      'index.js': `exports.handler = awslambda.streamifyResponse(async (event, responseStream) => {
        const body = awslambda.HttpResponseStream.from(responseStream, { statusCode: 201, headers: { 'content-type': 'text/event-stream' } });
        body.write('data: one\\n\\n');
        await new Promise((resolve) => setTimeout(resolve, 10));
        body.write('data: ' + event.name + '\\n\\n');
        body.end();
      });`,
    });
    const { seen, sink } = recordingSink();

    // Act
    await fn.invokeStreaming({ name: 'two' }, streamParser(sink));

    // Assess
    expect(seen).toEqual({
      statusCode: 201,
      headers: { 'content-type': 'text/event-stream' },
      body: 'data: one\n\ndata: two\n\n',
      ended: true,
    });
  });

  it('refuses a streamed invocation of a handler that is not streamified', async () => {
    // Prepare
    const fn = await artifact('plain', {
      'index.js': "exports.handler = async () => ({ statusCode: 200, body: '' });",
    });

    // Act
    const failure = await fn.invokeStreaming({}, streamParser(recordingSink().sink)).catch((error) => error);

    // Assess
    expect((failure as Error).message).toContain('streamifyResponse');
  });

  it('ends a thread left idle, and the next invocation is a cold start', async () => {
    // Prepare
    const fn = new BundleFunction({
      ...(await artifact('idle', { 'index.js': 'exports.handler = async () => process.pid;' })).options,
      idleTimeoutInMs: 50,
    });
    started.push(fn);
    await fn.invoke({});

    // Act
    await new Promise((resolve) => setTimeout(resolve, 300));
    await fn.invoke({});

    // Assess
    expect(fn.coldStarts).toBe(2);
  });

  it('ends an invocation at its time-out and starts a new thread for the next one', async () => {
    // Prepare
    const fn = await artifact(
      'slow',
      {
        'index.js':
          'exports.handler = async (event) => { if (event.hang) await new Promise(() => {}); return "quick"; };',
      },
      {},
      1,
    );

    // Act
    const failure = await fn.invoke({ hang: true }).catch((error: unknown) => error);
    const next = await fn.invoke({});

    // Assess
    expect((failure as Error).name).toBe('Sandbox.Timedout');
    expect(next).toBe('quick');
    expect(fn.coldStarts).toBe(2);
  });
});
