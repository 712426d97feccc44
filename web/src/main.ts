/**
 * The form page: reads the form's identifier from its address, loads the configuration, and walks
 * the person through the access step (password or e-mail, when the form has one: the server gives
 * the configuration only once it has checked them), the fields, and the thank-you message.
 */
import { type Credentials, loadConfig, type Submission, submitForm } from './api';
import { focusOn, h, uniqueId } from './dom';
import { type FieldControl, fieldControl } from './fields';
import {
  checkEmail,
  checkPassword,
  type FormConfig,
  fieldErrorsOf,
  identifierPattern,
  type ServerError,
  topMessageOf,
} from './values';

const app = document.getElementById('app') as HTMLElement;

function show(...children: Node[]): void {
  app.removeAttribute('aria-busy');
  app.replaceChildren(...children);
}

function notFound(): void {
  document.title = 'Form not found';
  show(
    h('h1', {}, 'Form not found'),
    h(
      'p',
      {},
      'There is no form at this address. Check the link you were given, or ask its owner for a new one.',
    ),
  );
}

async function start(): Promise<void> {
  const segment = location.pathname.split('/')[2] ?? '';
  const identifier = safeDecode(segment);
  if (!identifier || !identifierPattern.test(identifier)) return notFound();
  const answer = await loadConfig(identifier);
  if (answer.ok) return renderForm(answer.data);
  if (answer.error.status === 404) return notFound();
  if (answer.error.status === 401 && answer.error.authType)
    return renderAccess(identifier, answer.error.authType);
  unavailable(answer.error);
}

function unavailable(error: ServerError): void {
  document.title = 'Form unavailable';
  show(h('h1', {}, 'This form could not be loaded'), h('p', { role: 'alert' }, topMessageOf(error)));
}

/**
 * A password or e-mail form before access: the page knows only which of the two it asks for. What
 * the person enters is checked by loading the configuration with it; a refusal stays on this step.
 */
function renderAccess(identifier: string, authType: AccessType): void {
  document.title = 'Protected form';
  const access = accessStep(authType, async (credentials) => {
    const answer = await loadConfig(identifier, credentials);
    if (answer.ok) return void renderForm(answer.data, credentials);
    if (answer.error.status === 404) return void notFound();
    return topMessageOf(answer.error);
  });
  show(h('header', {}, h('h1', {}, 'Protected form')), access.element);
  focusOn(access.input);
}

function safeDecode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

function renderForm(config: FormConfig, given?: Credentials): void {
  let credentials = given;
  document.title = config.title;
  const header = h(
    'header',
    {},
    h('h1', {}, config.title),
    config.description ? h('p', { class: 'form-description' }, config.description) : null,
  );
  if (config.fields.length === 0) {
    show(header, h('p', { class: 'notice', role: 'status' }, 'No input fields configured'));
    return;
  }

  // Shown again when a submission is refused (the password changed meanwhile); checked the same way.
  const access =
    config.authType === 'public'
      ? undefined
      : accessStep(config.authType, async (next) => {
          const answer = await loadConfig(config.identifier, next);
          if (!answer.ok) return topMessageOf(answer.error);
          credentials = next;
          openFields(true);
        });
  const controls = config.fields.map(fieldControl);
  const topError = h('div', { class: 'form-error', role: 'alert' });
  const submitButton = h('button', { type: 'submit', class: 'primary' }, 'Submit');
  const backButton = access
    ? h(
        'button',
        { type: 'button', class: 'secondary' },
        config.authType === 'password' ? 'Change password' : 'Change e-mail',
      )
    : null;
  const fieldsForm = h(
    'form',
    { class: 'step', novalidate: true, 'aria-label': config.title },
    topError,
    ...controls.map((control) => control.element),
    h('div', { class: 'actions' }, submitButton, backButton),
  );
  show(header, ...(access ? [access.element] : []), fieldsForm);

  function openFields(moveFocus: boolean): void {
    if (access) access.element.hidden = true;
    fieldsForm.hidden = false;
    if (moveFocus) focusOn(controls[0].input);
  }
  function openAccess(message?: string): void {
    if (!access) return;
    fieldsForm.hidden = true;
    access.element.hidden = false;
    access.showError(message);
    focusOn(access.input);
  }
  function showTop(message?: string): void {
    topError.replaceChildren(...(message ? [h('p', {}, message)] : []));
  }
  backButton?.addEventListener('click', () => openAccess());
  if (access) access.element.hidden = true;
  // Coming from the access step: the person goes on where the form begins.
  if (given) focusOn(controls[0].input);

  fieldsForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (fieldsForm.getAttribute('aria-busy') === 'true') return;
    showTop();
    const invalid = controls.filter((control) => {
      const checked = control.check();
      control.showError(checked.ok ? undefined : checked.message);
      return !checked.ok;
    });
    if (invalid.length > 0) {
      showTop(
        invalid.length === 1
          ? 'One answer needs a change: see the note below.'
          : 'Some answers need a change: see the notes below.',
      );
      return focusOn(invalid[0].input);
    }

    setBusy(true);
    const submission = await submissionOf(controls, credentials).catch((error: Error) => {
      showTop(`A file could not be read (${error.message}). Choose it again and retry.`);
      return undefined;
    });
    const answer = submission ? await submitForm(config.identifier, submission) : undefined;
    setBusy(false);
    if (!answer) return;
    if (answer.ok) return thankYou(config, header, credentials);
    onRefused(answer.error);
  });

  function onRefused(error: ServerError): void {
    if (error.status === 401 || error.status === 403) {
      openAccess(topMessageOf(error));
      return;
    }
    const fieldErrors = fieldErrorsOf(error, config.fields);
    for (const control of controls) control.showError(fieldErrors.get(control.field.name));
    showTop(topMessageOf(error));
    const first = controls.find((control) => fieldErrors.has(control.field.name));
    focusOn(first ? first.input : topError);
  }

  function setBusy(busy: boolean): void {
    fieldsForm.setAttribute('aria-busy', String(busy));
    submitButton.disabled = busy;
    submitButton.textContent = busy ? 'Sending…' : 'Submit';
  }
}

