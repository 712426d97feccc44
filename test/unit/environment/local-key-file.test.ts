import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensureLocalKeyFile, LocalKeyWrapper } from '../../../adapters/kms/local-key-wrapper';
import { createEnvelopeCipher } from '../../../core/environment/envelope';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'environment-key-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('local key file', () => {
  it('is created once with 32 random bytes, readable by the owner only, and then kept', async () => {
    const path = join(dir, 'secrets.key');
    expect(await ensureLocalKeyFile(path)).toEqual({ created: true });
    const key = await readFile(path);
    expect(key).toHaveLength(32);
    if (process.platform !== 'win32') expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(await ensureLocalKeyFile(path)).toEqual({ created: false });
    expect((await readFile(path)).equals(key)).toBe(true);
  });

  it('refuses a key file of the wrong size instead of replacing it', async () => {
    const path = join(dir, 'secrets.key');
    await writeFile(path, 'short');
    await expect(ensureLocalKeyFile(path)).rejects.toThrow(/must hold 32 bytes/);
    expect(await readFile(path, 'utf8')).toBe('short');
  });

  it('wraps data keys for the envelope cipher, and decrypts after being read again', async () => {
    const path = join(dir, 'secrets.key');
    await ensureLocalKeyFile(path);
    const envelope = await createEnvelopeCipher(LocalKeyWrapper.fromFile(path)).encrypt('value', 'ws_1');
    expect(await createEnvelopeCipher(LocalKeyWrapper.fromFile(path)).decrypt(envelope, 'ws_1')).toBe(
      'value',
    );
  });

  it('names the missing file on first use', async () => {
    const cipher = createEnvelopeCipher(LocalKeyWrapper.fromFile(join(dir, 'missing.key')));
    await expect(cipher.encrypt('value', 'ws_1')).rejects.toThrow(/missing\.key/);
  });
});
