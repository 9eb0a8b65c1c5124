/**
 * What a model call's HTTP exchange had got to when it failed, so a timeout or a dropped connection is
 * reported as what happened ("no response headers within 120 s", "the stream stalled for 45 s") rather
 * than as a guess.
 *
 * The providers built from a model spec use {@link trackingFetch}; the adapter registers a
 * {@link CallProgress} for the abort signal it hands the AI SDK (which passes it to `fetch` unchanged
 * when it adds no timeout of its own), and reads it back when the call fails. A model built elsewhere has
 * no progress: its messages fall back to the elapsed time alone.
 *
 * @module
 */

import type { ModelRetry } from './types.js';

/** Times (from `performance.now()`, ms) of one model call's HTTP exchange, and its retries. */
export interface CallProgress {
  /** When the call started. */
  startedAt: number;
  /** When the last HTTP attempt was sent. */
  attemptAt?: number;
  /** When the last attempt's response headers arrived. */
  headersAt?: number;
  /** When the last chunk of the response body arrived. */
  lastDataAt?: number;
  /** Body bytes received in the last attempt. */
  bytes: number;
  /** When the call's signal was aborted (a timeout is described as of then, not as of when it surfaced). */
  abortedAt?: number;
  /**
   * How the last attempt failed (`HTTP 503`) and when, until the next attempt (a retry) is sent;
   * `retryAfterMs`: the wait the server asked for (`retry-after-ms` / `retry-after`), when the AI SDK
   * honours it (under a minute).
   */
  failure?: { error: string; at: number; retryAfterMs?: number };
  /** Retries sent so far. @default 0 */
  retries?: number;
  /** Told of each retry as it is sent (`ModelRequest.onRetry`). */
  onRetry?: ((retry: ModelRetry) => void) | undefined;
  /** The most retries the HTTP client makes (the AI SDK's `maxRetries`), when known. */
  maxRetries?: number | undefined;
}

const progressBySignal = new WeakMap<AbortSignal, CallProgress>();

/**
 * Starts tracking the call whose requests carry `signal`. `retries.onRetry` is called when an attempt
 * follows a failed one (the HTTP client's retry), with `retries.maxRetries` as the most it makes.
 */
export function trackCall(
  signal: AbortSignal | undefined,
  retries: Pick<CallProgress, 'onRetry' | 'maxRetries'> = {},
): CallProgress {
  const progress: CallProgress = { startedAt: performance.now(), bytes: 0, ...retries };
  if (signal) {
    progressBySignal.set(signal, progress);
    signal.addEventListener('abort', () => (progress.abortedAt = performance.now()), { once: true });
  }
  return progress;
}

/**
 * `fetch` that records, for a tracked call, when each attempt was sent, when its headers came and when
 * its body last moved, and reports an attempt that follows a failed one (an HTTP error status or a network
 * error) to the call's `onRetry`. Behaves exactly like `globalThis.fetch` otherwise.
 */
