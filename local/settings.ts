/**
 * Settings of `npm start`, the local server: its own (port, data dir, handlers ...) and every
 * setting of the functions it runs, read from the environment and checked once, before anything
 * starts, so that a wrong value stops the start with a message naming the variable.
 *
 * The local server also hands variables on through the environment: the local emulators' (table
 * names, endpoints, key files), which the functions' adapters read when they need them, as in AWS.
 */
import { localServerSettings, parseSetting, parseSettings, type SettingValues } from '../catalog/settings';
import { loadAllFunctionSettings, type FunctionSettings } from '../functions/settings';

export type LocalServerSettings = SettingValues<typeof localServerSettings>;

export interface LocalSettings {
  server: LocalServerSettings;
  functions: FunctionSettings;
}

/** Reads and checks every setting of `npm start`; throws a `SettingsError` naming each wrong variable. */
export function loadLocalSettings(): LocalSettings {
  // The server's own log lines: warnings and errors unless the operator asks for more.
  process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
  return { server: parseSettings(localServerSettings, process.env), functions: loadAllFunctionSettings() };
}

/** One setting of the local server, read now (the local service of tests reads ADMIN_API_KEY at each start). */
export function localServerSetting<Name extends keyof LocalServerSettings>(
  name: Name,
): LocalServerSettings[Name] {
  return parseSetting(name, localServerSettings[name], process.env[name]) as LocalServerSettings[Name];
}

/**
 * Reads the functions' settings again (a start of the local service: tests change settings
 * between starts of one process).
 */
export function reloadFunctionSettings(): FunctionSettings {
  return loadAllFunctionSettings();
}

/** Hands variables on to the functions run in this process (the local emulators', the admin key). */
export function exportVariables(variables: Record<string, string>): void {
  Object.assign(process.env, variables);
}

/**
 * A copy of this process's variables, for bundle mode: the operator's settings in it pass on to
 * each function's environment (local/bundles/environment.ts picks them by their definitions).
 */
export function processVariables(): Readonly<Record<string, string | undefined>> {
  return { ...process.env };
}
