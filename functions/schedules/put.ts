import { scheduleRoutes } from '../../catalog/schedule-routes';
import { putSchedule } from '../../core/schedules/service';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { scheduleDeps } from '../wiring/schedules';

export const handler = httpRoute(scheduleRoutes, 'putSchedule', async ({ principal, params, body }) =>
  ok({ data: await putSchedule(scheduleDeps(), principal, params.workflowId, body) }),
);
