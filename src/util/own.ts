/**
 * Small shared helpers.
 *
 * @module
 */

/** Looks a key up as an own property only, so `__proto__` or `constructor` never resolve to built-ins. */
export function getOwn<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/** The message of anything thrown. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}