async function submissionOf(controls: FieldControl[], credentials: Credentials = {}): Promise<Submission> {
  const formData: Record<string, unknown> = {};
  for (const control of controls) {
    const value = await control.value();
    if (value !== undefined) formData[control.field.name] = value;
  }
  return { formData, ...credentials };
}

type AccessType = Exclude<FormConfig['authType'], 'public'>;

interface AccessStep {
  element: HTMLFormElement;
  input: HTMLInputElement;
  showError(message?: string): void;
}

/**
 * The step that asks for the password or the address. `check` asks the server and answers the
 * message of a refusal, or nothing once the page has moved on.
 */
function accessStep(
  authType: AccessType,
  check: (credentials: Credentials) => Promise<string | undefined>,
): AccessStep {
  const password = authType === 'password';
  const id = uniqueId('access');
  const headingId = `${id}-heading`;
  const errorId = `${id}-error`;
  const input = h('input', {
    id,
    name: password ? 'password' : 'email',
    type: password ? 'password' : 'email',
    autocomplete: password ? 'current-password' : 'email',
    required: true,
    'aria-describedby': errorId,
  });
  const error = h('p', { id: errorId, class: 'field-error', hidden: true });
  const continueButton = h('button', { type: 'submit', class: 'primary' }, 'Continue');
  const element = h(
    'form',
    { class: 'step', novalidate: true, 'aria-labelledby': headingId },
    h('h2', { id: headingId }, password ? 'This form is protected' : 'Who is filling in this form?'),
    h(
      'p',
      {},
      password
        ? 'Enter the password you were given to open the form.'
        : 'Only some people may use this form. Enter your e-mail address.',
    ),
    h(
      'div',
      { class: 'field' },
      h('label', { for: id }, password ? 'Password' : 'E-mail address'),
      input,
      error,
    ),
    h('div', { class: 'actions' }, continueButton),
  );
  const step: AccessStep = {
    element,
    input,
    showError(message) {
      error.textContent = message ?? '';
      error.hidden = !message;
      if (message) input.setAttribute('aria-invalid', 'true');
      else input.removeAttribute('aria-invalid');
    },
  };
  element.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (element.getAttribute('aria-busy') === 'true') return;
    const checked = password ? checkPassword(input.value) : checkEmail(input.value);
    if (!checked.ok) {
      step.showError(checked.message);
      return focusOn(input);
    }
    step.showError();
    element.setAttribute('aria-busy', 'true');
    continueButton.disabled = true;
    const refused = await check(password ? { password: input.value } : { email: input.value.trim() }).finally(
      () => {
        element.setAttribute('aria-busy', 'false');
        continueButton.disabled = false;
      },
    );
    if (refused === undefined) return;
    step.showError(refused);
    focusOn(input);
  });
  return step;
}

function thankYou(config: FormConfig, header: HTMLElement, credentials?: Credentials): void {
  const message = h('p', { class: 'thanks', role: 'status' }, config.thankYouMessage);
  const again = h('button', { type: 'button', class: 'secondary' }, 'Send another response');
  again.addEventListener('click', () => renderForm(config, credentials));
  show(header, message, h('div', { class: 'actions' }, again));
  focusOn(message);
}

start().catch(() =>
  show(
    h('h1', {}, 'This form could not be loaded'),
    h('p', { role: 'alert' }, topMessageOf({ status: 500 })),
  ),
);
