/**
 * Environment variables where the runtime has them: Node, Bun and Deno (with `process`) read
 * `process.env`; a browser, a Cloudflare worker without Node compatibility or an edge function without
 * `process` gets an empty record, so API keys there are passed explicitly.
 *
 * @module
 */

/** Environment variables by name, as `process.env` holds them. */
export type Env = Readonly<Record<string, string | undefined>>;

/** `process.env` when the runtime has one, else `{}`. Never throws (Deno without `--allow-env` included). */
export function processEnv(): Env {
  try {
    const env = (globalThis as { process?: { env?: Env } }).process?.env;
    return env ?? {};
  } catch {
    return {};
  }
}

/** The value trimmed, or `undefined` when it is missing or blank. */
export function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}
