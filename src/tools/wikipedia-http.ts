/**
 * GET a JSON document with a per-attempt timeout, retries with backoff (honouring `Retry-After`), and an
 * optional on-disk cache. Used by the MediaWiki backend; kept apart so its rules are easy to check.
 *
 * @module
 */

import { abortAny } from '../util/signal.js';

/**
 * Where successful Wikipedia API responses are kept between runs, by request URL. `get` answers
 * `undefined` for a miss; failures of either method are treated as a miss / skipped write. `taoloop/node`
 * has a folder-backed one (`wikipediaApi({ cacheDir })`).
 */
export interface WikipediaResponseCache {
  /** The response body stored for `url`, or `undefined` for a miss. */
  get(url: string): Promise<string | undefined>;
  /** Stores the response body of `url`. */
  set(url: string, body: string): Promise<void>;
}

/** How {@link getJson} fetches. All fields are required here; the public options fill the defaults. */
export interface HttpSettings {
  /** Time one attempt may take, in milliseconds. */
  timeoutMs: number;
  /** Attempts after the first for HTTP 429, HTTP 5xx and network errors (not for timeouts). */
  maxRetries: number;
  /** Wait before the first retry when there is no `Retry-After`, in milliseconds; doubles each retry. */
  retryDelayMs: number;
  /** Longest `Retry-After` honoured, in milliseconds; a longer one fails at once. */
  maxRetryAfterMs: number;
  /** Sent as `User-Agent` (Wikimedia's policy asks for one that names the tool and a contact). */
  userAgent: string;
  /** Where responses are cached, or `undefined` for no cache. */
  cache: WikipediaResponseCache | undefined;
  fetch: typeof fetch;
}

/** Statuses worth another attempt: rate limited, or a server error. */
function retryable(status: number): boolean {
  return status === 429 || status >= 500;
}

/**
 * Fetches `url` and parses its JSON body, from `settings.cache` when it holds the URL. Only successful responses are cached: HTTP 2xx, valid JSON, no `error` object.
 *
 * @throws {Error} `Wikipedia API timed out after <n> ms`, `Wikipedia request was cancelled`,
 * `HTTP <status> from <url without query>`, or `Could not reach <url without query>: <cause>` after the
 * retries are spent; `Invalid JSON from <url without query>` for a body that does not parse.
 */
export async function getJson(url: string, settings: HttpSettings, signal: AbortSignal): Promise<unknown> {
  const { cache } = settings;
  if (cache) {
    const cached = await cache.get(url).catch(() => undefined);
    if (cached !== undefined) {
      try {
        return JSON.parse(cached);
      } catch {
        // A damaged cache file is fetched again and overwritten.
      }
    }
  }
  const body = await fetchWithRetries(url, settings, signal);
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new Error(`Invalid JSON from ${withoutQuery(url)}`);
  }
  // MediaWiki reports errors (maxlag, ratelimited, ...) with HTTP 200 and an `error` object: never cache those.
  const isApiError = typeof parsed === 'object' && parsed !== null && 'error' in parsed;
  if (cache && !isApiError) await cache.set(url, body).catch(() => undefined);
  return parsed;
}

async function fetchWithRetries(url: string, settings: HttpSettings, signal: AbortSignal): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    const result = await attemptOnce(url, settings, signal);
    if (result.ok) return result.body;
    const backoffMs = settings.retryDelayMs * 2 ** attempt;
    const waitMs = result.retryAfterMs ?? backoffMs;
    if (waitMs > settings.maxRetryAfterMs) {
      throw new Error(`${result.message}; it asked to retry after ${Math.ceil(waitMs / 1000)} s`);
    }
    if (attempt >= settings.maxRetries) {
      const tries = attempt + 1;
      throw new Error(`${result.message}${tries > 1 ? ` (after ${tries} attempts)` : ''}`);
    }
    await sleep(waitMs, signal);
  }
}

type Attempt = { ok: true; body: string } | { ok: false; message: string; retryAfterMs?: number };

/** One request. Timeouts and cancellation throw; retryable failures are returned. */
async function attemptOnce(url: string, settings: HttpSettings, signal: AbortSignal): Promise<Attempt> {
  const timeout = AbortSignal.timeout(settings.timeoutMs);
  const combined = abortAny([signal, timeout]);
  try {
    const response = await settings.fetch(url, {
      headers: { 'User-Agent': settings.userAgent, Accept: 'application/json' },
      signal: combined,
    });
    if (response.ok) return { ok: true, body: await response.text() };
    await response.body?.cancel().catch(() => undefined);
    const message = `HTTP ${response.status} from ${withoutQuery(url)}`;
    if (!retryable(response.status)) throw new FatalHttpError(message);
    const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'));
    return retryAfterMs === undefined ? { ok: false, message } : { ok: false, message, retryAfterMs };
  } catch (error) {
    if (error instanceof FatalHttpError) throw new Error(error.message);
    if (signal.aborted) throw new Error('Wikipedia request was cancelled');
    if (timeout.aborted) throw new Error(`Wikipedia API timed out after ${settings.timeoutMs} ms`);
    return { ok: false, message: `Could not reach ${withoutQuery(url)}: ${describeCause(error)}` };
  }
}

class FatalHttpError extends Error {}

/** `Retry-After` as milliseconds: delay-seconds or an HTTP date (RFC 9110, section 10.2.3). */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(new Error('Wikipedia request was cancelled'));
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(new Error('Wikipedia request was cancelled'));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function withoutQuery(url: string): string {
  const at = url.indexOf('?');
  return at === -1 ? url : url.slice(0, at);
}

/** Node's fetch throws `TypeError: fetch failed` with the useful part (ECONNREFUSED, ...) in `cause`. */
function describeCause(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause;
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    return typeof code === 'string' ? `${code} (${cause.message})` : cause.message;
  }
  return error.message;
}