export const trackingFetch: typeof fetch = async (input, init) => {
  const progress = init?.signal ? progressBySignal.get(init.signal) : undefined;
  if (!progress)
    return fetch(input, init).catch((error) =>
      Promise.reject(refusedPort(error, input) ?? refusedLocally(error, input) ?? error),
    );
  const now = performance.now();
  if (progress.failure) {
    const retry = (progress.retries ?? 0) + 1;
    progress.retries = retry;
    const { error, at } = progress.failure;
    delete progress.failure;
    const { maxRetries, onRetry } = progress;
    onRetry?.({
      retry,
      ...(maxRetries !== undefined && { maxRetries }),
      error,
      delayMs: Math.round(now - at),
    });
  }
  progress.attemptAt = now;
  delete progress.headersAt;
  delete progress.lastDataAt;
  progress.bytes = 0;
  let response: Response;
  try {
    response = await fetch(input, init);
  } catch (error) {
    const what =
      describeNetworkFailure(error, progress) ?? (error instanceof Error ? error.message : String(error));
    const refused = refusedPort(error, input) ?? refusedLocally(error, input);
    if (refused) throw refused;
    if (!init?.signal?.aborted) progress.failure = { error: what, at: performance.now() };
    throw error;
  }
  progress.headersAt = performance.now();
  if (!response.ok) {
    const retryAfterMs = retryAfterOf(response.headers);
    progress.failure = {
      error: `HTTP ${response.status}`,
      at: progress.headersAt,
      ...(retryAfterMs !== undefined && { retryAfterMs }),
    };
  }
  if (!response.body) return response;
  const reader = response.body.getReader();
  const counted = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let read: Awaited<ReturnType<typeof reader.read>>;
        try {
          read = await reader.read();
        } catch (error) {
          // The body broke off (the server closed the connection mid-response): the attempt failed, and a
          // retry that follows it is reported as one.
          if (!init?.signal?.aborted) {
            const what =
              describeNetworkFailure(error, progress) ??
              `the response broke off midway (${error instanceof Error ? error.message : String(error)})`;
            progress.failure = { error: what, at: performance.now() };
          }
          controller.error(error);
          return;
        }
        if (read.done) {
          controller.close();
          return;
        }
        progress.lastDataAt = performance.now();
        progress.bytes += read.value.byteLength;
        controller.enqueue(read.value);
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
  return new Response(counted, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
};

/**
 * The wait an error response asks for before a retry (`retry-after-ms`, or `retry-after` in seconds or as
 * a date), in ms, when the AI SDK honours it (0 to under 60 s), else undefined.
 */
function retryAfterOf(headers: Headers): number | undefined {
  const inMs = headers.get('retry-after-ms');
  const after = headers.get('retry-after');
  let ms = inMs ? Number.parseFloat(inMs) : Number.NaN;
  if (Number.isNaN(ms) && after) {
    const secondsAfter = Number.parseFloat(after);
    ms = Number.isNaN(secondsAfter) ? Date.parse(after) - Date.now() : secondsAfter * 1000;
  }
  return ms >= 0 && ms < 60_000 ? ms : undefined;
}

/** Whether the AI SDK retries an attempt that failed so: a network error, or HTTP 408, 409, 429 or 5xx. */
function isRetried(error: string): boolean {
  const status = /^HTTP (\d+)$/.exec(error)?.[1];
  if (status === undefined) return true;
  const code = Number(status);
  return code === 408 || code === 409 || code === 429 || code >= 500;
}

/**
 * fetch refuses the Fetch standard's "bad ports" (9, 25, 6000, ...) before connecting, in Node (undici:
 * `TypeError: fetch failed`, cause `bad port`) as in browsers; no retry can succeed. A plain `Error` saying
 * so, which the AI SDK does not retry (it retries its own "Cannot connect to API" errors), else undefined.
 */
function refusedPort(error: unknown, input: Parameters<typeof fetch>[0]): Error | undefined {
  const cause = error instanceof Error ? error.cause : undefined;
  if (!(cause instanceof Error) || cause.message !== 'bad port') return undefined;
  const url = input instanceof Request ? input.url : String(input);
  const port = URL.canParse(url) ? new URL(url).port : '';
  return new Error(
    `cannot connect: fetch refuses port ${port || '(this one)'} as unsafe (the Fetch standard's bad ports); run the server on another port`,
    { cause: error },
  );
}

/**
 * A connection refused by this machine (a loopback address: 127.0.0.0/8, ::1, `localhost`): nothing listens
 * on that port, and waiting 2 s and 4 s for a retry does not start a server. A plain `Error` saying so,
 * without the socket error as its cause (the AI SDK retries any error whose causes carry `ECONNREFUSED`),
 * so the call fails at once; undefined for anything else (a remote host's refusal, a reset, a status),
 * which is retried as before.
 */
function refusedLocally(error: unknown, input: Parameters<typeof fetch>[0]): Error | undefined {
  if (!codesOf(error).includes('ECONNREFUSED')) return undefined;
  const url = input instanceof Request ? input.url : String(input);
  const host = URL.canParse(url) ? new URL(url).hostname : '';
  if (!isLoopback(socketAddressOf(error) ?? host)) return undefined;
  return new Error(
    `cannot connect: connection refused${addressOf(error)}: nothing listens on that port of this machine (not retried; is the server running?)`,
  );
}

/** Whether `host` (a host name or an IP address, IPv6 with or without brackets) is this machine. */
export function isLoopback(host: string): boolean {
  const name = host.toLowerCase().replace(/^\[|\]$/g, '');
  if (name === 'localhost' || name.endsWith('.localhost') || name === '::1') return true;
  return /^(::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name);
}

/** The IP address of a socket error somewhere in the cause chain, if any. */
function socketAddressOf(error: unknown): string | undefined {
  for (let at = error; at instanceof Error; at = at.cause) {
    const { address } = at as { address?: unknown };
    if (typeof address === 'string') return address;
  }
  return undefined;
}

/** Seconds for a message: `0.4 s`, `12 s`. */
export function seconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}

/**
 * What a call cut by a timeout had got to, as the end of a sentence. It always leads with the whole call's
 * time (from its start to the cut: the time its limit allowed, never an attempt's share of it), then says
 * how far the last attempt got: `no response headers within 120 s`, `no response headers within 30 s
 * (retry 2, sent 0.4 s before)`, `no complete answer within 120 s: the stream stalled for the last 95 s
 * (1204 bytes received, the last after 25 s)`, `no complete answer within 120 s: still receiving (20480
 * bytes so far)`, `no answer within 120 s: the last attempt failed with HTTP 429 and the next retry was
 * still waiting (retry-after 30 s)`, or, without progress, `no complete answer in time`.
 */
