/**
 * Choosing a model when the user did not name one, and explaining the choice (`taoloop models`).
 *
 * The chain, first available wins: `--model`, then `TAOLOOP_MODEL`, then the first hosted provider
 * whose API key is set (OpenAI, Anthropic, Google: {@link HOSTED_DEFAULT_MODELS}), then a local Ollama
 * answering `GET /api/tags` within {@link OLLAMA_PROBE_TIMEOUT_MS} (its first listed model), then
 * the embedded local model (`local:default`, run in-process by llama.cpp).
 *
 * @module
 */
import type { EnsureModelOptions } from './local-download.js';
import { HOSTED_DEFAULT_MODELS } from './spec.js';

/** Where a chosen model spec came from. */
export type ModelChoiceSource = 'flag' | 'env' | 'api-key' | 'ollama' | 'embedded';

/** The model spec to use and why. */
export interface ModelChoice {
  /** A spec for `resolveModelSpec`, e.g. `openai:gpt-4o-mini` or `ollama:qwen2.5:7b`. */
  spec: string;
  source: ModelChoiceSource;
  /** One sentence saying why this model was chosen, for the user. */
  reason: string;
}

/**
 * Lists the models an Ollama server has: the `name`s of `GET <host>/api/tags`, in its order, or
 * `undefined` when nothing answers like Ollama. Must give up when `signal` fires.
 */
export type OllamaProbe = (baseUrl: string, signal: AbortSignal) => Promise<string[] | undefined>;

/** Options for {@link chooseModel} and {@link describeModelChoices}. */
export interface ChooseModelOptions {
  /** The `--model` value, when given; used as is (parsed only when resolved). */
  flag?: string | undefined;
  /**
   * Where `TAOLOOP_MODEL`, the API keys and `OLLAMA_BASE_URL` (default `http://127.0.0.1:11434`; a
   * `/v1` or `/api` suffix is ignored here) are read from.
   * @default process.env
   */
  env?: NodeJS.ProcessEnv;
  /** Replaces the HTTP probe of Ollama (tests). @default {@link probeOllama} */
  probeOllama?: OllamaProbe;
  /** How long to wait for Ollama, in milliseconds. @default OLLAMA_PROBE_TIMEOUT_MS (500) */
  ollamaTimeoutMs?: number;
  /**
   * {@link describeModelChoices} only: how long to wait for a given endpoint's model list (an
   * `openai-compatible:` or `ollama:` spec from `--model` or `TAOLOOP_MODEL`), in milliseconds.
   * @default ENDPOINT_PROBE_TIMEOUT_MS (2000)
   */
  endpointTimeoutMs?: number;
  /**
   * {@link describeModelChoices} only: how the embedded model is checked (cache folder, the offline check's
   * `lookup`), as a run's download would be; nothing is downloaded.
   */
  localModel?: Pick<EnsureModelOptions, 'cacheDir' | 'lookup' | 'lookupTimeoutMs'>;
}

/** One row of {@link describeModelChoices}: a source in the chain and whether it can be used. */
export interface ModelCandidate {
  /** The spec this source gives; absent when it gives none (unset variable, no Ollama). */
  spec?: string;
  source: ModelChoiceSource;
  available: boolean;
  /** What was found, e.g. `OPENAI_API_KEY is not set`. */
  note: string;
}

/** Every source in the chain, and the one chosen. */
export interface ModelChoiceDescription {
  candidates: ModelCandidate[];
  chosen: ModelChoice;
}

/** Default for {@link ChooseModelOptions.endpointTimeoutMs}. */
export const ENDPOINT_PROBE_TIMEOUT_MS = 2000;

/** Default for {@link ChooseModelOptions.ollamaTimeoutMs}. */
export const OLLAMA_PROBE_TIMEOUT_MS = 500;

/** Where Ollama is looked for when `OLLAMA_BASE_URL` is not set. */
export const DEFAULT_OLLAMA_HOST = 'http://127.0.0.1:11434';

/** The spec of the embedded model when `./local.ts` does not export `DEFAULT_LOCAL_MODEL_SPEC`. */
const FALLBACK_EMBEDDED_SPEC = 'local:default';

