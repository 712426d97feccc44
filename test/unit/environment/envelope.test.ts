import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { LocalKeyWrapper } from '../../../adapters/kms/local-key-wrapper';
import {
  createEnvelopeCipher,
  type DataKey,
  type KeyWrapper,
  parseEnvelope,
  SecretDecryptionError,
} from '../../../core/environment/envelope';

const workspaceA = 'ws_aaaaaaaaaaaaaaaaaaaa';
const workspaceB = 'ws_bbbbbbbbbbbbbbbbbbbb';

function localCipher(key = randomBytes(32)) {
  return createEnvelopeCipher(new LocalKeyWrapper(key));
}

/** Replaces part `index` of the envelope with a copy that has one bit flipped. */
function flipBit(envelope: string, index: number): string {
  const parts = envelope.split('.');
  const bytes = Buffer.from(parts[index], 'base64url');
  bytes[bytes.length - 1] ^= 1;
  parts[index] = bytes.toString('base64url');
  return parts.join('.');
}

/** A wrapper that counts its calls and keeps the data keys it handed out. */
function countingWrapper(): KeyWrapper & { generated: DataKey[]; unwraps: number } {
  const inner = new LocalKeyWrapper(randomBytes(32));
  const wrapper = {
    scheme: 'file',
    generated: [] as DataKey[],
    unwraps: 0,
    async generateDataKey(context: string) {
      const key = await inner.generateDataKey(context);
      wrapper.generated.push(key);
      return key;
    },
    async decryptDataKey(encrypted: Uint8Array, context: string) {
      wrapper.unwraps += 1;
      return inner.decryptDataKey(encrypted, context);
    },
  };
  return wrapper;
}

describe('envelope cipher', () => {
  it('round-trips text of any kind and size', async () => {
    const cipher = localCipher();
    for (const value of ['sk-live-123', '', 'ünïcødé ✓ 秘密', 'x'.repeat(64 * 1024), '{"json":true}\n']) {
      expect(await cipher.decrypt(await cipher.encrypt(value, workspaceA), workspaceA)).toBe(value);
    }
  });

  it('writes the versioned envelope, never the plaintext, and a fresh data key and iv each time', async () => {
    const cipher = localCipher();
    const first = await cipher.encrypt('sk-live-123', workspaceA);
    const second = await cipher.encrypt('sk-live-123', workspaceA);
    expect(first.split('.')).toHaveLength(6);
    expect(first.startsWith('env1.file.')).toBe(true);
    expect(first).not.toContain('sk-live-123');
    expect(first).not.toContain(Buffer.from('sk-live-123').toString('base64url'));
    expect(first).not.toBe(second);
    const [a, b] = [parseEnvelope(first), parseEnvelope(second)];
    expect(a.encryptedKey.equals(b.encryptedKey)).toBe(false);
    expect(a.iv.equals(b.iv)).toBe(false);
  });

  it('does not decrypt a ciphertext moved to another workspace', async () => {
    const cipher = localCipher();
    const envelope = await cipher.encrypt('sk-live-123', workspaceA);
    await expect(cipher.decrypt(envelope, workspaceB)).rejects.toBeInstanceOf(SecretDecryptionError);
  });

  it('refuses a ciphertext with any part altered', async () => {
    const cipher = localCipher();
    const envelope = await cipher.encrypt('sk-live-123', workspaceA);
    for (const index of [2, 3, 4, 5]) {
      await expect(
        cipher.decrypt(flipBit(envelope, index), workspaceA),
        `part ${index}`,
      ).rejects.toBeInstanceOf(SecretDecryptionError);
    }
    const parts = envelope.split('.');
    const swapped = [...parts.slice(0, 5), Buffer.from('sk-live-124').toString('base64url')].join('.');
    await expect(cipher.decrypt(swapped, workspaceA)).rejects.toBeInstanceOf(SecretDecryptionError);
  });

  it('refuses malformed envelopes and another wrapper scheme', async () => {
    const cipher = localCipher();
    const envelope = await cipher.encrypt('sk-live-123', workspaceA);
    for (const bad of ['', 'sk-live-123', 'env1.file.a.b.c', `env2${envelope.slice(4)}`, `${envelope}.x`]) {
      await expect(cipher.decrypt(bad, workspaceA), bad).rejects.toBeInstanceOf(SecretDecryptionError);
    }
    await expect(cipher.decrypt(envelope.replace('env1.file.', 'env1.kms.'), workspaceA)).rejects.toThrow(
      /"kms" key wrapper/,
    );
  });

  it('does not decrypt under another key-encryption key', async () => {
    const envelope = await localCipher().encrypt('sk-live-123', workspaceA);
    await expect(localCipher().decrypt(envelope, workspaceA)).rejects.toThrow(/another local key file/);
  });

  it('requires a context', async () => {
    await expect(localCipher().encrypt('sk-live-123', '')).rejects.toThrow(/context/);
  });

  it('wipes the data key after encrypting', async () => {
    const wrapper = countingWrapper();
    await createEnvelopeCipher(wrapper).encrypt('sk-live-123', workspaceA);
    expect(wrapper.generated).toHaveLength(1);
    expect(Buffer.from(wrapper.generated[0].plaintext).every((byte) => byte === 0)).toBe(true);
  });

  it('caches unwrapped data keys briefly, per workspace', async () => {
    let now = 1_000;
    const wrapper = countingWrapper();
    const cipher = createEnvelopeCipher(wrapper, { cacheTtlMs: 60_000, now: () => now });
    const envelope = await cipher.encrypt('sk-live-123', workspaceA);
    await cipher.decrypt(envelope, workspaceA);
    await cipher.decrypt(envelope, workspaceA);
    expect(wrapper.unwraps).toBe(1);
    // Another context is never served from the cache: the wrapper is asked (and refuses).
    await expect(cipher.decrypt(envelope, workspaceB)).rejects.toBeInstanceOf(SecretDecryptionError);
    expect(wrapper.unwraps).toBe(2);
    now += 60_001;
    expect(await cipher.decrypt(envelope, workspaceA)).toBe('sk-live-123');
    expect(wrapper.unwraps).toBe(3);
  });

  it('can run without a cache', async () => {
    const wrapper = countingWrapper();
    const cipher = createEnvelopeCipher(wrapper, { cacheTtlMs: 0 });
    const envelope = await cipher.encrypt('sk-live-123', workspaceA);
    await cipher.decrypt(envelope, workspaceA);
    await cipher.decrypt(envelope, workspaceA);
    expect(wrapper.unwraps).toBe(2);
  });
});
