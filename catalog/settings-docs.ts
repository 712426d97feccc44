/**
 * docs/operating.md's tables of settings, made from the definitions (catalog/settings.ts), between
 * marker comments: `npm run docs:settings` writes them, a unit test fails while they differ.
 */
import {
  functionSettings,
  localServerSettings,
  type SettingDefinitions,
  type SettingsTable,
  settingsTableNames,
} from './settings';

function tableOf(name: SettingsTable): string {
  const definitions: SettingDefinitions = { ...localServerSettings, ...functionSettings };
  const rows = Object.entries(definitions)
    .filter(([, definition]) => definition.table === name)
    .map(([name, definition]) => `| \`${name}\` | ${definition.defaultText} | ${definition.meaning} |`);
  return ['| variable | default | meaning |', '|---|---|---|', ...rows].join('\n');
}

export class SettingsMarkerError extends Error {
  readonly status = 500;
  constructor(marker: string) {
    super(`docs/operating.md has no ${marker} marker comment, where the settings table goes`);
    this.name = 'SettingsMarkerError';
  }
}

const startOf = (name: string) => `<!-- settings:${name}:start (npm run docs:settings writes this table) -->`;
const endOf = (name: string) => `<!-- settings:${name}:end -->`;

/** The page with every settings table written anew between its markers. */
export function withSettingsTables(markdown: string): string {
  let page = markdown;
  for (const name of settingsTableNames) {
    const start = page.indexOf(startOf(name));
    if (start < 0) throw new SettingsMarkerError(startOf(name));
    const end = page.indexOf(endOf(name), start);
    if (end < 0) throw new SettingsMarkerError(endOf(name));
    page = `${page.slice(0, start)}${startOf(name)}\n${tableOf(name)}\n${page.slice(end)}`;
  }
  return page;
}
