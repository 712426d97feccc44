/** `LOCAL_HANDLERS` (local/bundles/mode.ts): sources by default, bundles on request, nothing else. */
import { describe, expect, it } from 'vitest';
import { HandlersModeError, handlersModeOf } from '../../../local/bundles/mode';

describe('handlersModeOf', () => {
  it.each([
    [undefined, 'sources'],
    ['', 'sources'],
    ['sources', 'sources'],
    ['bundles', 'bundles'],
  ])('reads %j as %s', (value, mode) => {
    // Act
    const read = handlersModeOf(value);

    // Assess
    expect(read).toBe(mode);
  });

  it('refuses any other value, naming the variable and what it may be', () => {
    // Act
    const refuse = () => handlersModeOf('lambdas');

    // Assess
    expect(refuse).toThrow(HandlersModeError);
    expect(refuse).toThrow('LOCAL_HANDLERS must be "sources" (the default) or "bundles", not "lambdas"');
  });
});
