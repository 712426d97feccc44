import { putSchedule } from '../../core/schedules/service';
import { ok } from '../http/responses';
import { httpRoute } from '../http/route';
import { scheduleDeps } from '../wiring/schedules';

export const handler = httpRoute('putSchedule', async ({ principal, params, body }) =>
  ok({ data: await putSchedule(scheduleDeps(), principal, params.workflowId, body) }),
);
