/**
 * The embedded local emulators: the AWS APIs the service uses, on loopback, persistent under one data dir.
 *
 * - DynamoDB: dynalite on LevelDB (`<dataDir>/dynamodb`), in the emulator thread (./emulator-thread.ts)
 * - S3: s3rver (`<dataDir>/s3`), in this thread
 * - SQS: fauxqs with a durable journal (`<dataDir>/sqs`, see ./sqs.ts), in the emulator thread
 * - KMS: a key file per catalog key (`<dataDir>/secrets.key` unless `keyFiles` puts it elsewhere:
 *   32 random bytes, mode 0600), made on first start and kept; its path goes in the key's local
 *   variable (`ENVIRONMENT_KEY_FILE`)
 * - Secrets Manager: a key file per catalog secret (`<dataDir>/log-cursor.key`), its path in the
 *   secret's local variable (`LOG_CURSOR_KEY_FILE`)
 *
 * The catalog's tables, buckets and queues are created through the real AWS SDK clients, with the
 * local physical names (table = catalog key, bucket = catalog key, queue = catalog key plus a
 * `<name>-dlq` dead-letter queue). Executions run in process (./step-functions.ts), so there is no
 * Step Functions endpoint; the state machine ARNs in `env` only name the local machines.
 */
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { installClientDecorator, resetClients } from '../../adapters/aws/client-options';
import { withMetering } from '../../adapters/metering';
import { ensureLocalKeyFile } from '../../adapters/kms/local-key-wrapper';
import { buckets, keys, queues, secrets, stateMachines, tables } from '../../catalog/resources';
import { LOCAL_REGION, localStateMachineArn } from './constants';
import { lockDataDir } from './data-dir-lock';
import { ensureQueues, ensureTables } from './catalog-resources';
import { type EmulatorThread, startEmulatorThread } from './emulator-thread';
import type { RunningService } from './http-server';
import { ensureBuckets, LOCAL_ACCESS_KEY_ID, LOCAL_SECRET_ACCESS_KEY, startS3 } from './s3';
import { exportVariables } from '../settings';

// Every SDK client the service makes beside the local emulators is metered, for the cost model (bench/cost/).
installClientDecorator(withMetering);

export { LOCAL_ACCOUNT_ID, LOCAL_REGION, localStateMachineArn } from './constants';

export interface LocalEmulatorsOptions {
  /** Everything the stack stores lives under this directory; it is created if missing. */
  dataDir: string;
  /** Loopback address to listen on (default 127.0.0.1); ports are ephemeral. */
  host?: string;
  /**
   * Key files kept outside the data dir, by catalog key name: a copy of the data dir then holds
   * the encrypted secrets without the key that opens them.
   */
  keyFiles?: Partial<Record<keyof typeof keys, string>>;
}

export interface LocalEmulators {
  /** Every catalog envVar, the emulator endpoints, region and local credentials. */
  env: Record<string, string>;
  endpoints: { dynamodb: string; s3: string; sqs: string };
  /** URL of every local queue by name, dead-letter queues (`<name>-dlq`) included. */
  queueUrls: Record<string, string>;
  dataDir: string;
  /** Milliseconds from the call to a stack ready to serve, with its resources in place. */
  startupMs: number;
  /** Closes every server; LevelDB's lock is released, so the same dir can be started again at once. */
  stop(): Promise<void>;
}

