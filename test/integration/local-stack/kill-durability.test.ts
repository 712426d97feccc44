/**
 * Nothing acknowledged is lost: the local service is killed (SIGKILL, its whole process group) in
 * the middle of a burst of writes, restarted on the same data dir, and every write it had answered
 * 2xx must be there with the value it acknowledged.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { repoRoot } from '../../../local/service';

const adminKey = 'kill-test-admin-key';
const concurrency = 16;
/** The kill comes after this many acknowledged writes, while the next ones are in flight. */
const acknowledgedBeforeKill = Number(process.env.KILL_AFTER_ACKNOWLEDGED_WRITES ?? 300);

interface Running {
  child: ChildProcess;
  url: string;
}

const started: ChildProcess[] = [];

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** `npm start` as a user runs it, in a process group of its own so that the kill takes all of it. */
async function startService(dataDir: string): Promise<Running> {
  const port = await freePort();
  // What `npm start` runs: the tsx command line, which starts the service in a child process.
  const child = spawn(process.execPath, [join(repoRoot, 'node_modules/tsx/dist/cli.mjs'), 'local/main.ts'], {
    cwd: repoRoot,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      ADMIN_API_KEY: adminKey,
      POWERTOOLS_LOG_LEVEL: 'SILENT',
      AWS_SDK_JS_SUPPRESS_WARNINGS: '1',
    },
  });
  started.push(child);
  child.stderr?.resume();
  const lines = createInterface({ input: child.stdout! });
  for await (const line of lines) {
    if (line.startsWith('Workflow service listening on')) {
      child.stdout?.resume();
      return { child, url: `http://127.0.0.1:${port}` };
    }
  }
  throw new Error('The service ended before it was ready');
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

type Write =
  | { kind: 'environment'; name: string; value: string }
  /** `version` 0 is the create, 1 the rename: a rename still in flight at the kill may have landed. */
  | { kind: 'workflow'; id: string; name: string; version: number };

const workflowVersion = (name: string) => (name.startsWith('Renamed') ? 1 : 0);

afterEach(async () => {
  await Promise.all(started.splice(0).map(killGroup));
});

describe('writes acknowledged before a SIGKILL', () => {
  it('are all there after a restart', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'workflow-service-kill-'));
    try {
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
      let inFlight = 0;
      let killed = false;
      let next = 0;
      let reachedTarget: () => void;
      const target = new Promise<void>((resolve) => {
        reachedTarget = resolve;
      });
      const acknowledge = (write: Write) => {
        if (killed) return;
        acknowledged.push(write);
        if (acknowledged.length >= acknowledgedBeforeKill) reachedTarget();
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
              if (put.status < 300) acknowledge({ kind: 'environment', name, value });
            } else {
              const created = await call(first.url, 'POST', '/api/workflows', auth, {
                workspaceId,
                name: `Flow ${n}`,
              });
              if (created.status >= 300) continue;
              acknowledge({ kind: 'workflow', id: created.body.data.id, name: `Flow ${n}`, version: 0 });
              const renamed = await call(first.url, 'PUT', `/api/workflows/${created.body.data.id}`, auth, {
                name: `Renamed ${n}`,
              });
              if (renamed.status < 300)
                acknowledge({ kind: 'workflow', id: created.body.data.id, name: `Renamed ${n}`, version: 1 });
            }
          } catch {
            // A request cut off by the kill was never acknowledged.
          } finally {
            inFlight -= 1;
          }
        }
      };
      const writers = Array.from({ length: concurrency }, writer);
      await target;
      const inFlightAtKill = inFlight;
      killed = true;
      await killGroup(first.child);
      await Promise.all(writers);

      // Assess: every acknowledged write, with its last acknowledged value.
      const second = await startService(dataDir);
      const environment = await call(second.url, 'GET', `/api/workspaces/${workspaceId}/environment`, auth);
      const values = new Map<string, string>(
        environment.body.data.map((entry: { name: string; value: string }) => [entry.name, entry.value]),
      );
      const lastAcknowledged = new Map<string, Extract<Write, { kind: 'workflow' }>>();
      for (const write of acknowledged) if (write.kind === 'workflow') lastAcknowledged.set(write.id, write);
      const missing: string[] = [];
      for (const write of acknowledged) {
        if (write.kind === 'environment' && values.get(write.name) !== write.value)
          missing.push(`${write.name}=${write.value}`);
      }
      for (const [id, write] of lastAcknowledged) {
        const workflow = await call(second.url, 'GET', `/api/workflows/${id}`, auth);
        const found = workflow.status === 200 ? (workflow.body.data.name as string) : undefined;
        if (found === undefined || workflowVersion(found) < write.version)
          missing.push(`${id} named ${write.name}`);
      }
      expect(acknowledged.length).toBeGreaterThanOrEqual(acknowledgedBeforeKill);
      expect(inFlightAtKill).toBeGreaterThan(0);
      expect(missing).toEqual([]);
    } finally {
      await Promise.all(started.splice(0).map(killGroup));
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
