/**
 * Model specs: the `--model` strings (`openai:gpt-4o-mini`, `openai-compatible:<url>#<model>`, ...)
 * parsed into a {@link ModelSpec} and resolved into a {@link Model}.
 *
 * Provider packages and the AI SDK are imported lazily inside {@link resolveModelSpec}, so importing
 * this module (or running `taoloop --help`) loads none of them.
 *
 * @module
 */

import { type Env, nonEmpty, processEnv } from '../util/env.js';
import { ModelConfigError } from './errors.js';
import { API_KEY_VARIABLES, resolveHostedModel } from './providers.js';
import type { Model, ModelSpec, ResolveModelOptions } from './types.js';

export type { ModelSpec, ResolveModelOptions } from './types.js';

/** The accepted spec forms, as listed in error messages. */
export const MODEL_SPEC_FORMS: readonly string[] = [
  'openai:<model>                      e.g. openai:gpt-4o-mini (needs OPENAI_API_KEY)',
  'anthropic:<model>                   e.g. anthropic:claude-3-5-haiku-latest (needs ANTHROPIC_API_KEY)',
  'google:<model>                      e.g. google:gemini-2.0-flash (needs GOOGLE_GENERATIVE_AI_API_KEY)',
  'ollama:<model>                      e.g. ollama:llama3.1:8b (OLLAMA_BASE_URL, default http://127.0.0.1:11434/v1)',
  'openai-compatible:<base-url>#<model> e.g. openai-compatible:http://127.0.0.1:8080/v1#my-model',
  'local:[<file.gguf> | hf:<user>/<repo>/<file>.gguf] e.g. local:./model.gguf (in-process llama.cpp; local: alone downloads Qwen2.5-1.5B-Instruct)',
  'replay:<trace.jsonl>                e.g. replay:runs/run.jsonl (replays the model turns of a recorded run)',
];

/**
 * The model picked for each hosted provider when only its API key is set, in the order they are tried
 * (by {@link defaultModelSpec} and `chooseModel`).
 */
export const HOSTED_DEFAULT_MODELS: readonly { spec: string; keyVariable: string }[] = [
  { spec: 'openai:gpt-4o-mini', keyVariable: API_KEY_VARIABLES.openai },
  { spec: 'anthropic:claude-3-5-haiku-latest', keyVariable: API_KEY_VARIABLES.anthropic },
  { spec: 'google:gemini-2.0-flash', keyVariable: API_KEY_VARIABLES.google },
];

function specError(spec: string, problem: string): ModelConfigError {
  return new ModelConfigError(
    `Invalid model spec ${JSON.stringify(spec)}: ${problem}.\nAccepted forms:\n${MODEL_SPEC_FORMS.map((form) => `  ${form}`).join('\n')}`,
  );
}

/**
 * Parses a model spec string. Whitespace around the spec is ignored; the provider name is
 * case-insensitive; everything after the first `:` is the model (so `ollama:llama3.1:8b` works).
 * For `openai-compatible`, the model follows the last `#` and the base URL must be http(s).
 *
 * @throws {ModelConfigError} for an empty spec, a missing or unknown provider, an empty model, a
 *   missing `#<model>` or a malformed base URL; the message lists the accepted forms.
 */
export function parseModelSpec(spec: string): ModelSpec {
  const trimmed = spec.trim();
  if (trimmed === '') throw specError(spec, 'the spec is empty');
  if (/^https?:\/\//i.test(trimmed)) {
    throw specError(spec, `a server URL needs the provider prefix: openai-compatible:${trimmed}`);
  }
  const colon = trimmed.indexOf(':');
  if (colon === -1) throw specError(spec, 'no provider prefix (write <provider>:<model>)');
  const provider = trimmed.slice(0, colon).toLowerCase();
  const rest = trimmed.slice(colon + 1).trim();
  switch (provider) {
    case 'openai':
    case 'anthropic':
    case 'google':
    case 'ollama':
      if (rest === '') throw specError(spec, `no model after "${provider}:"`);
      return { provider, modelId: rest };
    case 'openai-compatible':
      return parseCompatible(spec, rest);
    case 'local':
      return { provider: 'local', source: rest };
    case 'replay':
      if (rest === '') throw specError(spec, 'no trace file after "replay:"');
      return { provider: 'replay', file: rest };
    default:
      throw specError(spec, `unknown provider "${provider}"`);
  }
}

