import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SettingsMarkerError, withSettingsTables } from '../../../catalog/settings-docs';
import { repoRoot } from '../../../local/service';

describe("docs/operating.md's settings tables", () => {
  it('list every setting as its definition says (run `npm run docs:settings` after changing one)', () => {
    // Prepare
    const page = readFileSync(join(repoRoot, 'docs', 'operating.md'), 'utf8');

    // Act
    const written = withSettingsTables(page);

    // Assess
    expect(page).toBe(written);
  });

  it('are refused on a page without their markers', () => {
    // Act
    const write = () => withSettingsTables('# Operating\n\nNo tables here.\n');

    // Assess
    expect(write).toThrow(SettingsMarkerError);
    expect(write).toThrow(/settings:local-server:start/);
  });
});
