/** Wire schemas of forms: the management API's settings and views, and the public config and submission. */
import * as z from './zod';
import { formAuthTypes } from '../core/forms/types';
import { formIdentifierPattern, isAllowedEmailEntry, maxFormIdentifierLength } from '../core/forms/rules';
import { id } from './schemas';

const identifier = z
  .string()
  .check(
    z.maxLength(maxFormIdentifierLength, `At most ${maxFormIdentifierLength} characters`),
    z.regex(
      formIdentifierPattern,
      'Lowercase letters, digits and hyphens only, starting and ending with a letter or digit',
    ),
  );
const title = z.string().check(z.trim(), z.minLength(1, 'Give a title'), z.maxLength(200));
const description = z.string().check(z.maxLength(2000));
const fieldOverride = z.strictObject({
  label: z.optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(200))),
  description: z.optional(z.string().check(z.maxLength(1000))),
});
const fieldOverrides = z.record(z.string().check(z.minLength(1), z.maxLength(200)), fieldOverride);
const password = z.string().check(z.minLength(1, 'Give a password'), z.maxLength(1024));
const allowedEmails = z
  .array(
    z
      .string()
      .check(
        z.trim(),
        z.refine(isAllowedEmailEntry, 'An e-mail address (a@x.com) or a domain pattern (@x.com)'),
      ),
  )
  .check(z.minLength(1, 'Give at least one address or @domain'), z.maxLength(1000));
const thankYouMessage = z.string().check(z.maxLength(2000));

export const createFormBody = z.strictObject({
  workflowId: id,
  identifier,
  title,
  description: z.optional(description),
  fields: z.optional(fieldOverrides),
  authType: z.enum(formAuthTypes),
  password: z.optional(password),
  allowedEmails: z.optional(allowedEmails),
  thankYouMessage: z.optional(thankYouMessage),
});

/** Members given replace the form's; `null` clears a description or thank-you message. */
export const updateFormBody = z.strictObject({
  identifier: z.optional(identifier),
  title: z.optional(title),
  description: z.optional(z.nullable(description)),
  fields: z.optional(fieldOverrides),
  authType: z.optional(z.enum(formAuthTypes)),
  password: z.optional(password),
  allowedEmails: z.optional(allowedEmails),
  thankYouMessage: z.optional(z.nullable(thankYouMessage)),
});

export const formIdParams = z.object({ formId: id });
export const listFormsQuery = z.object({ workspaceId: id });
/** Any text: an identifier that cannot exist is answered 404 like one that does not. */
export const formIdentifierParams = z.object({
  identifier: z.string().check(z.minLength(1), z.maxLength(1024)),
});

export const formView = z.object({
  id: z.string(),
  workflowId: z.string(),
  workspaceId: z.string(),
  identifier: z.string(),
  url: z.string(),
  title: z.string(),
  description: z.optional(z.string()),
  fields: z.optional(z.record(z.string(), fieldOverride)),
  authType: z.enum(formAuthTypes),
  hasPassword: z.boolean(),
  allowedEmails: z.optional(z.array(z.string())),
  thankYouMessage: z.optional(z.string()),
  createdBy: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const publicFormConfig = z.object({
  identifier: z.string(),
  title: z.string(),
  description: z.optional(z.string()),
  authType: z.enum(formAuthTypes),
  thankYouMessage: z.string(),
  fields: z.array(
    z.object({
      name: z.string(),
      type: z.enum(['string', 'number', 'boolean', 'object', 'array', 'files']),
      label: z.string(),
      description: z.optional(z.string()),
      required: z.boolean(),
      default: z.optional(z.unknown()),
    }),
  ),
});

/** A password or e-mail form's config asked without credentials: which access it needs, nothing else. */
export const formAccessNeeded = z.object({ authType: z.enum(['password', 'email']) });

export const formSubmissionBody = z.strictObject({
  formData: z.record(z.string(), z.unknown(), { error: 'formData must be an object of field values' }),
  password: z.optional(z.string().check(z.maxLength(1024))),
  email: z.optional(z.string().check(z.maxLength(320))),
});

export const formSubmissionResult = z.object({
  success: z.literal(true),
  data: z.object({ executionId: z.string() }),
});