function parseCompatible(spec: string, rest: string): ModelSpec {
  const hash = rest.lastIndexOf('#');
  if (hash === -1) throw specError(spec, 'openai-compatible needs "#<model>" after the base URL');
  const baseURL = rest.slice(0, hash).trim().replace(/\/+$/, '');
  const modelId = rest.slice(hash + 1).trim();
  if (modelId === '') throw specError(spec, 'the model after "#" is empty');
  let url: URL;
  try {
    url = new URL(baseURL);
  } catch {
    throw specError(spec, `"${baseURL}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw specError(spec, `the base URL must start with http:// or https://, not ${url.protocol}//`);
  }
  return { provider: 'openai-compatible', baseURL, modelId };
}

/**
 * Parses `spec` and builds the model, importing only the provider package it needs.
 *
 * - `openai:<model>`: `@ai-sdk/openai`, Chat Completions API (`provider.chat`) because the default
 *   Responses API does not support stop sequences; key `OPENAI_API_KEY`, optional `OPENAI_BASE_URL`.
 * - `anthropic:<model>`: `@ai-sdk/anthropic`, key `ANTHROPIC_API_KEY`, optional `ANTHROPIC_BASE_URL`.
 * - `google:<model>`: `@ai-sdk/google`, key `GOOGLE_GENERATIVE_AI_API_KEY`, optional
 *   `GOOGLE_GENERATIVE_AI_BASE_URL`.
 * - `ollama:<model>`: `@ai-sdk/openai-compatible` at `OLLAMA_BASE_URL` (default
 *   `http://127.0.0.1:11434/v1`); the Ollama community provider drops stop sequences.
 * - `openai-compatible:<base-url>#<model>`: `@ai-sdk/openai-compatible`; API key from
 *   `TAOLOOP_API_KEY` or `OPENAI_COMPATIBLE_API_KEY` when set (optional).
 *
 * - `local:...` and `replay:<trace.jsonl>` need Node (llama.cpp in process; reading a file): this portable
 *   version refuses them with a {@link ModelConfigError} naming `taoloop/node`, whose `resolveModelSpec`
 *   accepts every form.
 *
 * A hosted provider's package (`@ai-sdk/openai`, `@ai-sdk/anthropic`, `@ai-sdk/google`) is an optional
 * peer dependency: when it is not installed, the error says the one `npm install` command that adds it.
 *
 * OpenAI-compatible models are created with `includeUsage: true` so streams report usage.
 * No temperature default is set here (the loop sends 0).
 *
 * @param env Where API keys and base URLs are read from. @default `process.env` where the runtime has one, else `{}`
 * @param options Settings for the AI SDK providers (see {@link ResolveModelOptions}).
 * @throws {ModelConfigError} for a bad spec, a missing API key (naming the variable to set) or a
 *   `maxRetries` that is not a whole number 0 or more, a provider package that is not installed, or a
 *   `local:` / `replay:` spec (use `taoloop/node`).
 */
export async function resolveModelSpec(
  spec: string,
  env: Env = processEnv(),
  options: ResolveModelOptions = {},
): Promise<Model> {
  const parsed = parseModelSpec(spec);
  checkMaxRetries(options.maxRetries);
  if (parsed.provider === 'local' || parsed.provider === 'replay') {
    const what = parsed.provider === 'local' ? 'run llama.cpp in the process' : 'read a trace file';
    throw new ModelConfigError(
      `"${parsed.provider}:" models ${what} and need Node: import { resolveModelSpec } from 'taoloop/node'.`,
    );
  }
  return resolveHostedModel(parsed, env, options);
}

/**
 * @throws {ModelConfigError} when `maxRetries` is given and is not a whole number 0 or more.
 */
export function checkMaxRetries(maxRetries: number | undefined): void {
  if (maxRetries !== undefined && !(Number.isInteger(maxRetries) && maxRetries >= 0)) {
    throw new ModelConfigError(
      `maxRetries must be a whole number of retries (0 or more), not ${maxRetries}.`,
    );
  }
}

/**
 * The model spec to use when none was given: `TAOLOOP_MODEL` if set, else the first hosted
 * provider whose API key is set (`openai:gpt-4o-mini`, `anthropic:claude-3-5-haiku-latest`,
 * `google:gemini-2.0-flash`, in that order), else `undefined`. Synchronous and without I/O: it does
 * not look for Ollama or the embedded model; `chooseModel` (`./choose.ts`) does.
 *
 * @param env @default process.env
 */
export function defaultModelSpec(env: Env = processEnv()): string | undefined {
  const configured = nonEmpty(env.TAOLOOP_MODEL);
  if (configured !== undefined) return configured;
  return HOSTED_DEFAULT_MODELS.find(({ keyVariable }) => nonEmpty(env[keyVariable]) !== undefined)?.spec;
}

/**
 * A short multi-line help text on configuring a model, for the CLI's "no model configured" error and
 * `taoloop models`. It lists every spec form and the order in which a model is chosen without
 * `--model` (see `chooseModel` in `./choose.ts`).
 */
export function describeModelSetup(): string {
  return [
    'Configure a model with --model <spec> or the TAOLOOP_MODEL environment variable:',
    '  --model openai-compatible:http://127.0.0.1:8080/v1#my-model   any OpenAI-compatible server',
    '                                      (llama.cpp, vLLM, LM Studio; key in TAOLOOP_API_KEY if needed)',
    '  --model openai:gpt-4o-mini          with OPENAI_API_KEY set (OPENAI_BASE_URL optional)',
    '  --model anthropic:claude-3-5-haiku-latest   with ANTHROPIC_API_KEY set',
    '  --model google:gemini-2.0-flash     with GOOGLE_GENERATIVE_AI_API_KEY set',
    '  --model ollama:llama3.1             local Ollama (OLLAMA_BASE_URL, default http://127.0.0.1:11434/v1)',
    '  --model local:./model.gguf          a GGUF file run in-process (llama.cpp); local: alone downloads',
    '                                      the default small model (Qwen2.5-1.5B-Instruct) once',
    'Without --model: TAOLOOP_MODEL, else the first provider whose API key is set (OpenAI, Anthropic,',
    'Google), else a local Ollama answering on 127.0.0.1:11434 (its first model), else the embedded',
    'local model. `taoloop models` shows what is configured and which one would be chosen.',
  ].join('\n');
}
