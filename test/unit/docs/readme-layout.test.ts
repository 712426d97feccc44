import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
/** Folders that are made, not written: installs, builds, data and reports (all in .gitignore). */
const made = new Set(['node_modules', 'cdk.out', 'dist', 'coverage', 'test-results']);

function layoutSectionOf(readme: string): string {
  const start = readme.indexOf('## Layout');
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end === -1 ? undefined : end);
}

describe('the README layout table', () => {
  it('lists every top-level folder of the tree', () => {
    // Prepare
    const folders = readdirSync(root, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.') && !made.has(entry.name))
      .map((entry) => entry.name);
    const rows = layoutSectionOf(readFileSync(join(root, 'README.md'), 'utf8'))
      .split('\n')
      .filter((line) => line.startsWith('| `'));

    // Act
    const missing = folders.filter(
      (folder) => !rows.some((row) => row.split('|')[1].includes(`\`${folder}/\``)),
    );

    // Assess
    expect(folders.length).toBeGreaterThan(10);
    expect(missing).toEqual([]);
  });
});
