/** Reading what the local emulators' e-mail outbox (DATA_DIR/outbox/email/*.eml) received. */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { until } from './wait';

/** The paths of the files in `dir`; none when it does not exist yet. */
export async function filesIn(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).map((name) => join(dir, name));
  } catch {
    return [];
  }
}

/** The text of a quoted-printable body part, soft line breaks joined. */
export function decodeQuotedPrintable(text: string): string {
  return text
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

/**
 * The first e-mail in the outbox `dir` whose decoded text contains `text` (other tests write there
 * too), once it has been written; its text decoded.
 */
export function mailContaining(dir: string, text: string, timeoutInMs?: number): Promise<string> {
  return until(async () => {
    for (const file of await filesIn(dir)) {
      const message = decodeQuotedPrintable(await readFile(file, 'utf8'));
      if (message.includes(text)) return message;
    }
    return undefined;
  }, timeoutInMs);
}
