import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { lockDataDir } from '../../../local/emulators/data-dir-lock';

const cleanups: Array<() => Promise<unknown>> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'workflow-service-lock-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** A process that has exited but is not reaped: its parent (`sleep`) never waits for it. */
async function zombiePid(): Promise<number> {
  // The child exits once its parent has become `sleep`: a shell would still have reaped it.
  const child = "sh -c 'until grep -q ^sleep /proc/$PPID/comm; do sleep 0.01; done'";
  const parent = spawn('sh', ['-c', `${child} & echo $!; exec sleep 30`], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  cleanups.push(async () => parent.kill('SIGKILL'));
  for await (const line of createInterface({ input: parent.stdout! })) {
    const pid = Number(line);
    // Until it has exited it is not yet a zombie.
    await expect
      .poll(async () => (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]?.[0])
      .toBe('Z');
    return pid;
  }
  throw new Error('no pid');
}

describe('lockDataDir', () => {
  it.runIf(process.platform === 'linux')(
    'takes over a lock whose holder was killed but is not reaped yet',
    async () => {
      // Prepare
      const dataDir = await tempDir();
      await writeFile(join(dataDir, 'stack.lock'), String(await zombiePid()));

      // Act
      const release = await lockDataDir(dataDir);

      // Assess
      expect(await readFile(join(dataDir, 'stack.lock'), 'utf8')).toBe(String(process.pid));
      await release();
    },
  );

  it('refuses a lock whose holder runs', async () => {
    // Prepare
    const dataDir = await tempDir();
    const holder = spawn('sleep', ['30'], { stdio: 'ignore' });
    cleanups.push(async () => holder.kill('SIGKILL'));
    await writeFile(join(dataDir, 'stack.lock'), String(holder.pid));

    // Act
    const taking = lockDataDir(dataDir);

    // Assess
    await expect(taking).rejects.toThrow(`in use by another running stack (process ${holder.pid})`);
  });
});
