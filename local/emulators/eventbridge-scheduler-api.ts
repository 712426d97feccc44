/**
 * EventBridge Scheduler's CreateSchedule, UpdateSchedule and DeleteSchedule (the calls of
 * adapters/aws/eventbridge-schedule-registry.ts) over the local schedule firer (./schedule-firer.ts), which fires from
 * the schedules the function stored: each call only wakes it. Which names exist is known since this
 * process started, so a create of a name made earlier answers as a fresh create.
 */
import { AwsApiError, type AwsApiService } from './aws-api-server';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION } from './constants';

/** `wake`: has the local schedule firer look at the stored schedules again. */
export function createEventBridgeSchedulerApi(wake: () => void): AwsApiService {
  const names = new Set<string>();
  return {
    claims: { path: '/schedules/' },
    async handle({ method, path, query, body }) {
      const name = decodeURIComponent(path.slice('/schedules/'.length));
      const group = String(body.GroupName ?? query.get('groupName') ?? 'default');
      const key = `${group}/${name}`;
      const scheduleArn = `arn:aws:scheduler:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:schedule/${key}`;
      const missing = () =>
        new AwsApiError('ResourceNotFoundException', `Schedule ${name} does not exist.`, 404);
      switch (method) {
        case 'POST':
          if (names.has(key))
            throw new AwsApiError('ConflictException', `Schedule ${name} already exists.`, 409);
          names.add(key);
          wake();
          return { ScheduleArn: scheduleArn };
        case 'PUT':
          if (!names.has(key)) throw missing();
          wake();
          return { ScheduleArn: scheduleArn };
        case 'DELETE':
          if (!names.delete(key)) throw missing();
          wake();
          return {};
        default:
          throw new AwsApiError(
            'UnknownOperationException',
            `Scheduler ${method} ${path} is not served locally`,
          );
      }
    },
  };
}
