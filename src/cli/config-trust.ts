/**
 * What a config file that taoloop found by itself (`taoloop.config.json` in the current folder, not named
 * with `--config`) may not do: it travels with a repository, so cloning one must not send the user's files
 * or keys somewhere the user did not choose.
 *
 * - The folders and files it names (`docs`, `root`, `wikiCorpus`, `examples`) must lie inside the config
 *   file's own folder, judged on real paths (symbolic links resolved; a sibling `root-evil` beside `root`
 *   is outside).
 * - A model endpoint it names (the URL of `openai-compatible:<url>#<model>`) gets no API key from the
 *   environment unless the user says yes at the terminal; without a terminal the key is held back, with a
 *   message saying how to send it (`--config FILE`).
 *
 * A config named with `--config` (or `TAOLOOP_CONFIG`) was chosen by the user and is trusted like flags.
 *
 * @module
 */
import { realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, sep } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { parseModelSpec } from '../models/spec.js';
import { UsageError } from './errors.js';
import { safeText } from './safe-text.js';

/** The config options that name folders or files, with the flag that sets each. */
export const CONFIG_PATH_FLAGS = {
  docs: '--docs',
  root: '--root',
  wikiCorpus: '--wiki-corpus',
  examples: '--examples',
} as const;

/**
 * Refuses a folder option of a found config that lies outside the config file's folder.
 *
 * @param value the option's value, already resolved against the config file's folder.
 * @throws {UsageError} naming the option, the folder, and how to allow it (the flag, or `--config`).
 */
export function checkFoundConfigPath(key: keyof typeof CONFIG_PATH_FLAGS, value: string, file: string): void {
  const base = realPathOf(dirname(file));
  const target = realPathOf(value);
  if (isInside(base, target)) return;
  const flag = CONFIG_PATH_FLAGS[key];
  throw new UsageError(
    `refused: the config file ${file}, which taoloop found in the current folder, names ${key} ${JSON.stringify(value)}, outside the config file's folder ${base}. A config file found by itself may only name folders inside its own folder. If you mean it, pass ${flag} ${JSON.stringify(value)} yourself, or name the config with --config ${file}.`,
  );
}

/** True when `target` is `base` or lies below it (both real, absolute paths). */
export function isInside(base: string, target: string): boolean {
  const rel = relative(base, target);
  return rel === '' || (!isAbsolute(rel) && rel !== '..' && !rel.startsWith(`..${sep}`));
}

/**
 * The real path of `path`: symbolic links resolved. A path that does not exist yet is resolved through its
 * nearest existing ancestor, so a link further up still counts.
 */
function realPathOf(path: string): string {
  const missing: string[] = [];
  let current = path;
  for (;;) {
    try {
      return join(realpathSync(current), ...missing.reverse());
    } catch {
      const parent = dirname(current);
      if (parent === current) return path;
      missing.push(basename(current));
      current = parent;
    }
  }
}

/** Environment variables holding credentials: held back from an endpoint the user did not choose. */
const CREDENTIAL_NAME = /API_?KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL/i;

/** Streams for the terminal question; the process's by default. */
export interface EndpointPromptOptions {
  input?: NodeJS.ReadableStream & { isTTY?: boolean };
  output?: NodeJS.WritableStream;
}

/**
 * The environment to build the model from when its spec came from a config file taoloop found by itself.
 * When the spec names an endpoint (a URL) and credential variables are set, the user is asked at the
 * terminal whether to send them there; without a terminal, or on any answer but yes, they are left out
 * (and a message on `output` says so and how to send them).
 *
 * @returns `env` itself when nothing is held back, else a copy without the credential variables.
 */
export async function envForFoundConfigModel(
  spec: string,
  file: string,
  env: NodeJS.ProcessEnv,
  options: EndpointPromptOptions = {},
): Promise<NodeJS.ProcessEnv> {
  const endpoint = endpointOf(spec);
  if (endpoint === undefined) return env;
  const keys = Object.keys(env).filter((name) => CREDENTIAL_NAME.test(name) && env[name]?.trim());
  if (keys.length === 0) return env;
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stderr;
  const where = `${safeText(endpoint)}, the model endpoint named by ${safeText(file)} (found in the current folder, not given with --config)`;
  if (
    input.isTTY &&
    (await confirm(input, output, `Send your API key (${keys.join(', ')}) to ${where}? [y/N] `))
  )
    return env;
  output.write(
    `taoloop: your API key (${keys.join(', ')}) is not sent to ${where}. To send it, run with --config ${safeText(file)}, or answer y when asked at a terminal.\n`,
  );
  const kept: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) if (!keys.includes(name)) kept[name] = value;
  return kept;
}

/** The URL a model spec sends requests to, when the spec itself names one. */
function endpointOf(spec: string): string | undefined {
  try {
    const parsed = parseModelSpec(spec);
    return parsed.provider === 'openai-compatible' ? parsed.baseURL : undefined;
  } catch {
    return undefined; // a bad spec fails later, with its own message, before any request
  }
}

/** Asks a yes/no question; only `y` or `yes` is yes (Ctrl-C, Ctrl-D and anything else are no). */
async function confirm(
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
  question: string,
): Promise<boolean> {
  const rl = createInterface({ input, output, terminal: true });
  const closed = new Promise<string>((resolve) => rl.once('close', () => resolve('')));
  const interrupted = new Promise<string>((resolve) => rl.once('SIGINT', () => resolve('')));
  try {
    const answer = await Promise.race([rl.question(question), closed, interrupted]);
    return /^(y|yes)$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}