/**
 * The model to use: the first available source of the chain (see the module docs). Looks for Ollama
 * only when no earlier source gives a model, and waits for it at most `ollamaTimeoutMs`.
 * Never throws: the embedded model is always available as the last resort (whether it can be loaded
 * is found out when it is resolved).
 *
 * @example
 * ```ts
 * const choice = await chooseModel({ flag: options.model });
 * const model = await resolveModelSpec(choice.spec);
 * ```
 */
export async function chooseModel(options: ChooseModelOptions = {}): Promise<ModelChoice> {
  for await (const candidate of candidates(options)) {
    if (candidate.available && candidate.spec !== undefined) return toChoice(candidate);
  }
  throw new Error('unreachable: the embedded model is always a candidate');
}

/**
 * Every source of the chain with what was found (Ollama is always probed), and the model that
 * {@link chooseModel} would pick: for `taoloop models`. A server named by `--model` or `TAOLOOP_MODEL`
 * (`openai-compatible:<url>#<model>`, `ollama:<model>`) is asked for its model list first
 * (`GET <base-url>/models`, at most `endpointTimeoutMs`), and its note says what that showed and what was not
 * checked (`./endpoint-check.ts`): a server that answers without a list (404) may still serve a run, one
 * that refuses the connection cannot. A run still uses a spec given that way, so it stays the one chosen,
 * its reason adding what the check found unless the server listed the model.
 */
export async function describeModelChoices(
  options: ChooseModelOptions = {},
): Promise<ModelChoiceDescription> {
  const env = options.env ?? process.env;
  const all: ModelCandidate[] = [];
  const caveats = new Map<ModelCandidate, string>();
  for await (const candidate of candidates(options)) {
    if (candidate.available && (candidate.source === 'flag' || candidate.source === 'env')) {
      const timeoutMs = options.endpointTimeoutMs ?? ENDPOINT_PROBE_TIMEOUT_MS;
      const checked = await checkGiven(candidate, env, timeoutMs);
      all.push(checked.candidate);
      if (checked.caveat !== undefined) caveats.set(checked.candidate, checked.caveat);
    } else {
      all.push(
        candidate.source === 'embedded' ? await checkEmbedded(candidate, env, options.localModel) : candidate,
      );
    }
  }
  // A spec given with --model or TAOLOOP_MODEL is what a run uses, answering or not; so is the embedded
  // model when nothing else is there, downloadable or not.
  const given = all.find((c) => (c.source === 'flag' || c.source === 'env') && c.spec !== undefined);
  const first =
    given ?? all.find((c) => c.available && c.spec !== undefined) ?? all.find((c) => c.source === 'embedded');
  if (!first) throw new Error('unreachable: the embedded model is always a candidate');
  return { candidates: all, chosen: toChoice(first, caveats.get(first)) };
}

/**
 * The embedded model's candidate after the check a run makes before downloading it (nothing is downloaded):
 * available when its file is in the cache or a download could start, not when the machine is offline.
 */
async function checkEmbedded(
  candidate: ModelCandidate,
  env: NodeJS.ProcessEnv,
  localModel: ChooseModelOptions['localModel'],
): Promise<ModelCandidate> {
  const { DEFAULT_LOCAL_MODEL_URI, localModelStatus } = await import('./local-download.js');
  if (candidate.spec !== FALLBACK_EMBEDDED_SPEC) return candidate;
  const { LLAMA_CPP_INSTALL, llamaCppInstalled } = await import('./local-engine.js');
  if (!llamaCppInstalled()) {
    return {
      ...candidate,
      available: false,
      note: `in-process llama.cpp, which needs node-llama-cpp: not installed (run \`${LLAMA_CPP_INSTALL}\`)`,
    };
  }
  const status = await localModelStatus(DEFAULT_LOCAL_MODEL_URI, { ...localModel, env });
  if (status.cached !== undefined)
    return { ...candidate, note: `in-process llama.cpp; the default model is downloaded (${status.cached})` };
  if (status.cannotDownload === undefined) return candidate;
  return {
    ...candidate,
    available: false,
    note: `in-process llama.cpp; the default model (${DEFAULT_LOCAL_MODEL_URI}) is not downloaded and cannot be downloaded now: ${status.cannotDownload}`,
  };
}

