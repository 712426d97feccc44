/**
 * Access to a password or e-mail form, as the config read and the submission both prove it: a
 * token of the source address first, then the check, and a refused check counted against the form.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import {
  checkFormAccess,
  type FormCredentials,
  type FormDeps,
  isAccessRefusal,
} from '../../core/forms/service';
import type { FormRecord } from '../../core/forms/types';
import type { Principal } from '../../core/identity/service';
import { admitFormAttempt, countFormFailure, type RequestLimits } from '../http/limits';

export async function provenFormAccess(
  deps: FormDeps,
  form: FormRecord,
  credentials: FormCredentials,
  event: APIGatewayProxyEvent,
  limits: RequestLimits,
): Promise<Principal> {
  await admitFormAttempt(form, event, limits);
  try {
    return await checkFormAccess(deps, form, credentials);
  } catch (error) {
    if (isAccessRefusal(error)) await countFormFailure(form.id);
    throw error;
  }
}

/**
 * The credentials of a config read: `x-form-password` or `x-form-email`, percent-encoded as UTF-8
 * (what `encodeURIComponent` makes), since a header carries Latin-1 at most; a value that does not
 * decode is taken as it is.
 */
export function credentialsOfHeaders(headers: Record<string, string>): FormCredentials {
  const password = decodedHeader(headers['x-form-password']);
  const email = decodedHeader(headers['x-form-email']);
  return { ...(password ? { password } : {}), ...(email ? { email } : {}) };
}

function decodedHeader(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
