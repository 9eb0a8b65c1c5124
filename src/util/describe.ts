/**
 * Readable text for any value: JSON that survives cycles, and a description of anything thrown (an
 * `Error` or not), so no message ever reads `[object Object]`.
 *
 * @module
 */

/**
 * JSON of `value`, with `"[Circular]"` in place of a reference back to an object that encloses it (a value
 * seen twice side by side is written twice), `bigint` as its digits, `Map` / `Set` as their entries.
 *
 * @throws whatever a `toJSON` method throws.
 */
export function safeJson(value: unknown): string | undefined {
  // The objects enclosing the one being written: JSON.stringify calls the replacer with `this` bound to the
  // holder, so the chain is trimmed back to the holder before each value.
  const ancestors: object[] = [];
  return JSON.stringify(value, function (this: unknown, _key, current: unknown) {
    if (typeof current === 'bigint') return current.toString();
    if (typeof current !== 'object' || current === null) return current;
    while (ancestors.length > 0 && ancestors.at(-1) !== this) ancestors.pop();
    if (ancestors.includes(current)) return '[Circular]';
    ancestors.push(current);
    if (current instanceof Map) return Object.fromEntries(current);
    if (current instanceof Set) return [...current];
    return current;
  });
}

/**
 * A thrown value, described for a person or a model: an Error's message (or its name when empty); a
 * string as it is; an object with a string `message` by that message; anything else as JSON (or its
 * `String` form), e.g. `a non-Error value: {"code":42}`.
 */
export function describeThrown(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  if (typeof error === 'string') return error || 'an empty string was thrown';
  if (typeof error === 'object' && error !== null) {
    const message = (error as { message?: unknown }).message;
    if (typeof message === 'string' && message) return message;
  }
  let text: string | undefined;
  try {
    text = safeJson(error);
  } catch {
    text = undefined;
  }
  return `a non-Error value: ${text ?? String(error)}`;
}
