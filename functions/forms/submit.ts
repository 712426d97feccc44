import { formRoutes } from '../../catalog/form-routes';
import { asFormDataError, findPublicForm, formRunInput } from '../../core/forms/service';
import { enqueueRun } from '../../core/jobs/service';
import { admitRun } from '../../core/runs/admission';
import { prepareRun } from '../../core/runs/prepare';
import { ok } from '../http/responses';
import { publicRoute } from '../http/route';
import { prepareDeps } from '../wiring/prepare';
import { formDeps } from '../wiring/forms';
import { enqueueDeps } from '../wiring/jobs';
import { runAdmissionDeps } from '../wiring/limits';
import { provenFormAccess } from './access';

/**
 * Public: a submission takes a token of its source address before anything is checked (so a wrong
 * password costs like a request), a refused one a token of its form too; then it runs as the form's
 * creator.
 */
export const handler = publicRoute(
  formRoutes,
  'submitForm',
  async ({ params, body, event, limits, logger }) => {
    const deps = formDeps();
    const form = await findPublicForm(deps, params.identifier);
    const principal = await provenFormAccess(deps, form, body, event, limits);
    const input = await formRunInput(deps, form, body.formData);
    // The run draws from the async bucket of the form's creator.
    const request = await admitRun(
      runAdmissionDeps(),
      limits,
      {
        prepare: (usage) =>
          prepareRun(prepareDeps(), principal, form.workflowId, input, {
            trigger: 'form',
            mode: 'async',
            usage,
          }).catch((error) => {
            throw asFormDataError(error);
          }),
        start: async (request) => {
          logger.appendKeys({
            executionId: request.executionId,
            workflowId: form.workflowId,
            formId: form.id,
          });
          await enqueueRun(enqueueDeps(), request);
          return request;
        },
      },
      { drawFor: principal.user },
    );
    return ok({ success: true, data: { executionId: request.executionId } });
  },
);
