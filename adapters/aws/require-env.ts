/**
 * The variables that say where things are: what the CDK app gives a function for the resources it
 * uses (table and queue names, state machine ARNs, keys, secrets), what the Lambda runtime sets
 * (region, function name), and what the local emulators set (emulator endpoints, key files). They are
 * read when an adapter needs one, not at start: CDK gives each function only the variables of the
 * resources it uses, and some routes never reach the code that reads the others. A missing one is
 * named by the error. The operator's settings are read elsewhere, once (catalog/settings.ts).
 */

/** A variable the caller cannot do without, naming it when missing. */
export function requireEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`Environment variable ${name} is not set`);
  return value;
}

/** A variable that may be missing or empty (then undefined). */
export function optionalEnv(name: string): string | undefined {
  return process.env[name] || undefined;
}
