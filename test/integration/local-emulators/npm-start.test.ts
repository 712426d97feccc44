/**
 * `npm start` runs the compiled server as the process npm starts: a sync run works through the
 * compiled handlers (the sandbox's worker thread included), and SIGTERM to the `npm start` process
 * leaves no server behind: its process is gone and its port is free. The build is made once and
 * made again only when a source changes.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, stat, utimes } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../../local/service';
import { ensureServerBuild } from '../../../scripts/build-server.mjs';

// Inside the project, so that the compiled modules find node_modules; one per test process.
const buildDir = join(repoRoot, 'dist', `server-test-${process.pid}`);
const started: ChildProcess[] = [];

afterAll(async () => {
  for (const child of started) if (child.exitCode === null) process.kill(-child.pid!, 'SIGKILL');
  await rm(buildDir, { recursive: true, force: true });
});

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve(child.exitCode);
    child.once('exit', (code) => resolve(code));
  });
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function refusesConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

async function startService(dataDir: string) {
  const child = spawn('npm', ['start'], {
    cwd: repoRoot,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: '0',
      SERVER_BUILD_DIR: buildDir,
      AWS_SDK_JS_SUPPRESS_WARNINGS: '1',
    },
  });
  started.push(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const printed: string[] = [];
  for await (const line of createInterface({ input: child.stdout! })) {
    printed.push(line);
    if (line.includes('/api/openapi.json')) break;
  }
  child.stdout?.resume();
  const text = printed.join('\n');
  const ready = /listening on (http:\/\/\S+) .*process (\d+)\)/.exec(text);
  if (!ready) throw new Error(`npm start ended before it was ready:\n${text}\n${stderr}`);
  return {
    child,
    url: ready[1],
    pid: Number(ready[2]),
    apiKey: /x-api-key\): (\S+)/.exec(text)![1],
    helloPath: /(\/api\/workflows\/wf_\w+\/execute).*# Hello$/m.exec(text)![1],
  };
}

describe('npm start', () => {
  it('serves runs from the compiled server, and SIGTERM to it frees the port and ends the process', async () => {
    // Prepare
    const dataDir = await mkdtemp(join(tmpdir(), 'workflow-service-start-'));
    try {
      const service = await startService(dataDir);
      const port = Number(new URL(service.url).port);

      // Act
      const answer = await fetch(`${service.url}${service.helloPath}`, {
        method: 'POST',
        headers: { 'x-api-key': service.apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Ada' }),
      });
      const body = await answer.json();
      process.kill(service.child.pid!, 'SIGTERM');
      const exitCode = await exited(service.child);

      // Assess
      expect(answer.status).toBe(200);
      expect(body).toMatchObject({ success: true, output: { greeting: 'Hello, Ada!' } });
      expect(exitCode).toBe(0);
      expect(isRunning(service.pid)).toBe(false);
      expect(await refusesConnections(port)).toBe(true);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 60_000);

  it('stops gracefully when a Ctrl-C reaches it twice, from the terminal and passed on by npm', async () => {
    // Prepare
    const dataDir = await mkdtemp(join(tmpdir(), 'workflow-service-start-'));
    try {
      const service = await startService(dataDir);

      // Act: the second signal follows at once, as npm's forwarded copy does (a fixed wait between
      // the two raced the server's exit); a server already gone has nothing left to hear
      process.kill(service.pid, 'SIGINT');
      if (isRunning(service.pid)) process.kill(service.pid, 'SIGINT');
      const exitCode = await exited(service.child);

      // Assess
      expect(exitCode).toBe(0);
      expect(isRunning(service.pid)).toBe(false);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 60_000);

  it('builds again only when a source changed', async () => {
    // Prepare
    await ensureServerBuild(buildDir);
    const source = join(repoRoot, 'local', 'modules.ts');
    const { atime, mtime } = await stat(source);

    // Act
    const unchanged = await ensureServerBuild(buildDir);
    await utimes(source, atime, new Date(mtime.getTime() + 1000));
    const changed = await ensureServerBuild(buildDir).finally(() => utimes(source, atime, mtime));

    // Assess
    expect(unchanged).toBe(false);
    expect(changed).toBe(true);
  }, 60_000);
});
