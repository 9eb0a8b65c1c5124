/**
 * Before a run starts, a quick check that its model answers: for a model on a server of its own (an
 * OpenAI-compatible server, Ollama), `GET <base URL>/models` with a short timeout. Any HTTP answer will do
 * (a server may want a key for the list, or not have it); no answer at all (nothing listens, the name does
 * not resolve, the time passes) is said on the page before the run starts, instead of a failed run. Hosted
 * providers and models that run here (`local:`, `replay:`, the scripted models of tests) are not checked.
 *
 * @module
 */
import { ollamaHost } from '../models/choose.js';
import { endpointOf, listModels } from '../models/endpoint-check.js';
import { modelLabel } from './model-label.js';

/** How long the check waits for an answer. */
export const MODEL_CHECK_TIMEOUT_MS = 3000;
/** How long a model that answered is not checked again. */
const ANSWERED_FOR_MS = 60_000;

/** The server a spec's model is on, when it has one of its own (as `taoloop models` finds it). */
export function modelServer(spec: string, env: NodeJS.ProcessEnv): string | undefined {
  return endpointOf(spec, `${ollamaHost(env.OLLAMA_BASE_URL)}/v1`)?.baseURL;
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

/**
 * Why nothing answered `GET <server>/models` (the probe `taoloop models` makes), or `undefined` when
 * something did: any HTTP answer will do, a list or not, an error status or not.
 */
async function serverProblem(server: string, timeoutMs: number): Promise<string | undefined> {
  const answer = await listModels(`${server}/models`, timeoutMs, undefined);
  switch (answer.kind) {
    case 'timeout':
      return `${server} sent no answer within ${timeoutMs / 1000} s`;
    case 'refused':
      return `nothing listens at ${server} (connection refused)`;
    case 'unreachable':
      return `${server} cannot be reached (${answer.why})`;
    default:
      return undefined;
  }
}
