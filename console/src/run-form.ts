/** "Run": a form made from the start block's input format, and the run's answer. */
import { useState } from 'preact/hooks';
import { post, pathOf } from './api';
import { html } from './html';
import { hrefOf } from './route';
import type { InputField, Workflow } from './types';
import { ErrorNote, JsonView, Status, useAction } from './ui';

interface RunAnswer {
  success: boolean;
  output?: unknown;
  error?: string;
  metadata?: { executionId?: string; duration?: number };
}

export class InputError extends Error {
  override readonly name = 'InputError';
  readonly status = 400;
}

function inputValueOf(field: InputField, text: string, checked: boolean): unknown {
  switch (field.type) {
    case 'boolean':
      return checked;
    case 'number': {
      if (text.trim() === '') return undefined;
      const number = Number(text);
      if (Number.isNaN(number)) throw new InputError(`${field.name} must be a number`);
      return number;
    }
    case 'object':
    case 'array':
    case 'files':
    case 'file[]':
      if (text.trim() === '') return undefined;
      try {
        return JSON.parse(text);
      } catch (cause) {
        throw new InputError(`${field.name} must be JSON (${field.type === 'object' ? '{…}' : '[…]'})`, {
          cause,
        });
      }
    default:
      return text === '' ? undefined : text;
  }
}

export function RunForm({
  workspaceId,
  workflow,
  fields,
}: {
  workspaceId: string;
  workflow: Workflow;
  fields: InputField[];
}) {
  const [answer, setAnswer] = useState<RunAnswer | undefined>();
  const action = useAction();

  const submit = (event: Event) => {
    event.preventDefault();
    const form = event.target as HTMLFormElement;
    void action.run(async () => {
      setAnswer(undefined);
      const input: Record<string, unknown> = {};
      for (const field of fields) {
        const element = form.elements.namedItem(`input-${field.name}`) as HTMLInputElement | null;
        const value = inputValueOf(field, element?.value ?? '', element?.checked ?? false);
        if (value !== undefined) input[field.name] = value;
      }
      setAnswer(
        await post<RunAnswer>(pathOf`/api/workflows/${workflow.id}/run`, {
          input,
          ...(workflow.isDeployed ? {} : { draft: true }),
        }),
      );
    });
  };

  return html`<form class="run-form" onSubmit=${submit} aria-label="Run ${workflow.name}">
    ${fields.length === 0 && html`<p>The start block takes no input.</p>`}
    ${fields.map((field) => {
      const id = `input-${field.name}`;
      const label = html`<label for=${id}>${field.name}${field.required ? ' (required)' : ''} <span class="muted">${field.type}</span></label>`;
      if (field.type === 'boolean')
        return html`<div class="field checkbox"><input id=${id} name=${id} type="checkbox" checked=${field.default === true} />${label}</div>`;
      if (['object', 'array', 'files', 'file[]'].includes(field.type))
        return html`<div class="field">${label}<textarea id=${id} name=${id} rows="3" required=${field.required}
          placeholder=${field.type === 'object' ? '{ }' : '[ ]'}>${field.default === undefined ? '' : JSON.stringify(field.default)}</textarea>
          ${field.description && html`<small>${field.description}</small>`}</div>`;
      return html`<div class="field">${label}<input id=${id} name=${id} type=${field.type === 'number' ? 'number' : 'text'} step="any"
        required=${field.required} value=${field.default === undefined ? '' : String(field.default)} />
        ${field.description && html`<small>${field.description}</small>`}</div>`;
    })}
    <button type="submit" disabled=${action.busy}>${action.busy ? 'Running…' : workflow.isDeployed ? 'Run' : 'Run the saved draft'}</button>
    <${ErrorNote} error=${action.error} />
    ${
      answer &&
      html`<div class="run-answer" role="status">
        <p><${Status} status=${answer.success ? 'success' : 'error'} />
          ${answer.metadata?.executionId && html` · <a href=${hrefOf(['w', workspaceId, 'runs', `log_${answer.metadata.executionId}`])}>Open the run</a>`}</p>
        ${answer.error && html`<p class="error-note">${answer.error}</p>`}
        <${JsonView} label="Output" value=${answer.output} open=${true} />
      </div>`
    }
  </form>`;
}
