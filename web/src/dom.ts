/**
 * Builds elements from attributes and children. Text always goes in as text nodes, never as
 * markup: titles, labels and messages come from whoever configured the form.
 */
type Child = Node | string | null | undefined | false;
type Attributes = Record<string, string | number | boolean | undefined>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    element.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child);
  }
  return element;
}

let counter = 0;
/** A page-unique id for `for`, `aria-describedby` and the like. */
export const uniqueId = (prefix: string) => `${prefix}-${++counter}`;

/** Moves focus to a heading or message so screen readers announce the new step. */
export function focusOn(element: HTMLElement): void {
  if (!element.hasAttribute('tabindex') && !/^(INPUT|TEXTAREA|BUTTON|SELECT|A)$/.test(element.tagName)) {
    element.setAttribute('tabindex', '-1');
  }
  element.focus();
}