/**
 * A given spec's candidate after asking its server for the model list (unchanged for other specs), and
 * what the chosen model's reason must add: what the check found, unless the server listed the model.
 */
async function checkGiven(
  candidate: ModelCandidate,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<{ candidate: ModelCandidate; caveat?: string }> {
  const { checkEndpoint, endpointOf } = await import('./endpoint-check.js');
  const ollama = `${ollamaHost(env.OLLAMA_BASE_URL)}/v1`;
  const endpoint = candidate.spec === undefined ? undefined : endpointOf(candidate.spec, ollama);
  if (endpoint === undefined) return { candidate };
  const apiKey = nonEmpty(env.TAOLOOP_API_KEY) ?? nonEmpty(env.OPENAI_COMPATIBLE_API_KEY);
  const found = await checkEndpoint(endpoint, timeoutMs, apiKey);
  return {
    candidate: { ...candidate, available: found.available, note: `${candidate.note}; ${found.said}` },
    ...(!found.confirmed && { caveat: found.said }),
  };
}

/** The sources in order; each is looked at only when the consumer asks for it. */
async function* candidates(options: ChooseModelOptions): AsyncGenerator<ModelCandidate> {
  const env = options.env ?? process.env;
  const flag = nonEmpty(options.flag);
  if (flag !== undefined) yield { spec: flag, source: 'flag', available: true, note: 'given with --model' };
  const configured = nonEmpty(env.TAOLOOP_MODEL);
  yield configured === undefined
    ? { source: 'env', available: false, note: 'TAOLOOP_MODEL is not set' }
    : { spec: configured, source: 'env', available: true, note: 'TAOLOOP_MODEL is set' };
  for (const { spec, keyVariable } of HOSTED_DEFAULT_MODELS) {
    const set = nonEmpty(env[keyVariable]) !== undefined;
    yield { spec, source: 'api-key', available: set, note: `${keyVariable} is ${set ? 'set' : 'not set'}` };
  }
  yield await ollamaCandidate(options, env);
  yield await embeddedCandidate();
}

async function ollamaCandidate(options: ChooseModelOptions, env: NodeJS.ProcessEnv): Promise<ModelCandidate> {
  const host = ollamaHost(env.OLLAMA_BASE_URL);
  const timeoutMs = options.ollamaTimeoutMs ?? OLLAMA_PROBE_TIMEOUT_MS;
  const models = await withTimeout(options.probeOllama ?? probeOllama, host, timeoutMs);
  if (models === undefined) {
    return {
      source: 'ollama',
      available: false,
      note: `no Ollama answered at ${host} within ${timeoutMs} ms`,
    };
  }
  const usable = models.filter((name) => !/embed/i.test(name));
  const first = usable[0];
  if (first === undefined) {
    const what = models.length ? `only embedding models (${models.join(', ')})` : 'no models';
    return {
      source: 'ollama',
      available: false,
      note: `Ollama at ${host} has ${what}: run \`ollama pull qwen2.5:7b\``,
    };
  }
  const more = usable.length > 1 ? ` (first of ${usable.length})` : '';
  return {
    spec: `ollama:${first}`,
    source: 'ollama',
    available: true,
    note: `Ollama at ${host} lists ${first}${more}`,
  };
}

/** Runs the probe with an abort signal and a hard deadline, so a probe that ignores the signal cannot hang. */
async function withTimeout(
  probe: OllamaProbe,
  host: string,
  timeoutMs: number,
): Promise<string[] | undefined> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new DOMException(`no answer within ${timeoutMs} ms`, 'TimeoutError'));
      resolve(undefined);
    }, timeoutMs);
  });
  try {
    return await Promise.race([probe(host, controller.signal).catch(() => undefined), deadline]);
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
}

/**
 * The default {@link OllamaProbe}: `GET <host>/api/tags` (Ollama's list of local models,
 * https://github.com/ollama/ollama/blob/main/docs/api.md#list-local-models), returning each model's
 * `name`. `undefined` for a failed connection, a non-2xx status or a body without a `models` array.
 */
