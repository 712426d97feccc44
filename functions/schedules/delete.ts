import { scheduleRoutes } from '../../catalog/schedule-routes';
import { deleteSchedule } from '../../core/schedules/service';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { scheduleDeps } from '../wiring/schedules';

export const handler = httpRoute(scheduleRoutes, 'deleteSchedule', async ({ principal, params }) =>
  ok({ data: await deleteSchedule(scheduleDeps(), principal, params.workflowId) }),
);
