/** On a clock: alerts of the no-activity rules whose workflows have not run for their hours. */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import { checkInactivity } from '../../core/notifications/service';
import { logger, withInvocationLogger } from '../http/logger';
import { inactivityDeps } from '../wiring/notifications';

export async function checkInactiveWorkflows(): Promise<{ alerts: number }> {
  const alerts = await checkInactivity(inactivityDeps());
  logger.info('No-activity rules checked', { alerts });
  return { alerts };
}

export const handler = withInvocationLogger(
  middy(checkInactiveWorkflows).use(injectLambdaContext(logger, { resetKeys: true })),
);
