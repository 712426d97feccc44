import { spawn } from 'node:child_process';
import { appendFile, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import {
  DeleteMessageCommand,
  PurgeQueueCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { afterEach, describe, expect, it } from 'vitest';
import { queues } from '../../../catalog/resources';
import { type LocalEmulators, startLocalEmulators } from '../../../local/emulators';
import { clientsFor, makeTempDataDir } from '../../support/local-emulators';

describe('local emulators: SQS durability', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function tempDir(): Promise<string> {
    const dir = await makeTempDataDir();
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    return dir;
  }

  async function start(
    dataDir: string,
  ): Promise<{ stack: LocalEmulators; sqs: ReturnType<typeof clientsFor>['sqs'] }> {
    const stack = await startLocalEmulators({ dataDir });
    const clients = clientsFor(stack);
    cleanups.push(async () => {
      clients.destroy();
      await stack.stop();
    });
    return { stack, sqs: clients.sqs };
  }

  async function bodies(sqs: ReturnType<typeof clientsFor>['sqs'], QueueUrl: string): Promise<string[]> {
    const { Messages } = await sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10 }));
    return (Messages ?? []).map((message) => message.Body ?? '').sort();
  }

  it('brings back neither deleted nor purged messages after a restart', async () => {
    // Prepare
    const dataDir = await tempDir();
    const first = await start(dataDir);
    const jobs = first.stack.env.JOBS_QUEUE_URL;
    const notifications = first.stack.env.NOTIFICATIONS_QUEUE_URL;
    for (const body of ['done', 'open'])
      await first.sqs.send(new SendMessageCommand({ QueueUrl: jobs, MessageBody: body }));
    await first.sqs.send(new SendMessageCommand({ QueueUrl: notifications, MessageBody: 'purged' }));
    const { Messages } = await first.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: jobs, MaxNumberOfMessages: 10 }),
    );
    const done = Messages?.find((message) => message.Body === 'done');
    await first.sqs.send(new DeleteMessageCommand({ QueueUrl: jobs, ReceiptHandle: done?.ReceiptHandle }));
    await first.sqs.send(new PurgeQueueCommand({ QueueUrl: notifications }));
    await cleanups.pop()?.();

    // Act
    const second = await start(dataDir);
    const jobsAfter = await bodies(second.sqs, second.stack.env.JOBS_QUEUE_URL);
    const notificationsAfter = await bodies(second.sqs, second.stack.env.NOTIFICATIONS_QUEUE_URL);

    // Assess
    expect(jobsAfter).toEqual([]);
    expect(notificationsAfter).toEqual([]);
    const inFlight = await second.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: second.stack.env.JOBS_QUEUE_URL, VisibilityTimeout: 0 }),
    );
    expect(inFlight.Messages).toBeUndefined();
  });

  it('keeps a message that was moved to the DLQ in the DLQ after a restart', async () => {
    // Prepare
    const dataDir = await tempDir();
    const first = await start(dataDir);
    const QueueUrl = first.stack.env.NOTIFICATIONS_QUEUE_URL;
    await first.sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'undeliverable' }));
    for (let receive = 0; receive <= queues.notifications.maxReceiveCount; receive++) {
      await first.sqs.send(new ReceiveMessageCommand({ QueueUrl, VisibilityTimeout: 0 }));
    }
    await cleanups.pop()?.();

    // Act
    const second = await start(dataDir);
    const source = await bodies(second.sqs, second.stack.env.NOTIFICATIONS_QUEUE_URL);
    const dead = await second.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: second.stack.queueUrls['notifications-dlq'],
        MessageSystemAttributeNames: ['ApproximateReceiveCount'],
      }),
    );

    // Assess
    expect(source).toEqual([]);
    expect(dead.Messages?.map((message) => message.Body)).toEqual(['undeliverable']);
  });

  it('ignores a last journal line torn by a crash', async () => {
    // Prepare
    const dataDir = await tempDir();
    const first = await start(dataDir);
    await first.sqs.send(
      new SendMessageCommand({ QueueUrl: first.stack.env.JOBS_QUEUE_URL, MessageBody: 'whole' }),
    );
    await cleanups.pop()?.();
    await appendFile(join(dataDir, 'sqs', 'queues.jsonl'), '{"t":"m","q":"jobs","m":{"messageId":"tor');

    // Act
    const second = await start(dataDir);

    // Assess
    expect(await bodies(second.sqs, second.stack.env.JOBS_QUEUE_URL)).toEqual(['whole']);
    expect(await readFile(join(dataDir, 'sqs', 'queues.jsonl'), 'utf8')).not.toContain('"tor');
  });

  it('keeps every answered message when the process is killed without stopping', async () => {
    // Prepare
    const dataDir = await tempDir();
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        join(import.meta.dirname, 'fixtures', 'send-then-hang.ts'),
        dataDir,
        'one',
        'two',
        'three',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let errors = '';
    child.stderr.on('data', (chunk: Buffer) => {
      errors += chunk.toString();
    });
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('sent')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`child exited with ${code}: ${errors}`)));
    });

    // Act
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    const restarted = await start(dataDir);

    // Assess
    expect(await bodies(restarted.sqs, restarted.stack.env.JOBS_QUEUE_URL)).toEqual(['one', 'three', 'two']);
  });
});
