/**
 * Form passwords are kept as scrypt hashes with their parameters, so the cost can be raised later
 * without breaking stored ones: `scrypt$<N>$<r>$<p>$<salt b64url>$<hash b64url>`.
 */
import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto';

/**
 * N = 2^14, r = 8 (16 MiB, about 30 ms on one Lambda vCPU): every password form's submission pays
 * it once, so it is set for a guess to be costly without making each submission slow.
 */
const defaultCost = { N: 16_384, r: 8, p: 1 };
const keyLengthInBytes = 32;

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const maxmem = 256 * options.N! * options.r! + 1024 * 1024;
    scrypt(password.normalize('NFC'), salt, keyLengthInBytes, { ...options, maxmem }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

export async function hashPassword(password: string, cost = defaultCost): Promise<string> {
  const salt = randomBytes(16);
  const hash = await derive(password, salt, cost);
  return ['scrypt', cost.N, cost.r, cost.p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

/** Whether `password` is the one hashed; a malformed stored hash admits nothing. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const cost = { N: Number(n), r: Number(r), p: Number(p) };
  if (!Object.values(cost).every((value) => Number.isInteger(value) && value > 0)) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await derive(password, Buffer.from(salt, 'base64url'), cost);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
