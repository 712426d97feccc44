/**
 * Nothing acknowledged is lost when the local service is killed (SIGKILL, its whole process group):
 *
 * - in the middle of a burst of writes of several kinds, restarted on the same data dir, every
 *   write it had answered 2xx is there with the value it acknowledged;
 * - in the middle of an S3 upload that replaces an object, the object answered before is still
 *   whole after a restart;
 * - while asynchronous runs sleep in their Wait state, every one of them resumes after a restart
 *   and its job completes with its output.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { afterEach, describe, expect, it } from 'vitest';
import { INLINE_LIMIT_IN_BYTES } from '../../../adapters/dynamodb/dynamo-table';
import { repoRoot } from '../../../local/service';
import { unreachableRateLimitsJson } from '../../../support/limits';

// Ten jobs of one workspace in progress at once: out of reach of the plan's cap on runs in progress.
process.env.RATE_LIMITS_JSON = unreachableRateLimitsJson;

const adminKey = 'kill-test-admin-key';
const concurrency = 16;
/** The kill comes after this many acknowledged writes, while the next ones are in flight. */
const acknowledgedBeforeKill = Number(process.env.KILL_AFTER_ACKNOWLEDGED_WRITES ?? 300);
/** Answers other than 2xx before the kill mean the burst is broken, not slow: the test stops early. */
const maxRefusals = 20;

const started: ChildProcess[] = [];

afterEach(async () => {
  await Promise.all(started.splice(0).map(killGroup));
});

/** Spawns `args` in a process group of its own (so the kill takes all of it); answers its first line matching `ready`. */
async function spawnGroup(
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
): Promise<{ child: ChildProcess; line: string }> {
  const child = spawn(process.execPath, args, {
    cwd: repoRoot,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'SILENT', AWS_SDK_JS_SUPPRESS_WARNINGS: '1', ...env },
  });
  started.push(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const lines = createInterface({ input: child.stdout! });
  for await (const line of lines) {
    if (ready.test(line)) {
      child.stdout?.resume();
      return { child, line };
    }
  }
  throw new Error(`The process ended before it was ready:\n${stderr}`);
}

function killGroup(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      resolve();
    }
  });
}

async function withDataDir(run: (dataDir: string) => Promise<void>): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'workflow-service-kill-'));
  try {
    await run(dataDir);
  } finally {
    await Promise.all(started.splice(0).map(killGroup));
    await rm(dataDir, { recursive: true, force: true });
  }
}

