/**
 * Errors thrown by model adapters and model configuration.
 *
 * Who is to blame decides the class: {@link ModelConfigError} is the caller's mistake (a bad
 * `--model` spec, a missing API key) and is thrown before any request is sent;
 * `ModelCallError` is a failed provider call (HTTP status, provider message).
 *
 * @module
 */

/**
 * A model spec or model setup the caller has to fix: an unknown provider, a missing `#model`, a
 * malformed base URL, an unset API key variable. The message says what was wrong and what to do.
 *
 * @example
 * ```ts
 * try { await resolveModelSpec('openai:gpt-4o-mini', {}); }
 * catch (error) { if (error instanceof ModelConfigError) console.error(error.message); }
 * // → Model "openai:gpt-4o-mini" needs an API key: set OPENAI_API_KEY in the environment.
 * ```
 */
export class ModelConfigError extends Error {
  override readonly name = 'ModelConfigError';
}

/** What `ModelCallError` is built from. */
export interface ModelCallErrorOptions {
  /** The model's id, such as `openai:gpt-4o-mini`. */
  modelId: string;
  /** The provider's message (already extracted from the error body where possible). */
  providerMessage: string;
  /** HTTP status of the failed response, when the failure was an HTTP response. */
  statusCode?: number | undefined;
  /** Whether the provider marked the failure as worth retrying (408, 409, 429, 5xx). */
  isRetryable?: boolean | undefined;
  /** How many attempts were made, when the AI SDK retried. */
  attempts?: number | undefined;
  /** The original error. */
  cause: unknown;
}

/**
 * A provider call failed: the HTTP request was answered with an error status, the connection
 * failed, or the stream reported an error. Aborts are not wrapped: they propagate as the abort
 * signal's reason (normally a `DOMException` named `AbortError`).
 *
 * The message reads `Model call to <id> failed: HTTP <status>: <provider message>` (status and
 * attempt count only when known). The original error is kept as `cause`.
 */
export class ModelCallError extends Error {
  override readonly name = 'ModelCallError';
  /** The model's id, such as `openai:gpt-4o-mini`. */
  readonly modelId: string;
  /** HTTP status of the failed response, when there was one. */
  readonly statusCode: number | undefined;
  /** Whether the provider marked the failure as retryable. `false` when unknown. */
  readonly isRetryable: boolean;
  /** The provider's own message. */
  readonly providerMessage: string;

  constructor(options: ModelCallErrorOptions) {
    const status = options.statusCode === undefined ? '' : `HTTP ${options.statusCode}: `;
    const attempts =
      options.attempts !== undefined && options.attempts > 1 ? ` (after ${options.attempts} attempts)` : '';
    const hint =
      options.statusCode === 401 || options.statusCode === 403
        ? ' (check the API key: OPENAI_API_KEY, ANTHROPIC_API_KEY or GOOGLE_GENERATIVE_AI_API_KEY for those providers, TAOLOOP_API_KEY for openai-compatible servers)'
        : '';
    super(`Model call to ${options.modelId} failed: ${status}${options.providerMessage}${attempts}${hint}`, {
      cause: options.cause,
    });
    this.modelId = options.modelId;
    this.statusCode = options.statusCode;
    this.isRetryable = options.isRetryable ?? false;
    this.providerMessage = options.providerMessage;
  }
}

/**
 * A model call cut by its timeout (`limits.modelTimeoutMs`, `--model-timeout`). Named `TimeoutError` like the
 * abort reason it replaces, so code that checks the name keeps working. The message says how far the
 * call got, leading with the whole call's time: `Model call to <id> timed out: no response headers within
 * 120 s`, or `...: no complete answer within 120 s: the stream stalled for the last 95 s (1204 bytes
 * received, the last after 25 s)`.
 */
export class ModelTimeoutError extends Error {
  override readonly name = 'TimeoutError';
  /** The model's id. */
  readonly modelId: string;
  /** How far the call got, e.g. `no response headers within 120 s`. */
  readonly what: string;

  constructor(modelId: string, what: string, options?: { cause?: unknown }) {
    super(`Model call to ${modelId} timed out: ${what}`, options);
    this.modelId = modelId;
    this.what = what;
  }
}