export function describeStall(
  progress: CallProgress | undefined,
  now = progress?.abortedAt ?? performance.now(),
): string {
  if (!progress) return 'no complete answer in time';
  const total = seconds(now - progress.startedAt);
  // Cut before the request went out (a slow start on a busy machine): nothing on the wire to describe.
  if (progress.attemptAt === undefined || now < progress.attemptAt)
    return `no complete answer within ${total}`;
  // Cut after an attempt failed (an error status, a dropped connection), before the next one was sent:
  // the failure is what happened, not the error body's bytes or the missing headers.
  const { failure } = progress;
  if (failure !== undefined && failure.at <= now)
    return `no answer within ${total}: ${failed(progress, failure)}`;
  if (progress.headersAt === undefined) {
    const retry = progress.retries
      ? ` (retry ${progress.retries}, sent ${seconds(now - progress.attemptAt)} before)`
      : '';
    return `no response headers within ${total}${retry}`;
  }
  const lastMove = progress.lastDataAt ?? progress.headersAt;
  const silentMs = now - lastMove;
  // Data that still flows is a slow or endless answer, not a stall.
  if (silentMs < 1000 && silentMs < (now - progress.attemptAt) / 2) {
    return `no complete answer within ${total}: still receiving (${progress.bytes} bytes so far)`;
  }
  const received =
    progress.bytes === 0
      ? 'headers received, no body'
      : `${progress.bytes} bytes received, the last after ${seconds(lastMove - progress.attemptAt)}`;
  return `no complete answer within ${total}: the stream stalled for the last ${seconds(silentMs)} (${received})`;
}

/** `the last attempt failed with HTTP 429 and the next retry was still waiting (retry-after 30 s)`. */
function failed(progress: CallProgress, failure: NonNullable<CallProgress['failure']>): string {
  const how = failure.error.startsWith('HTTP ') ? `with ${failure.error}` : `(${failure.error})`;
  const retryLeft = progress.maxRetries === undefined || (progress.retries ?? 0) < progress.maxRetries;
  if (!isRetried(failure.error) || !retryLeft) return `the last attempt failed ${how}`;
  const asked = failure.retryAfterMs === undefined ? '' : ` (retry-after ${seconds(failure.retryAfterMs)})`;
  return `the last attempt failed ${how} and the next retry was still waiting${asked}`;
}

/** An error's `code` and those of its causes (undici puts the socket error's code on a cause). */
function codesOf(error: unknown): string[] {
  const codes: string[] = [];
  for (let at = error; at instanceof Error && codes.length < 6; at = at.cause) {
    const code = (at as { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
  }
  return codes;
}

/**
 * What a network failure (no HTTP status) was, worded from the error codes of Node's fetch and the call's
 * progress: `no response headers within 300 s (the HTTP client's header timeout)`, `the stream stalled
 * for 300 s (...)`, `cannot connect: connection refused by 127.0.0.1:9`, `the server closed the
 * connection before sending response headers`. `undefined` when the codes name nothing known.
 */
export function describeNetworkFailure(
  error: unknown,
  progress: CallProgress | undefined,
  now = performance.now(),
): string | undefined {
  const codes = codesOf(error);
  const since = (at: number | undefined) => seconds(now - (at ?? progress?.startedAt ?? now));
  for (const code of codes) {
    switch (code) {
      case 'UND_ERR_HEADERS_TIMEOUT':
        return `no response headers within ${since(progress?.attemptAt)} (the HTTP client's header timeout)`;
      case 'UND_ERR_BODY_TIMEOUT':
        return `${describeStall(progress, now)} (the HTTP client's body timeout)`;
      case 'ECONNREFUSED':
        return `cannot connect: connection refused${addressOf(error)}`;
      case 'ENOTFOUND':
      case 'EAI_AGAIN':
        return `cannot connect: the host name was not found${addressOf(error)}`;
      case 'ETIMEDOUT':
      case 'UND_ERR_CONNECT_TIMEOUT':
        return `cannot connect: no TCP connection within the connect timeout${addressOf(error)}`;
      case 'ECONNRESET':
      case 'UND_ERR_SOCKET':
      case 'EPIPE':
        return progress?.headersAt === undefined
          ? 'the server closed the connection before sending response headers'
          : `the server closed the connection mid-response (${progress.bytes} bytes received)`;
      default:
        break;
    }
  }
  return undefined;
}

/** ` (127.0.0.1:9)` or ` (api.example.com)` from a socket error somewhere in the cause chain. */
function addressOf(error: unknown): string {
  for (let at = error; at instanceof Error; at = at.cause) {
    const { address, port, hostname } = at as { address?: unknown; port?: unknown; hostname?: unknown };
    if (typeof address === 'string') return ` (${address}${typeof port === 'number' ? `:${port}` : ''})`;
    if (typeof hostname === 'string') return ` (${hostname})`;
  }
  return '';
}
