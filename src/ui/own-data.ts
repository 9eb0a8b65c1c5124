/**
 * Data a client sent, as own data: what a front end reads from a request body is read from a copy made by
 * {@link ownData}, whose objects have no prototype, so a field the client did not send reads as
 * `undefined` even when `Object.prototype` was given that field (prototype pollution anywhere in the
 * process: `Object.prototype.approved = true` must not approve a call).
 *
 * @module
 */

/** How deep {@link ownData} copies by default: far deeper than any request the front ends take. */
const MAX_DEPTH = 200;

/** Thrown by {@link ownData} for data nested deeper than its limit (or holding a cycle). */
export class OwnDataError extends Error {
  override name = 'OwnDataError';
}

/**
 * A deep copy of JSON-like `value` in which every object has no prototype and holds only the original's
 * own enumerable string-keyed data properties (getters are left out, not called); arrays stay arrays, and
 * a hole in one reads as `undefined` (never an inherited index). Strings, numbers, booleans and `null` are
 * kept; anything else (functions, symbols, bigints) becomes `undefined`.
 *
 * @param maxDepth - How many levels of objects and arrays are copied at most. @default 200
 * @throws {OwnDataError} for a value nested deeper than `maxDepth` (a cycle included).
 */
export function ownData(value: unknown, maxDepth = MAX_DEPTH): unknown {
  return copy(value, maxDepth);
}

/** {@link ownData} of `value` when it is an object (not an array), else `undefined`. */
export function ownRecord(value: unknown): Record<string, unknown> | undefined {
  const data = ownData(value);
  return typeof data === 'object' && data !== null && !Array.isArray(data)
    ? (data as Record<string, unknown>)
    : undefined;
}

function copy(value: unknown, depthLeft: number): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
    return value;
  if (typeof value !== 'object') return undefined;
  if (depthLeft <= 0) throw new OwnDataError('the data is nested too deeply');
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (let i = 0; i < value.length; i++) {
      const item = Object.getOwnPropertyDescriptor(value, i);
      out.push(item && 'value' in item ? copy(item.value, depthLeft - 1) : undefined);
    }
    return out;
  }
  const out: Record<string, unknown> = Object.create(null);
  for (const key of Object.keys(value)) {
    const field = Object.getOwnPropertyDescriptor(value, key);
    if (field && 'value' in field) out[key] = copy(field.value, depthLeft - 1);
  }
  return out;
}
