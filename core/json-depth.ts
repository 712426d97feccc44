/**
 * How deep JSON text nests objects and arrays, found without parsing it. Input nested far deeper
 * than any workflow needs only serves to exhaust the stack of whatever walks it later (a schema,
 * the engine, a deep copy), so it is refused where JSON text comes in: request bodies, and object
 * and array inputs that arrive as JSON strings.
 */

/** Deepest nesting of objects and arrays accepted. A workflow graph needs about ten levels. */
export const maxJsonDepth = 100;

/** Whether the text nests objects and arrays deeper than `maxDepth`; one pass, no recursion. */
export function nestsDeeperThan(text: string, maxDepth: number): boolean {
  // Each level takes at least one character.
  if (text.length <= maxDepth) return false;
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 0x5c)
        index += 1; // backslash: skip the escaped character
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x7b || code === 0x5b) {
      depth += 1;
      if (depth > maxDepth) return true;
    } else if (code === 0x7d || code === 0x5d) depth -= 1;
  }
  return false;
}
