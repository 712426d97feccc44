import { randomBytes } from 'node:crypto';
import {
  DecryptCommand,
  GenerateDataKeyCommand,
  InvalidCiphertextException,
  KMSClient,
  KMSServiceException,
} from '@aws-sdk/client-kms';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DynamoEnvironmentStore } from '../../../adapters/dynamodb/environment-store';
import { KmsKeyWrapper } from '../../../adapters/kms/kms-key-wrapper';
import { createEnvelopeCipher, SecretDecryptionError } from '../../../core/environment/envelope';
import { loadEnvironment, setEnvironmentVariable } from '../../../core/environment/service';
import { memberships, principal } from './fakes';

const keyArn = 'arn:aws:kms:us-east-1:123456789012:key/11111111-2222-3333-4444-555555555555';
const kmsClient = new KMSClient({ region: 'us-east-1' });
const kms = mockClient(kmsClient);
const documentClient = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
const dynamo = mockClient(documentClient);

/** A KMS stand-in: remembers every data key it wrapped, and under which encryption context. */
function simulateKms() {
  const wrapped = new Map<string, { plaintext: Buffer; context: string }>();
  kms.on(GenerateDataKeyCommand).callsFake(async (input) => {
    const plaintext = randomBytes(32);
    const blob = randomBytes(48);
    wrapped.set(blob.toString('hex'), { plaintext, context: JSON.stringify(input.EncryptionContext) });
    return { KeyId: keyArn, Plaintext: Uint8Array.from(plaintext), CiphertextBlob: blob };
  });
  kms.on(DecryptCommand).callsFake(async (input) => {
    const entry = wrapped.get(Buffer.from(input.CiphertextBlob).toString('hex'));
    if (!entry || entry.context !== JSON.stringify(input.EncryptionContext)) {
      throw new InvalidCiphertextException({ message: 'InvalidCiphertextException', $metadata: {} });
    }
    return { KeyId: keyArn, Plaintext: Uint8Array.from(entry.plaintext) };
  });
}

function kmsCipher() {
  return createEnvelopeCipher(new KmsKeyWrapper({ client: kmsClient, keyArn, contextKey: 'workspaceId' }));
}

beforeEach(() => {
  simulateKms();
});
afterEach(() => {
  kms.reset();
  dynamo.reset();
});

describe('KMS key wrapper', () => {
  it('makes one AES-256 data key per encryption, with the workspace as encryption context', async () => {
    const cipher = kmsCipher();
    const envelope = await cipher.encrypt('sk-live-123', 'ws_a');
    await cipher.encrypt('sk-live-456', 'ws_a');
    const calls = kms.commandCalls(GenerateDataKeyCommand);
    expect(calls).toHaveLength(2);
    expect(calls[0].args[0].input).toEqual({
      KeyId: keyArn,
      KeySpec: 'AES_256',
      EncryptionContext: { workspaceId: 'ws_a' },
    });
    expect(envelope.startsWith('env1.kms.')).toBe(true);
    expect(envelope).not.toContain('sk-live-123');
  });

  it('unwraps with Decrypt pinned to the key, with the same encryption context', async () => {
    const envelope = await kmsCipher().encrypt('sk-live-123', 'ws_a');
    expect(await kmsCipher().decrypt(envelope, 'ws_a')).toBe('sk-live-123');
    const calls = kms.commandCalls(DecryptCommand);
    expect(calls).toHaveLength(1);
    expect(calls[0].args[0].input).toMatchObject({
      KeyId: keyArn,
      EncryptionContext: { workspaceId: 'ws_a' },
    });
    expect(Buffer.from(calls[0].args[0].input.CiphertextBlob!).toString('base64url')).toBe(
      envelope.split('.')[2],
    );
  });

  it('does not decrypt for another workspace (KMS refuses the context)', async () => {
    const envelope = await kmsCipher().encrypt('sk-live-123', 'ws_a');
    await expect(kmsCipher().decrypt(envelope, 'ws_b')).rejects.toBeInstanceOf(SecretDecryptionError);
    expect(kms.commandCalls(DecryptCommand)[0].args[0].input.EncryptionContext).toEqual({
      workspaceId: 'ws_b',
    });
  });

  it('refuses a tampered ciphertext', async () => {
    const envelope = await kmsCipher().encrypt('sk-live-123', 'ws_a');
    const parts = envelope.split('.');
    const body = Buffer.from(parts[5], 'base64url');
    body[0] ^= 1;
    parts[5] = body.toString('base64url');
    await expect(kmsCipher().decrypt(parts.join('.'), 'ws_a')).rejects.toBeInstanceOf(SecretDecryptionError);
  });

  it('lets other KMS failures (throttling, access) through as they are', async () => {
    const envelope = await kmsCipher().encrypt('sk-live-123', 'ws_a');
    const throttled = new KMSServiceException({
      name: 'ThrottlingException',
      $fault: 'client',
      message: 'Rate exceeded',
      $metadata: {},
    });
    kms.on(DecryptCommand).rejects(throttled);
    const error = await kmsCipher()
      .decrypt(envelope, 'ws_a')
      .catch((caught: unknown) => caught);
    expect(error).toBe(throttled);
  });
});

describe('environment variables on KMS and DynamoDB', () => {
  it('never send the value in clear to DynamoDB (nor to KMS)', async () => {
    dynamo.on(GetCommand).resolves({});
    dynamo.on(QueryCommand).resolves({ Count: 0, Items: [] });
    dynamo.on(PutCommand).resolves({});
    const value = 'sk-very-secret-value-0123456789';
    const deps = {
      identity: memberships([['ws_a', 'usr_writer', 'write']]),
      environment: new DynamoEnvironmentStore({ client: documentClient, tableName: 'entities' }),
      cipher: kmsCipher(),
      now: () => new Date('2030-01-01T00:00:00.000Z'),
    };

    await setEnvironmentVariable(deps, principal('usr_writer'), {
      workspaceId: 'ws_a',
      name: 'API_KEY',
      value,
    });

    const puts = dynamo.commandCalls(PutCommand);
    expect(puts).toHaveLength(1);
    const item = puts[0].args[0].input.Item as Record<string, string>;
    expect(item).toMatchObject({ pk: 'WS#ws_a', sk: 'ENV#API_KEY', name: 'API_KEY', workspaceId: 'ws_a' });
    expect(item.ciphertext.startsWith('env1.kms.')).toBe(true);
    expect(item.value).toBeUndefined();
    const everythingSent = JSON.stringify([
      ...dynamo.calls().map((call) => call.args[0].input),
      ...kms.calls().map((call) => call.args[0].input),
    ]);
    for (const form of [
      value,
      Buffer.from(value).toString('base64'),
      Buffer.from(value).toString('base64url'),
    ]) {
      expect(everythingSent).not.toContain(form);
    }

    // And the stored item reads back through KMS.
    dynamo.on(QueryCommand).resolves({ Items: [item] });
    expect(await loadEnvironment(deps, 'ws_a')).toEqual({ API_KEY: value });
  });
});
