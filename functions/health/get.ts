import { ok } from '../http/responses';
import { httpRoute } from '../http/route';

export const handler = httpRoute('getHealth', async () => ok({ status: 'ok' }));
