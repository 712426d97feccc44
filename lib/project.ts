/**
 * Where the project lives, found from this file rather than from the working directory, so that the
 * CDK app, the bundle script and the tests agree whichever folder they are started from.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const projectRoot = fileURLToPath(new URL('..', import.meta.url));

/** Absolute path of a file named relative to the project root (as the catalog names entries). */
export function fromProjectRoot(relativePath: string): string {
  return join(projectRoot, relativePath);
}
