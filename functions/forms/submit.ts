import { formRoutes } from '../../catalog/form-routes';
import { asFormDataError, checkFormAccess, findPublicForm, formRunInput } from '../../core/forms/service';
import { enqueueRun } from '../../core/jobs/service';
import { prepareRun } from '../../core/runs/prepare';
import { admitFormRun, admitFormSubmission } from '../http/limits';
import { ok } from '../http/responses';
import { publicRoute } from '../http/route';
import { prepareDeps } from '../wiring/prepare';
import { formDeps } from '../wiring/forms';
import { enqueueDeps } from '../wiring/jobs';

/**
 * Public: a submission takes a token of its source address and of its form before anything is
 * checked (so a wrong password costs like a request), then runs as the form's creator.
 */
export const handler = publicRoute(
  formRoutes,
  'submitForm',
  async ({ params, body, event, limits, logger }) => {
    const deps = formDeps();
    const form = await findPublicForm(deps, params.identifier);
    await admitFormSubmission(form.id, event, limits);
    const principal = await checkFormAccess(deps, form, body);
    const input = await formRunInput(deps, form, body.formData);
    await admitFormRun(principal.user, limits);
    const request = await prepareRun(prepareDeps(), principal, form.workflowId, input, {
      trigger: 'form',
      mode: 'async',
      usage: limits.usage(),
    }).catch((error) => {
      throw asFormDataError(error);
    });
    limits.keepCharge();
    logger.appendKeys({ executionId: request.executionId, workflowId: form.workflowId, formId: form.id });
    await enqueueRun(enqueueDeps(), request);
    return ok({ success: true, data: { executionId: request.executionId } });
  },
);