export async function probeOllama(host: string, signal: AbortSignal): Promise<string[] | undefined> {
  try {
    const response = await fetch(`${host}/api/tags`, { signal });
    if (!response.ok) return undefined;
    const body = (await response.json()) as { models?: unknown };
    if (!Array.isArray(body.models)) return undefined;
    return body.models.flatMap((model: unknown) => {
      const name =
        (model as { name?: unknown; model?: unknown } | null)?.name ?? (model as { model?: unknown })?.model;
      return typeof name === 'string' && name !== '' ? [name] : [];
    });
  } catch {
    return undefined;
  }
}

/** Ollama's root URL from `OLLAMA_BASE_URL` (which may end in `/v1` or `/api`). */
export function ollamaHost(baseUrl: string | undefined): string {
  const base = (nonEmpty(baseUrl) ?? DEFAULT_OLLAMA_HOST).replace(/\/+$/, '');
  return base.replace(/\/(v1|api)$/, '');
}

/**
 * The embedded model: `DEFAULT_LOCAL_MODEL_SPEC` from `./local.ts` when it exports one, else
 * `local:default`. Importing `./local.ts` does not load node-llama-cpp.
 */
async function embeddedCandidate(): Promise<ModelCandidate> {
  const local: Record<string, unknown> = await import('./local.js');
  const exported = local.DEFAULT_LOCAL_MODEL_SPEC;
  const spec = typeof exported === 'string' && exported !== '' ? exported : FALLBACK_EMBEDDED_SPEC;
  const uri = typeof local.DEFAULT_LOCAL_MODEL_URI === 'string' ? ` (${local.DEFAULT_LOCAL_MODEL_URI})` : '';
  const note = `in-process llama.cpp; the default model${uri} is downloaded once on first use`;
  return { spec, source: 'embedded', available: true, note };
}

/** The choice of `candidate`; `caveat`: what its server's check found, for a spec given with --model or TAOLOOP_MODEL. */
function toChoice(candidate: ModelCandidate, caveat?: string): ModelChoice {
  const spec = candidate.spec ?? FALLBACK_EMBEDDED_SPEC;
  const found = caveat === undefined ? '' : `; ${caveat}`;
  const reasons: Record<ModelChoiceSource, string> = {
    flag: `--model ${spec} was given${found}`,
    env: `TAOLOOP_MODEL is set to ${spec}${found}`,
    'api-key': `no --model or TAOLOOP_MODEL, and ${candidate.note}`,
    ollama: `no --model, TAOLOOP_MODEL or API key, and ${candidate.note}`,
    embedded: candidate.available
      ? 'no --model, TAOLOOP_MODEL, API key or Ollama model: using the embedded local model'
      : 'no --model, TAOLOOP_MODEL, API key or Ollama model, and the embedded local model cannot be used now (see its note): a run fails until a model is configured',
  };
  return { spec, source: candidate.source, reason: reasons[candidate.source] };
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}

/**
 * Renders {@link describeModelChoices}'s result as a table for the terminal: one row per source in
 * the order they are tried, the chosen one marked with `*`, then the chosen spec and the reason.
 */
export function formatModelChoices(description: ModelChoiceDescription): string {
  const label: Record<ModelChoiceSource, string> = {
    flag: '--model',
    env: 'TAOLOOP_MODEL',
    'api-key': 'API key',
    ollama: 'Ollama',
    embedded: 'embedded',
  };
  const { chosen } = description;
  let marked = false;
  const rows = description.candidates.map((c) => {
    const isChosen = !marked && c.spec === chosen.spec && c.source === chosen.source;
    if (isChosen) marked = true;
    return [isChosen ? '*' : ' ', label[c.source], c.spec ?? '-', c.available ? 'yes' : 'no', c.note];
  });
  const header = [' ', 'source', 'spec', 'available', 'note'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [
    'Models, in the order they are tried (the first available one is used; --model or TAOLOOP_MODEL always is):',
    line(header),
    ...rows.map(line),
    '',
    `Chosen: ${chosen.spec}`,
    `Why: ${chosen.reason}.`,
  ].join('\n');
}
