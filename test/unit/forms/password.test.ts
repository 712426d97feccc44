import { describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from '../../../core/forms/password';

const cheap = { N: 1024, r: 8, p: 1 };

describe('form passwords', () => {
  it('verifies the password that was hashed and refuses any other', async () => {
    const stored = await hashPassword('correct horse', cheap);

    expect(await verifyPassword('correct horse', stored)).toBe(true);
    expect(await verifyPassword('Correct horse', stored)).toBe(false);
    expect(await verifyPassword('', stored)).toBe(false);
  });

  it('keeps scrypt parameters and a fresh salt with each hash, never the password', async () => {
    const first = await hashPassword('correct horse', cheap);
    const second = await hashPassword('correct horse', cheap);

    expect(first).toMatch(/^scrypt\$1024\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    expect(first).not.toBe(second);
    expect(first).not.toContain('horse');
  });

  it('uses N = 16384 and r = 8 by default', async () => {
    expect(await hashPassword('x')).toMatch(/^scrypt\$16384\$8\$1\$/);
  });

  it('treats composed and decomposed accents as the same password', async () => {
    const stored = await hashPassword('caf\u00e9', cheap);

    expect(await verifyPassword('cafe\u0301', stored)).toBe(true);
  });

  it('admits nothing against a malformed stored hash', async () => {
    for (const stored of ['', 'plain', 'scrypt$x$8$1$a$b', 'bcrypt$1$2$3$a$b', 'scrypt$1024$8$1$$']) {
      expect(await verifyPassword('anything', stored), stored).toBe(false);
    }
  });
});