describe('writes acknowledged before a SIGKILL of the service', () => {
  interface Running {
    child: ChildProcess;
    url: string;
  }

  /** `npm start` as a user runs it: the tsx command line, which starts the service in a child process. */
  async function startService(dataDir: string): Promise<Running> {
    // Port 0: a port probed free and then handed over can be taken meanwhile by any other listener
    // (the service's own emulators included), so the service picks one and names it when ready.
    const { child, line } = await spawnGroup(
      [join(repoRoot, 'node_modules/tsx/dist/cli.mjs'), 'local/main.ts'],
      { DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', ADMIN_API_KEY: adminKey },
      /^Workflow service listening on /,
    );
    const port = /listening on http:\/\/[^:]+:(\d+)/.exec(line)?.[1];
    return { child, url: `http://127.0.0.1:${port}` };
  }

  async function call(
    url: string,
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: unknown,
  ) {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  }

  /** Larger than an item may hold inline, so its graph is kept in S3 and the item points at it. */
  function largeGraph(tag: string) {
    return {
      blocks: {
        start: { id: 'start', type: 'start', name: 'Start', parentId: null, enabled: true, config: {} },
        work: {
          id: 'work',
          type: 'function',
          name: 'Work',
          parentId: null,
          enabled: true,
          config: { code: `// ${tag}\n// ${'x'.repeat(INLINE_LIMIT_IN_BYTES)}\nreturn 1;` },
        },
      },
      edges: [{ id: 'e1', source: 'start', target: 'work', sourceHandle: 'source' }],
      loops: {},
      parallels: {},
    };
  }

  type Write =
    | { kind: 'environment'; name: string; value: string }
    /**
     * Steps of one workflow, each after the last: 0 created, 1 renamed, 2 deployed. A step still in
     * flight at the kill may have landed, so what is found may be ahead of the last acknowledged step.
     */
    | { kind: 'workflow'; id: string; step: 0 | 1 | 2; large: boolean };

  it('are all there after a restart', async () => {
    await withDataDir(async (dataDir) => {
      // Prepare: a user, a workspace and a key on a running service.
      const first = await startService(dataDir);
      const admin = { 'x-admin-key': adminKey };
      const user = await call(first.url, 'POST', '/api/v1/admin/users', admin, {
        email: 'kill@example.com',
        name: 'Kill',
      });
      const key = await call(first.url, 'POST', `/api/v1/admin/users/${user.body.data.id}/api-keys`, admin, {
        name: 'k',
      });
      const workspace = await call(first.url, 'POST', '/api/v1/admin/workspaces', admin, {
        name: 'W',
        ownerId: user.body.data.id,
      });
      const auth = { 'x-api-key': key.body.data.key };
      const workspaceId = workspace.body.data.id;

      // Act: writers of several kinds until enough are acknowledged, then the kill while more are in flight.
      const acknowledged: Write[] = [];
      const refusals: string[] = [];
      let inFlight = 0;
      let killed = false;
      let next = 0;
      let reachedTarget!: () => void;
      let burstBroken!: (error: Error) => void;
      const target = new Promise<void>((resolve, reject) => {
        reachedTarget = resolve;
        burstBroken = reject;
      });
      const acknowledge = (write: Write) => {
        if (killed) return;
        acknowledged.push(write);
        if (acknowledged.length >= acknowledgedBeforeKill) reachedTarget();
      };
      const answered = (what: string, answer: { status: number; body: unknown }) => {
        if (answer.status < 300) return true;
        if (!killed) refusals.push(`${what}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`);
        if (refusals.length >= maxRefusals) burstBroken(new Error(`Writes refused:\n${refusals.join('\n')}`));
        return false;
      };
      const writer = async () => {
        while (!killed) {
          const n = next++;
          inFlight += 1;
          try {
            if (n % 2 === 0) {
              const name = `VAR_${n}`;
              const value = `value-${n}`;
              const put = await call(
                first.url,
                'PUT',
                `/api/workspaces/${workspaceId}/environment/${name}`,
                auth,
                { value },
              );
              if (answered('environment PUT', put)) acknowledge({ kind: 'environment', name, value });
            } else {
              const large = n % 8 === 1;
              const created = await call(first.url, 'POST', '/api/workflows', auth, {
                workspaceId,
                name: `Flow ${n}`,
                ...(large ? { state: largeGraph(`flow ${n}`) } : {}),
              });
              if (!answered('workflow create', created)) continue;
              const id = created.body.data.id as string;
              acknowledge({ kind: 'workflow', id, step: 0, large });
              const renamed = await call(first.url, 'PUT', `/api/workflows/${id}`, auth, {
                name: `Renamed ${n}`,
              });
              if (!answered('workflow rename', renamed)) continue;
              acknowledge({ kind: 'workflow', id, step: 1, large });
              if (n % 4 !== 3) continue;
              const deployed = await call(first.url, 'POST', `/api/workflows/${id}/deploy`, auth);
              if (answered('workflow deploy', deployed))
                acknowledge({ kind: 'workflow', id, step: 2, large });
            }
          } catch {
            // A request cut off by the kill was never acknowledged.
          } finally {
            inFlight -= 1;
          }
        }
      };
      const writers = Array.from({ length: concurrency }, writer);
      try {
        await target;
      } finally {
        killed = true;
      }
      const inFlightAtKill = inFlight;
      await killGroup(first.child);
      await Promise.all(writers);

      // Assess: every acknowledged write, with its last acknowledged value.
      const second = await startService(dataDir);
      const environment = await call(second.url, 'GET', `/api/workspaces/${workspaceId}/environment`, auth);
      const values = new Map<string, string>(
        environment.body.data.map((entry: { name: string; value: string }) => [entry.name, entry.value]),
      );
      const lastStep = new Map<string, Extract<Write, { kind: 'workflow' }>>();
      for (const write of acknowledged) if (write.kind === 'workflow') lastStep.set(write.id, write);
      const missing: string[] = [];
      for (const write of acknowledged) {
        if (write.kind === 'environment' && values.get(write.name) !== write.value)
          missing.push(`${write.name}=${write.value} (found ${values.get(write.name)})`);
      }
      for (const [id, write] of lastStep) {
        const workflow = await call(second.url, 'GET', `/api/workflows/${id}`, auth);
        const found = workflow.body?.data as { name: string; isDeployed: boolean } | undefined;
        const renamed = found?.name.startsWith('Renamed') ?? false;
        if (workflow.status !== 200) missing.push(`${id} at step ${write.step}: ${workflow.status}`);
        else if ((write.step >= 1 && !renamed) || (write.step === 2 && !found?.isDeployed))
          missing.push(`${id} at step ${write.step}: found ${JSON.stringify(found)}`);
      }
      const workflows = [...lastStep.values()];
      expect(acknowledged.length).toBeGreaterThanOrEqual(Math.max(50, acknowledgedBeforeKill));
      expect(acknowledged.filter((write) => write.kind === 'environment').length).toBeGreaterThan(10);
      expect(workflows.filter((write) => write.step >= 1).length).toBeGreaterThan(10);
      expect(workflows.filter((write) => write.step === 2).length).toBeGreaterThan(3);
      expect(workflows.filter((write) => write.large).length).toBeGreaterThan(3);
      expect(inFlightAtKill).toBeGreaterThan(0);
      expect(missing).toEqual([]);
    });
  }, 120_000);
  it('lets async runs killed in the middle of a wait finish after a restart, each job completed with its output', async () => {
    await withDataDir(async (dataDir) => {
      // Prepare: a workflow that waits 3 s, and jobs that have started it
      const first = await startService(dataDir);
      const admin = { 'x-admin-key': adminKey };
      const user = await call(first.url, 'POST', '/api/v1/admin/users', admin, {
        email: 'jobs@example.com',
        name: 'J',
      });
      const key = await call(
        first.url,
        'POST',
        `/api/v1/admin/users/${user.body.data.id}/api-keys`,
        admin,
        {},
      );
      const workspace = await call(first.url, 'POST', '/api/v1/admin/workspaces', admin, {
        name: 'W',
        ownerId: user.body.data.id,
      });
      const auth = { 'x-api-key': key.body.data.key };
      const node = (id: string, type: string, config: Record<string, unknown>) => ({
        id,
        type,
        name: id,
        parentId: null,
        enabled: true,
        config,
      });
      const workflow = await call(first.url, 'POST', '/api/v1/admin/workflows/import', admin, {
        workspaceId: workspace.body.data.id,
        name: 'Waiting',
        deploy: true,
        state: {
          blocks: {
            start: node('start', 'start', { inputFormat: [{ name: 'n', type: 'number', required: true }] }),
            pause: node('pause', 'wait', { durationMs: 3000 }),
            respond: node('respond', 'response', { data: { n: '<start.n>' } }),
          },
          edges: [
            { id: 'e1', source: 'start', target: 'pause', sourceHandle: 'source' },
            { id: 'e2', source: 'pause', target: 'respond', sourceHandle: 'source' },
          ],
          loops: {},
          parallels: {},
        },
      });
      const workflowId = workflow.body.data.id;
      const taskIds: string[] = [];
      for (let n = 0; n < 10; n++) {
        const accepted = await call(
          first.url,
          'POST',
          `/api/workflows/${workflowId}/execute`,
          {
            ...auth,
            'x-execution-mode': 'async',
          },
          { n },
        );
        taskIds.push(accepted.body.taskId);
      }
      const statusOf = async (url: string, taskId: string) =>
        (await call(url, 'GET', `/api/jobs/${taskId}`, auth)).body;
      await expect
        .poll(
          async () =>
            (await Promise.all(taskIds.map((id) => statusOf(first.url, id)))).map((job) => job.status),
          {
            timeout: 20_000,
            interval: 100,
          },
        )
        .toEqual(Array(10).fill('processing'));

      // Act: the kill while every run sleeps in its Wait state, then a start on the same data dir
      await killGroup(first.child);
      const second = await startService(dataDir);
      await expect
        .poll(
          async () =>
            (await Promise.all(taskIds.map((id) => statusOf(second.url, id)))).map((job) => job.status),
          {
            timeout: 30_000,
            interval: 200,
          },
        )
        .toEqual(Array(10).fill('completed'));

      // Assess
      const jobs = await Promise.all(taskIds.map((id) => statusOf(second.url, id)));
      expect(jobs.map((job) => job.output)).toEqual(Array.from({ length: 10 }, (_, n) => ({ n })));
    });
  }, 120_000);
});

// The check that the upload reached the disk before the kill reads the process's I/O counters.
describe.skipIf(process.platform !== 'linux')(
  'an S3 object replaced by an upload a SIGKILL cuts short',
  () => {
    const bucketKey = 'kill/object.json';
    const size = 4 * 1024 * 1024;

    /** The local emulators alone, in a process of their own; answers their S3 endpoint and the files bucket. */
    async function startStack(dataDir: string) {
      const script = [
        "const { startLocalEmulators } = await import('./local/emulators/index.ts');",
        'const stack = await startLocalEmulators({ dataDir: process.env.DATA_DIR });',
        'console.log(JSON.stringify({ s3: stack.endpoints.s3, bucket: stack.env.FILES_BUCKET }));',
      ].join('\n');
      const { child, line } = await spawnGroup(
        ['--import', 'tsx', '--input-type=module', '-e', script],
        { DATA_DIR: dataDir },
        /^\{"s3":/,
      );
      const { s3, bucket } = JSON.parse(line) as { s3: string; bucket: string };
      const client = new S3Client({
        region: 'us-east-1',
        endpoint: s3,
        forcePathStyle: true,
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
      });
      return { child, client, bucket };
    }

    /** Bytes the process has handed to write(2) and its kin so far. */
    async function bytesWritten(pid: number): Promise<number> {
      const io = await readFile(`/proc/${pid}/io`, 'utf8');
      return Number(/^wchar: (\d+)$/m.exec(io)![1]);
    }

    async function until(condition: () => Promise<boolean>, what: string): Promise<void> {
      const deadline = Date.now() + 20_000;
      while (!(await condition())) {
        if (Date.now() > deadline) throw new Error(`Timed out waiting until ${what}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }

    it('is whole after a restart', async () => {
      await withDataDir(async (dataDir) => {
        // Prepare: an object acknowledged, then a replacement whose first half is sent and written.
        const first = await startStack(dataDir);
        const acknowledged = Buffer.alloc(size, 'a');
        await first.client.send(
          new PutObjectCommand({ Bucket: first.bucket, Key: bucketKey, Body: acknowledged }),
        );
        const url = await getSignedUrl(
          first.client,
          new PutObjectCommand({ Bucket: first.bucket, Key: bucketKey }),
          {
            expiresIn: 300,
          },
        );
        const before = await bytesWritten(first.child.pid!);
        const upload = httpRequest(url, { method: 'PUT', headers: { 'content-length': String(2 * size) } });
        upload.on('error', () => undefined);
        upload.write(Buffer.alloc(size, 'b'));
        await until(
          async () => (await bytesWritten(first.child.pid!)) - before >= size / 2,
          'the stack has written half of the replacement',
        );

        // Act
        await killGroup(first.child);
        upload.destroy();
        first.client.destroy();
        const second = await startStack(dataDir);
        const got = await second.client.send(new GetObjectCommand({ Bucket: second.bucket, Key: bucketKey }));
        const bytes = Buffer.from(await got.Body!.transformToByteArray());
        second.client.destroy();

        // Assess
        expect(bytes.length).toBe(size);
        expect(bytes.equals(acknowledged)).toBe(true);
      });
    }, 60_000);
  },
);
