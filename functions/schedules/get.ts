import { getSchedule } from '../../core/schedules/service';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { scheduleDeps } from '../wiring/schedules';

export const handler = httpRoute('getSchedule', async ({ principal, params }) =>
  ok({ data: await getSchedule(scheduleDeps(), principal, params.workflowId) }),
);
