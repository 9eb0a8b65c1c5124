/**
 * Building an AI SDK model for a hosted or OpenAI-compatible spec, importing only the provider package it
 * needs. `@ai-sdk/openai-compatible` (Ollama, llama.cpp's server, vLLM, ...) is a dependency; the
 * OpenAI, Anthropic and Google providers are optional peer dependencies, installed when wanted.
 *
 * @module
 */

import { type Env, nonEmpty } from '../util/env.js';
import { importAtRunTime } from '../util/runtime-import.js';
import type { AiSdkLanguageModel } from './ai-sdk.js';
import { trackingFetch } from './call-progress.js';
import { ModelConfigError } from './errors.js';
import type { Model, ModelSpec, ResolveModelOptions } from './types.js';

/** The API key variable each hosted provider needs. */
export const API_KEY_VARIABLES = {
  openai: 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
  google: 'GOOGLE_GENERATIVE_AI_API_KEY',
} as const;

/**
 * The provider packages that are optional peer dependencies, with the exact version taoloop is tested
 * with: the `npm install` command in the "not installed" error names it.
 */
export const OPTIONAL_PROVIDER_PACKAGES = {
  openai: '@ai-sdk/openai@3.0.141',
  anthropic: '@ai-sdk/anthropic@3.0.140',
  google: '@ai-sdk/google@3.0.141',
} as const;

const DEFAULT_OLLAMA_BASE_URL = 'http://127.0.0.1:11434/v1';

/** A spec that {@link resolveHostedModel} builds: everything but `local:` and `replay:`. */
export type HostedModelSpec = Exclude<ModelSpec, { provider: 'local' } | { provider: 'replay' }>;

/**
 * The model for a hosted or OpenAI-compatible spec (see `resolveModelSpec` for each provider's
 * variables).
 *
 * @throws {ModelConfigError} for a missing API key (naming the variable) or a provider package that is
 * not installed (naming the `npm install` command).
 */
export async function resolveHostedModel(
  parsed: HostedModelSpec,
  env: Env,
  options: ResolveModelOptions,
): Promise<Model> {
  const id =
    parsed.provider === 'openai-compatible'
      ? `openai-compatible:${parsed.baseURL}#${parsed.modelId}`
      : `${parsed.provider}:${parsed.modelId}`;
  const { fromLanguageModel } = await import('./ai-sdk.js');
  const wrap = (model: AiSdkLanguageModel) =>
    fromLanguageModel(
      model,
      options.maxRetries === undefined ? { id } : { id, maxRetries: options.maxRetries },
    );
  switch (parsed.provider) {
    case 'openai': {
      const apiKey = requireKey(env, API_KEY_VARIABLES.openai, id);
      const baseURL = nonEmpty(env.OPENAI_BASE_URL);
      const { createOpenAI } = await importProvider<typeof import('@ai-sdk/openai')>('openai');
      const provider = createOpenAI({
        apiKey,
        fetch: trackingFetch,
        ...(baseURL === undefined ? {} : { baseURL }),
      });
      return wrap(provider.chat(parsed.modelId));
    }
    case 'anthropic': {
      const apiKey = requireKey(env, API_KEY_VARIABLES.anthropic, id);
      const baseURL = nonEmpty(env.ANTHROPIC_BASE_URL);
      const { createAnthropic } = await importProvider<typeof import('@ai-sdk/anthropic')>('anthropic');
      const provider = createAnthropic({
        apiKey,
        fetch: trackingFetch,
        ...(baseURL === undefined ? {} : { baseURL }),
      });
      return wrap(provider.languageModel(parsed.modelId));
    }
    case 'google': {
      const apiKey = requireKey(env, API_KEY_VARIABLES.google, id);
      const baseURL = nonEmpty(env.GOOGLE_GENERATIVE_AI_BASE_URL);
      const { createGoogleGenerativeAI } = await importProvider<typeof import('@ai-sdk/google')>('google');
      const provider = createGoogleGenerativeAI({
        apiKey,
        fetch: trackingFetch,
        ...(baseURL === undefined ? {} : { baseURL }),
      });
      return wrap(provider.languageModel(parsed.modelId));
    }
    case 'ollama':
      return wrap(await compatibleModel('ollama', ollamaBaseURL(env.OLLAMA_BASE_URL), parsed.modelId));
    case 'openai-compatible': {
      const apiKey = nonEmpty(env.TAOLOOP_API_KEY) ?? nonEmpty(env.OPENAI_COMPATIBLE_API_KEY);
      return wrap(await compatibleModel('openai-compatible', parsed.baseURL, parsed.modelId, apiKey));
    }
    default: {
      const unreachable: never = parsed;
      throw new ModelConfigError(`Unhandled model spec ${JSON.stringify(unreachable)}`);
    }
  }
}

