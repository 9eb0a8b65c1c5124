/**
 * Before a run starts, a quick check that its model answers: for a model on a server of its own (an
 * OpenAI-compatible server, Ollama), `GET <base URL>/models` with a short timeout. Any HTTP answer will do
 * (a server may want a key for the list, or not have it); no answer at all (nothing listens, the name does
 * not resolve, the time passes) is said on the page before the run starts, instead of a failed run. Hosted
 * providers and models that run here (`local:`, `replay:`, the scripted models of tests) are not checked.
 *
 * @module
 */
import { parseModelSpec } from '../models/spec.js';
import { errorMessage } from '../util/own.js';
import { modelLabel } from './model-label.js';

/** How long the check waits for an answer. */
export const MODEL_CHECK_TIMEOUT_MS = 3000;
/** How long a model that answered is not checked again. */
const ANSWERED_FOR_MS = 60_000;

/** The server a spec's model is on, when it has one of its own. */
export function modelServer(spec: string, env: NodeJS.ProcessEnv): string | undefined {
  let parsed: ReturnType<typeof parseModelSpec>;
  try {
    parsed = parseModelSpec(spec);
  } catch {
    return undefined;
  }
  if (parsed.provider === 'openai-compatible') return parsed.baseURL;
  if (parsed.provider === 'ollama')
    return (env.OLLAMA_BASE_URL || 'http://127.0.0.1:11434/v1').replace(/\/+$/, '');
  return undefined;
}

/**
 * A check for {@link PlaygroundContext.checkModel}: why the model does not answer, or `undefined`. A model
 * that answered is trusted for a minute (a run after a run does not wait for the check again).
 */
export function createModelCheck(
  env: NodeJS.ProcessEnv,
  timeoutMs = MODEL_CHECK_TIMEOUT_MS,
): (spec: string) => Promise<string | undefined> {
  const answered = new Map<string, number>();
  return async (spec) => {
    const server = modelServer(spec, env);
    if (server === undefined) return undefined;
    if ((answered.get(spec) ?? 0) > Date.now()) return undefined;
    const problem = await serverProblem(server, timeoutMs);
    if (problem === undefined) answered.set(spec, Date.now() + ANSWERED_FOR_MS);
    else answered.delete(spec);
    return problem === undefined
      ? undefined
      : `the model ${modelLabel(spec)} does not answer: ${problem}. Start its server (or check its URL), or pick another model.`;
  };
}

/** Why nothing answered `GET <server>/models`, or `undefined` when something did. */
async function serverProblem(server: string, timeoutMs: number): Promise<string | undefined> {
  try {
    const response = await fetch(`${server}/models`, {
      signal: AbortSignal.timeout(timeoutMs),
      redirect: 'manual',
    });
    await response.body?.cancel();
    return undefined;
  } catch (error) {
    if ((error as Error)?.name === 'TimeoutError')
      return `${server} sent no answer within ${timeoutMs / 1000} s`;
    const cause = (error as { cause?: { code?: unknown } })?.cause;
    const code = typeof cause?.code === 'string' ? cause.code : undefined;
    if (code === 'ECONNREFUSED') return `nothing listens at ${server} (connection refused)`;
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `the host of ${server} is not found`;
    return `${server} cannot be reached (${code ?? errorMessage((cause as Error) ?? error)})`;
  }
}
