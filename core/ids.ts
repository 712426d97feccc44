import { randomBytes } from 'node:crypto';

const alphabet = '0123456789abcdefghjkmnpqrstvwxyz';

/** Random identifier with a type prefix, e.g. `wf_8k2m...`; 100 bits of entropy. */
export function newId(prefix: string): string {
  const bytes = randomBytes(20);
  let id = '';
  for (const byte of bytes) id += alphabet[byte & 31];
  return `${prefix}_${id}`;
}
