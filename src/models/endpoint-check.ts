/**
 * What `taoloop models` finds when it asks a server named by a spec (`openai-compatible:`, `ollama:`) for its
 * model list: `GET <base-url>/models`, once, within a time limit. It says what was checked and what was not:
 * the list is optional in the OpenAI API, so a server that answers 404 there may still serve chat
 * completions, while one that refuses the connection cannot serve anything.
 *
 * @module
 */
import { errorMessage } from '../util/own.js';
import { parseModelSpec } from './spec.js';

/** What one `GET <base-url>/models` found, in words for the user. */
export interface EndpointFinding {
  /** Whether a run may use the server: it answered (even without a list), or it listed the model. */
  available: boolean;
  /** What was checked and what it means, e.g. `GET http://…/models answered HTTP 404: …`. */
  said: string;
  /** True when the server listed the spec's model: nothing is left to say about it. */
  confirmed: boolean;
}

/** HTTP statuses of a server that has no model list but may still serve chat completions. */
const NO_LIST_STATUSES = new Set([404, 405, 501]);

/** Said of every finding short of a listed model: the chat endpoint itself was never called. */
const NOT_TRIED = 'its chat endpoint was not tried';

/**
 * The base URL of a spec that names a server taoloop can ask for its models (`openai-compatible:`,
 * `ollama:` at `ollamaBaseUrl`), with the model name; `undefined` for other specs and bad ones (those
 * fail when resolved, with their own message).
 */
export function endpointOf(
  spec: string,
  ollamaBaseUrl: string,
): { baseURL: string; model: string } | undefined {
  try {
    const parsed = parseModelSpec(spec);
    if (parsed.provider === 'openai-compatible') return { baseURL: parsed.baseURL, model: parsed.modelId };
    if (parsed.provider === 'ollama') return { baseURL: ollamaBaseUrl, model: parsed.modelId };
  } catch {
    // A bad spec is reported when a run resolves it.
  }
  return undefined;
}

/**
 * Asks `<baseURL>/models` for its list (with `apiKey` as a bearer token when given) and says what that
 * shows about a run with `model`: listed; listed without it; answered without a list (404, 405, 501, or not
 * `{ data: [...] }`: a run may still work); answered with another error status; no answer in time; or no
 * connection at all (refused, host not found: a run fails the same way).
 */
export async function checkEndpoint(
  endpoint: { baseURL: string; model: string },
  timeoutMs: number,
  apiKey: string | undefined,
): Promise<EndpointFinding> {
  const url = `GET ${endpoint.baseURL}/models`;
  const answer = await listModels(`${endpoint.baseURL}/models`, timeoutMs, apiKey);
  switch (answer.kind) {
    case 'listed': {
      const names = answer.models;
      if (names.includes(endpoint.model))
        return { available: true, confirmed: true, said: `${url} lists ${endpoint.model}` };
      const shown = names.length > 5 ? `${names.slice(0, 5).join(', ')}, …` : names.join(', ');
      const what =
        names.length === 0
          ? 'answers with an empty model list'
          : `answers, but lists ${shown}, not ${endpoint.model}`;
      return { available: true, confirmed: false, said: `${url} ${what}: a run may fail (${NOT_TRIED})` };
    }
    case 'not-a-list':
      return {
        available: true,
        confirmed: false,
        said: `${url} answered, but not with a model list ({ data: [...] }): a run may still work (${NOT_TRIED})`,
      };
    case 'status': {
      const status = `HTTP ${answer.status}${answer.statusText ? ` ${answer.statusText}` : ''}`;
      if (NO_LIST_STATUSES.has(answer.status))
        return {
          available: true,
          confirmed: false,
          said: `${url} answered ${status}: the server lists no models; a run may still work (${NOT_TRIED})`,
        };
      const key =
        answer.status === 401 || answer.status === 403 ? ' (an API key goes in TAOLOOP_API_KEY)' : '';
      return {
        available: false,
        confirmed: false,
        said: `${url} answered ${status}${key}: a run may fail the same way (${NOT_TRIED})`,
      };
    }
    case 'timeout':
      return {
        available: false,
        confirmed: false,
        said: `${url} got no answer within ${timeoutMs} ms: the server is slow, busy or not an HTTP server (${NOT_TRIED})`,
      };
    case 'refused':
      return {
        available: false,
        confirmed: false,
        said: `${url}: connection refused (${answer.address}): no server listens there, so a run fails too until one does`,
      };
    case 'unreachable':
      return {
        available: false,
        confirmed: false,
        said: `${url} could not connect (${answer.why}): a run fails too until the server can be reached`,
      };
    default:
      return answer satisfies never;
  }
}

/** What `GET <base-url>/models` answered (see {@link listModels}). */
export type ListAnswer =
  | { kind: 'listed'; models: string[] }
  | { kind: 'not-a-list' }
  | { kind: 'status'; status: number; statusText: string }
  | { kind: 'timeout' }
  | { kind: 'refused'; address: string }
  | { kind: 'unreachable'; why: string };

/** `GET url` (an OpenAI-compatible `/models`: `{ data: [{ id }] }`) within `timeoutMs`. */
export async function listModels(
  url: string,
  timeoutMs: number,
  apiKey: string | undefined,
): Promise<ListAnswer> {
  try {
    const response = await fetch(url, {
      signal: AbortSignal.timeout(timeoutMs),
      ...(apiKey !== undefined && { headers: { authorization: `Bearer ${apiKey}` } }),
    });
    if (!response.ok) {
      await response.body?.cancel();
      return { kind: 'status', status: response.status, statusText: response.statusText };
    }
    const body = (await response.json().catch(() => undefined)) as { data?: unknown } | undefined;
    if (!Array.isArray(body?.data)) return { kind: 'not-a-list' };
    const models = body.data.flatMap((m: unknown) => {
      const id = (m as { id?: unknown } | null)?.id;
      return typeof id === 'string' ? [id] : [];
    });
    return { kind: 'listed', models };
  } catch (error) {
    if (error instanceof DOMException && error.name === 'TimeoutError') return { kind: 'timeout' };
    // fetch says only "fetch failed"; the reason (ECONNREFUSED 127.0.0.1:9, ENOTFOUND host) is its cause.
    const cause = (error as { cause?: unknown }).cause;
    const { code, address, port } = (cause ?? {}) as { code?: unknown; address?: unknown; port?: unknown };
    if (code === 'ECONNREFUSED') {
      const where =
        typeof address === 'string'
          ? `${address}${typeof port === 'number' ? `:${port}` : ''}`
          : new URL(url).host;
      return { kind: 'refused', address: where };
    }
    // fetch refuses the Fetch standard's "bad ports" (1, 9, 6000, ...) before connecting.
    if (cause instanceof Error && cause.message === 'bad port')
      return { kind: 'unreachable', why: `fetch refuses port ${new URL(url).port} as unsafe` };
    return { kind: 'unreachable', why: errorMessage(cause ?? error) };
  }
}
