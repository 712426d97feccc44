/**
 * `npm run docs:settings`: writes docs/operating.md's tables of settings from their definitions
 * (catalog/settings.ts). Run it after adding or changing a setting; a unit test fails until it is.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { withSettingsTables } from '../catalog/settings-docs';
import { projectRoot } from './build-server.mjs';

const page = join(projectRoot, 'docs', 'operating.md');
const before = await readFile(page, 'utf8');
const after = withSettingsTables(before);
if (after === before) console.log('docs/operating.md: the settings tables are up to date');
else {
  await writeFile(page, after);
  console.log('docs/operating.md: wrote the settings tables');
}
