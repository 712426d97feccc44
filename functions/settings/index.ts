/**
 * The settings of the functions, read from the environment once: by the family module a handler
 * loads at its cold start (./routes.ts, ./workers.ts, ./tasks.ts), which checks the settings its
 * family reads, or by the local server when it starts (it runs every function's handler). The
 * wiring (functions/wiring) takes its values from here and passes them on as options; core never
 * reads a setting.
 *
 * A setting outside the loaded family (a module shared by two families) is read when first asked
 * for, and refused then, naming its variable.
 */
import { readSwitches, type Switches, switchNames } from '../../core/config/switches';
import {
  type FunctionFamily,
  functionSettings,
  functionSettingsOf,
  parseSetting,
  parseSettings,
  type SettingValues,
} from '../../catalog/settings';

export type FunctionSettings = SettingValues<typeof functionSettings>;
type SettingName = keyof FunctionSettings;

const values = new Map<SettingName, unknown>();
let switches: Switches | undefined;

/** The switches' variables, each also under its `NEXT_PUBLIC_` name. */
const switchVariables = switchNames.flatMap((name) => [name, `NEXT_PUBLIC_${name}`]);

function readSwitchesOnce(): Switches {
  switches ??= readSwitches(Object.fromEntries(switchVariables.map((name) => [name, process.env[name]])));
  return switches;
}

/** Reads and checks the settings of one family; throws a `SettingsError` naming each wrong variable. */
export function loadFamilySettings(family: FunctionFamily): void {
  install(parseSettings(functionSettingsOf(family), process.env) as Partial<FunctionSettings>);
  readSwitchesOnce();
}

/** Reads and checks every function setting (the local server, which runs every function). */
export function loadAllFunctionSettings(): FunctionSettings {
  const all = parseSettings(functionSettings, process.env);
  values.clear();
  switches = undefined;
  install(all);
  readSwitchesOnce();
  return all;
}

function install(parsed: Partial<FunctionSettings>): void {
  for (const [name, value] of Object.entries(parsed)) values.set(name as SettingName, value);
}

/** One setting's value (read now if its family did not read it at start). */
export function setting<Name extends SettingName>(name: Name): FunctionSettings[Name] {
  if (!values.has(name)) values.set(name, parseSetting(name, functionSettings[name], process.env[name]));
  return values.get(name) as FunctionSettings[Name];
}

/** The self-hosted switches (core/config/switches.ts). */
export function switchesSetting(): Switches {
  return readSwitchesOnce();
}
