/** Wire schemas of forms: the management API's settings and views, and the public config and submission. */
import { z } from 'zod';
import { formAuthTypes } from '../core/forms/types';
import { formIdentifierPattern, isAllowedEmailEntry, maxFormIdentifierLength } from '../core/forms/rules';
import { id } from './schemas';

const identifier = z
  .string()
  .max(maxFormIdentifierLength, `At most ${maxFormIdentifierLength} characters`)
  .regex(
    formIdentifierPattern,
    'Lowercase letters, digits and hyphens only, starting and ending with a letter or digit',
  );
const title = z.string().trim().min(1, 'Give a title').max(200);
const description = z.string().max(2000);
const fieldOverride = z.strictObject({
  label: z.string().trim().min(1).max(200).optional(),
  description: z.string().max(1000).optional(),
});
const fieldOverrides = z.record(z.string().min(1).max(200), fieldOverride);
const password = z.string().min(1, 'Give a password').max(1024);
const allowedEmails = z
  .array(
    z.string().trim().refine(isAllowedEmailEntry, 'An e-mail address (a@x.com) or a domain pattern (@x.com)'),
  )
  .min(1, 'Give at least one address or @domain')
  .max(1000);
const thankYouMessage = z.string().max(2000);

export const createFormBody = z.strictObject({
  workflowId: id,
  identifier,
  title,
  description: description.optional(),
  fields: fieldOverrides.optional(),
  authType: z.enum(formAuthTypes),
  password: password.optional(),
  allowedEmails: allowedEmails.optional(),
  thankYouMessage: thankYouMessage.optional(),
});

/** Members given replace the form's; `null` clears a description or thank-you message. */
export const updateFormBody = z.strictObject({
  identifier: identifier.optional(),
  title: title.optional(),
  description: description.nullable().optional(),
  fields: fieldOverrides.optional(),
  authType: z.enum(formAuthTypes).optional(),
  password: password.optional(),
  allowedEmails: allowedEmails.optional(),
  thankYouMessage: thankYouMessage.nullable().optional(),
});

export const formIdParams = z.object({ formId: id });
export const listFormsQuery = z.object({ workspaceId: id });
/** Any text: an identifier that cannot exist is answered 404 like one that does not. */
export const formIdentifierParams = z.object({ identifier: z.string().min(1).max(1024) });

export const formView = z.object({
  id: z.string(),
  workflowId: z.string(),
  workspaceId: z.string(),
  identifier: z.string(),
  url: z.string(),
  title: z.string(),
  description: z.string().optional(),
  fields: z.record(z.string(), fieldOverride).optional(),
  authType: z.enum(formAuthTypes),
  hasPassword: z.boolean(),
  allowedEmails: z.array(z.string()).optional(),
  thankYouMessage: z.string().optional(),
  createdBy: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const publicFormConfig = z.object({
  identifier: z.string(),
  title: z.string(),
  description: z.string().optional(),
  authType: z.enum(formAuthTypes),
  thankYouMessage: z.string(),
  fields: z.array(
    z.object({
      name: z.string(),
      type: z.enum(['string', 'number', 'boolean', 'object', 'array', 'files']),
      label: z.string(),
      description: z.string().optional(),
      required: z.boolean(),
      default: z.unknown().optional(),
    }),
  ),
});

export const formSubmissionBody = z.strictObject({
  formData: z.record(z.string(), z.unknown(), { error: 'formData must be an object of field values' }),
  password: z.string().max(1024).optional(),
  email: z.string().max(320).optional(),
});

export const formSubmissionResult = z.object({
  success: z.literal(true),
  data: z.object({ executionId: z.string() }),
});
