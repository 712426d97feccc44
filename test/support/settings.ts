/**
 * Settings changed while a test runs: the functions read their settings once, when they start, so a
 * test that changes one between requests has them read again, as a restart would.
 */
import { loadAllFunctionSettings } from '../../functions/settings';

/** Sets each variable (undefined removes it), then has the functions read their settings again. */
export function changeSettings(variables: Record<string, string | undefined>): void {
  for (const [name, value] of Object.entries(variables)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  loadAllFunctionSettings();
}
