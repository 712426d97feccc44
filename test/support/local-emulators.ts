/**
 * Integration tests on the embedded local emulators: `const stack = useLocalEmulators();` at the top of a file
 * (or describe) starts a stack in a fresh temporary dir before its tests, points process.env and the
 * cached AWS SDK clients at it, and afterwards stops it, restores the environment and removes the dir.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll } from 'vitest';
import { resetClients } from '../../adapters/aws/client-options';
import { applyEnv, type LocalEmulators, startLocalEmulators } from '../../local/emulators';

/** A fresh, empty data dir under the OS temporary dir. */
export function makeTempDataDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'local-emulators-'));
}

export function useLocalEmulators(): () => LocalEmulators {
  let stack: LocalEmulators | undefined;
  let dataDir: string | undefined;
  let saved: Record<string, string | undefined> = {};

  beforeAll(async () => {
    dataDir = await makeTempDataDir();
    stack = await startLocalEmulators({ dataDir });
    saved = Object.fromEntries(Object.keys(stack.env).map((name) => [name, process.env[name]]));
    applyEnv(stack.env);
  });

  afterAll(async () => {
    try {
      await stack?.stop();
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
      resetClients();
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
      stack = undefined;
    }
  });

  return () => {
    if (!stack) throw new Error('The local emulators run only inside the tests of the file that uses it');
    return stack;
  };
}

export interface EmulatorClients {
  documents: DynamoDBDocumentClient;
  s3: S3Client;
  sqs: SQSClient;
  destroy(): void;
}

/** SDK clients bound to one stack's endpoints, configured as adapters/aws/*-client.ts configures them. */
export function clientsFor(stack: LocalEmulators): EmulatorClients {
  const common = {
    region: stack.env.AWS_REGION,
    credentials: {
      accessKeyId: stack.env.AWS_ACCESS_KEY_ID,
      secretAccessKey: stack.env.AWS_SECRET_ACCESS_KEY,
    },
  };
  const dynamo = new DynamoDBClient({ ...common, endpoint: stack.endpoints.dynamodb });
  const documents = DynamoDBDocumentClient.from(dynamo);
  const s3 = new S3Client({
    ...common,
    endpoint: stack.endpoints.s3,
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const sqs = new SQSClient({ ...common, endpoint: stack.endpoints.sqs });
  return {
    documents,
    s3,
    sqs,
    destroy() {
      documents.destroy();
      dynamo.destroy();
      s3.destroy();
      sqs.destroy();
    },
  };
}