export async function startLocalEmulators(options: LocalEmulatorsOptions): Promise<LocalEmulators> {
  const started = performance.now();
  const host = options.host ?? '127.0.0.1';
  const { dataDir } = options;
  await mkdir(dataDir, { recursive: true });
  const unlock = await lockDataDir(dataDir);

  const services: Array<Pick<RunningService, 'stop'>> = [];
  const stopAll = async () => {
    const results = await Promise.allSettled(services.map((service) => service.stop()));
    await unlock();
    const failure = results.find((result) => result.status === 'rejected');
    if (failure) throw (failure as PromiseRejectedResult).reason;
  };

  try {
    // allSettled, not all: when one emulator fails, the others have to be up before they can be stopped.
    // DynamoDB and SQS run in a thread of their own (./emulator-thread.ts), S3 in this one.
    const [emulatorsStart, s3Start] = await Promise.allSettled([
      startEmulatorThread({
        dynamodbPath: join(dataDir, 'dynamodb'),
        sqsDirectory: join(dataDir, 'sqs'),
        host,
      }),
      startS3(join(dataDir, 's3'), host),
    ]);
    for (const start of [emulatorsStart, s3Start]) {
      if (start.status === 'fulfilled') services.push(start.value);
    }
    for (const start of [emulatorsStart, s3Start]) if (start.status === 'rejected') throw start.reason;
    const emulators = (emulatorsStart as PromiseFulfilledResult<EmulatorThread>).value;
    const s3 = (s3Start as PromiseFulfilledResult<RunningService>).value;
    const dynamodb = { endpoint: emulators.endpoints.dynamodb };
    const sqs = { endpoint: emulators.endpoints.sqs };

    const credentials = { accessKeyId: LOCAL_ACCESS_KEY_ID, secretAccessKey: LOCAL_SECRET_ACCESS_KEY };
    const dynamoClient = new DynamoDBClient({
      region: LOCAL_REGION,
      endpoint: dynamodb.endpoint,
      credentials,
    });
    const s3Client = new S3Client({
      region: LOCAL_REGION,
      endpoint: s3.endpoint,
      credentials,
      forcePathStyle: true,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    const sqsClient = new SQSClient({ region: LOCAL_REGION, endpoint: sqs.endpoint, credentials });
    let queueUrls: Record<string, string>;
    try {
      [, , queueUrls] = await Promise.all([
        ensureTables(dynamoClient),
        ensureBuckets(s3Client),
        ensureQueues(sqsClient),
      ]);
    } finally {
      dynamoClient.destroy();
      s3Client.destroy();
      sqsClient.destroy();
    }

    const env: Record<string, string> = {
      AWS_REGION: LOCAL_REGION,
      AWS_ACCESS_KEY_ID: LOCAL_ACCESS_KEY_ID,
      AWS_SECRET_ACCESS_KEY: LOCAL_SECRET_ACCESS_KEY,
      DYNAMODB_ENDPOINT: dynamodb.endpoint,
      S3_ENDPOINT: s3.endpoint,
      SQS_ENDPOINT: sqs.endpoint,
    };
    for (const [name, table] of Object.entries(tables)) env[table.envVar] = name;
    for (const [name, bucket] of Object.entries(buckets)) env[bucket.envVar] = name;
    for (const [name, queue] of Object.entries(queues)) env[queue.envVar] = queueUrls[name];
    for (const [name, machine] of Object.entries(stateMachines))
      env[machine.envVar] = localStateMachineArn(name);
    for (const [name, key] of Object.entries(keys) as Array<
      [keyof typeof keys, (typeof keys)[keyof typeof keys]]
    >) {
      const path = options.keyFiles?.[name] || join(dataDir, key.local.fileName);
      await mkdir(dirname(path), { recursive: true });
      await ensureLocalKeyFile(path);
      env[key.local.envVar] = path;
    }
    // The service's own secrets (cursor signing) stay with the data they sign: under the data dir.
    for (const secret of Object.values(secrets)) {
      const path = join(dataDir, secret.local.fileName);
      await ensureLocalKeyFile(path);
      env[secret.local.envVar] = path;
    }

    // E-mail without SMTP_URL, and chat messages whose endpoint cannot be reached, are written here.
    env.NOTIFICATION_OUTBOX_DIR = join(dataDir, 'outbox');

    let stopping: Promise<void> | undefined;
    return {
      env,
      endpoints: { dynamodb: dynamodb.endpoint, s3: s3.endpoint, sqs: sqs.endpoint },
      queueUrls,
      dataDir,
      startupMs: Math.round(performance.now() - started),
      stop: () => {
        stopping ??= stopAll();
        return stopping;
      },
    };
  } catch (error) {
    await stopAll().catch(() => undefined);
    throw error;
  }
}

/** Puts the stack's variables into this process's environment and drops the cached SDK clients so they pick them up. */
export function applyEnv(env: Record<string, string>): void {
  exportVariables(env);
  resetClients();
}