/**
 * Imports an optional provider package, turning "not installed" into the command that installs it.
 *
 * The package is imported at run time only ({@link importAtRunTime}), so an app's bundler never looks for
 * it: an app that bundles taoloop for a browser or an edge runtime passes an AI SDK model object instead
 * (`fromLanguageModel(openai('gpt-4o-mini'))`), and `resolveModelSpec('openai:...')` is for Node, Bun and
 * Deno, where the package is resolved from `node_modules` when it is used.
 *
 * @param load How to import it. @default `importAtRunTime` of the provider's package name
 * @throws {ModelConfigError} `<provider>: models need the <package> package: run \`npm install <package>@<version>\``.
 */
export async function importProvider<T>(
  provider: keyof typeof OPTIONAL_PROVIDER_PACKAGES,
  load: () => Promise<T> = () => importAtRunTime<T>(providerPackage(provider)),
): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (!isModuleNotFound(error)) throw error;
    const pinned = OPTIONAL_PROVIDER_PACKAGES[provider];
    const name = providerPackage(provider);
    throw new ModelConfigError(
      `"${provider}:" models need the ${name} package, which is not installed: run \`npm install ${pinned}\`.`,
    );
  }
}

/** The package name of an optional provider (`@ai-sdk/openai` for `openai`). */
function providerPackage(provider: keyof typeof OPTIONAL_PROVIDER_PACKAGES): string {
  const pinned = OPTIONAL_PROVIDER_PACKAGES[provider];
  return pinned.slice(0, pinned.lastIndexOf('@'));
}

/** Node's ERR_MODULE_NOT_FOUND, or another runtime's "cannot find module/package" error. */
export function isModuleNotFound(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') return true;
  const message = error instanceof Error ? error.message : '';
  return /cannot find (module|package)|module not found|failed to resolve module/i.test(message);
}

function requireKey(env: Env, variable: string, spec: string): string {
  const key = nonEmpty(env[variable]);
  if (key === undefined) {
    throw new ModelConfigError(`Model "${spec}" needs an API key: set ${variable} in the environment.`);
  }
  return key;
}

/**
 * Ollama serves the OpenAI-compatible API under `/v1`. A base URL given as the bare host
 * (`http://host:11434`) or with Ollama's native `/api` path is pointed at `/v1`.
 */
function ollamaBaseURL(value: string | undefined): string {
  const base = (nonEmpty(value) ?? DEFAULT_OLLAMA_BASE_URL).replace(/\/+$/, '');
  if (/\/api$/.test(base)) return `${base.slice(0, -4)}/v1`;
  return /^https?:\/\/[^/]+$/i.test(base) ? `${base}/v1` : base;
}

async function compatibleModel(name: string, baseURL: string, modelId: string, apiKey?: string) {
  const { createOpenAICompatible } = await import('@ai-sdk/openai-compatible');
  const provider = createOpenAICompatible({
    name,
    baseURL,
    includeUsage: true,
    fetch: trackingFetch,
    ...(apiKey === undefined ? {} : { apiKey }),
  });
  return provider.chatModel(modelId);
}
