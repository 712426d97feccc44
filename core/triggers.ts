/**
 * What starts a run, as logs, completion events and notification filters name it. `form` is an
 * addition to the interface's list: form submissions are logged with it.
 */
export const triggers = ['api', 'webhook', 'schedule', 'manual', 'chat', 'form'] as const;

export type Trigger = (typeof triggers)[number];
