import { scheduleRoutes } from '../../catalog/schedule-routes';
import { getSchedule } from '../../core/schedules/service';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { scheduleDeps } from '../wiring/schedules';

export const handler = httpRoute(scheduleRoutes, 'getSchedule', async ({ principal, params }) =>
  ok({ data: await getSchedule(scheduleDeps(), principal, params.workflowId) }),
);
