/**
 * Retrying a streamed model call whose response broke off after it began (the server closed the
 * connection mid-body, or ended it without a finish): the AI SDK retries a request only until its response
 * starts, so the adapter makes the call again itself. What was already passed on is not passed on twice:
 * the new attempt's parts are matched against it, and only what follows is yielded; a retry whose reply
 * differs from what was received fails the call (nothing received can be taken back).
 *
 * @module
 */
import type { ModelStreamPart, ModelToolCall } from './types.js';

/** The AI SDK's retry delays: 2 s, then doubled for each retry (`retryWithExponentialBackoff`). */
const FIRST_DELAY_MS = 2000;

/** Thrown when a response broke off: the stream ended without its finish part. */
export class StreamEndedEarlyError extends Error {
  override name = 'StreamEndedEarlyError';
  constructor() {
    super('the server ended the response before it was complete (no finish)');
  }
}

/** Thrown when a retry's reply differs from what the broken-off attempt had already passed on. */
export class RetryDivergedError extends Error {
  override name = 'RetryDivergedError';
}

/**
 * Whether `error`, thrown while a started response was read, is a response that broke off: a retryable
 * AI SDK `APICallError` (`isApiCallError`) for a 2xx status (the SDK marks a connection lost mid-body so),
 * or a stream that ended without its finish part.
 */
export function brokeOff(error: unknown, isApiCallError: (error: unknown) => boolean): boolean {
  if (error instanceof StreamEndedEarlyError) return true;
  if (!isApiCallError(error)) return false;
  const { statusCode, isRetryable } = error as { statusCode?: number; isRetryable?: boolean };
  return statusCode !== undefined && statusCode >= 200 && statusCode < 300 && isRetryable === true;
}

/**
 * How long to wait before retry `retry` (1 for the first): what the failed response asked for
 * (`retry-after-ms`, `retry-after` in seconds or as a date, when 0 to under 60 s), else 2 s doubled per
 * retry, as the AI SDK waits.
 */
export function retryDelayMs(error: unknown, retry: number): number {
  const backoff = FIRST_DELAY_MS * 2 ** (retry - 1);
  const headers = (error as { responseHeaders?: Record<string, string> } | null)?.responseHeaders;
  if (!headers) return backoff;
  let ms = Number.parseFloat(headers['retry-after-ms'] ?? '');
  const after = headers['retry-after'];
  if (Number.isNaN(ms) && after) {
    const seconds = Number.parseFloat(after);
    ms = Number.isNaN(seconds) ? Date.parse(after) - Date.now() : seconds * 1000;
  }
  return ms >= 0 && ms < 60_000 ? ms : backoff;
}

/** Resolves after `ms`, or rejects with `signal`'s reason when it aborts first. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * What one streamed call has passed on, across its attempts. {@link PassedOn.admit} takes each part of the
 * current attempt and returns what of it is new (or `undefined`); {@link PassedOn.restart} starts matching
 * a new attempt from the beginning.
 */
export class PassedOn {
  #text = new Channel('text');
  #reasoning = new Channel('reasoning');
  #toolCalls: ModelToolCall[] = [];
  #toolCallsSeen = 0;

  /** Matches the next attempt against what was passed on, from its start. */
  restart(): void {
    this.#text.restart();
    this.#reasoning.restart();
    this.#toolCallsSeen = 0;
  }

  /**
   * The part of `part` not yet passed on, or `undefined` when all of it was.
   *
   * @throws {RetryDivergedError} when the attempt's reply differs from what was passed on.
   */
  admit(part: ModelStreamPart): ModelStreamPart | undefined {
    switch (part.type) {
      case 'text-delta': {
        const text = this.#text.admit(part.text);
        return text ? { type: 'text-delta', text } : undefined;
      }
      case 'reasoning-delta': {
        const text = this.#reasoning.admit(part.text);
        return text ? { type: 'reasoning-delta', text } : undefined;
      }
      case 'tool-call': {
        const earlier = this.#toolCalls[this.#toolCallsSeen];
        this.#toolCallsSeen += 1;
        if (!earlier) {
          this.#toolCalls.push(part.toolCall);
          return part;
        }
        if (earlier.name !== part.toolCall.name || earlier.input !== part.toolCall.input)
          throw diverged('a tool call');
        return undefined;
      }
      case 'finish':
        this.#text.finish();
        this.#reasoning.finish();
        if (this.#toolCallsSeen < this.#toolCalls.length) throw diverged('its tool calls');
        return part;
    }
  }
}

/** One text of a streamed reply (its text, or its reasoning) across attempts. */
class Channel {
  #passed = '';
  /** How much of `#passed` the current attempt has repeated. */
  #matched = 0;

  constructor(readonly what: string) {}

  restart(): void {
    this.#matched = 0;
  }

  /** The part of `delta` past what was passed on. */
  admit(delta: string): string {
    const repeat = this.#passed.slice(this.#matched, this.#matched + delta.length);
    if (!delta.startsWith(repeat)) throw diverged(`its ${this.what}`);
    this.#matched += repeat.length;
    const fresh = delta.slice(repeat.length);
    this.#passed += fresh;
    this.#matched += fresh.length;
    return fresh;
  }

  /** At the attempt's finish: it must have repeated everything passed on. */
  finish(): void {
    if (this.#matched < this.#passed.length) throw diverged(`its ${this.what} (shorter)`);
  }
}

function diverged(what: string): RetryDivergedError {
  return new RetryDivergedError(
    `the server closed the connection mid-response, and the retry's reply differs from what was already received (${what})`,
  );
}
