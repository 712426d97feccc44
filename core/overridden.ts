/**
 * `target` with some of its methods replaced: every other method (and any added to it later) is
 * the target's own, called on the target. For wrappers that change a few calls of a port.
 */
export function overridden<T extends object>(target: T, overrides: Partial<T>): T {
  return new Proxy(target, {
    get(object, property, receiver) {
      if (Object.hasOwn(overrides, property)) return overrides[property as keyof T];
      const value = Reflect.get(object, property, receiver);
      return typeof value === 'function' ? value.bind(object) : value;
    },
  });
}
