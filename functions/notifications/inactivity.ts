/** On a clock: alerts of the no-activity rules whose workflows have not run for their hours. */
// First: the family's settings are read and checked before anything else loads (a wrong one fails the init).
import '../settings/workers';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { checkInactivity } from '../../core/notifications/dispatch';
import { logInvocation, loggerOf } from '../http/logger';
import { inactivityDeps } from '../wiring/notifications';

export async function checkInactiveWorkflows(_event: unknown, context: Context): Promise<{ alerts: number }> {
  const alerts = await checkInactivity(inactivityDeps());
  loggerOf(context).info('No-activity rules checked', { alerts });
  return { alerts };
}

export const handler = middy(checkInactiveWorkflows).use(logInvocation());
