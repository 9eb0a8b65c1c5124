/**
 * The client-side cap on one model turn: a server that ignores `max_tokens` (or a model told no limit)
 * cannot make a turn, a trace or a journal entry of unbounded size. Applied in the model-call path to
 * streamed calls (reading stops at the cap and the request is cancelled) and to whole responses.
 *
 * @module
 */
import type { ModelResponse, ModelToolCall } from '../models/types.js';

/** The cap on a turn's characters when `maxOutputTokens` is not set: about 250,000 tokens of English. */
export const DEFAULT_MAX_TURN_CHARS = 1_000_000;

/**
 * Characters allowed per token of `maxOutputTokens`. A token of English is about 4 characters; 16 leaves
 * room for long tokens (runs of spaces, code) so that only a turn far past the cap is cut.
 */
export const MAX_CHARS_PER_TOKEN = 16;

/** The smallest cap, whatever `maxOutputTokens` says: short caps are for the provider, not for the cut. */
const MIN_MAX_TURN_CHARS = 8192;

/** `rawFinishReason` of a turn cut by this cap. */
export const CLIENT_CAP_REASON = 'client-cap';

/**
 * The most characters of text one model turn may have: `maxOutputTokens × 16` (at least 8,192), else
 * {@link DEFAULT_MAX_TURN_CHARS}.
 */
export function maxTurnChars(maxOutputTokens: number | undefined): number {
  if (maxOutputTokens === undefined || !(maxOutputTokens > 0)) return DEFAULT_MAX_TURN_CHARS;
  return Math.max(MIN_MAX_TURN_CHARS, Math.ceil(maxOutputTokens * MAX_CHARS_PER_TOKEN));
}

/**
 * `response` with its text cut to `maxChars` characters (finish reason `length`, raw reason
 * `client-cap`), and the arguments of any tool call longer than `maxChars` cut too (no longer JSON, so
 * the call is refused with an error observation). A response within the cap is returned as it is.
 */
export function capResponse(response: ModelResponse, maxChars: number): ModelResponse {
  const textOver = response.text.length > maxChars;
  const callsOver = response.toolCalls?.some((call) => call.input.length > maxChars) ?? false;
  if (!textOver && !callsOver) return response;
  const capped: ModelResponse = { ...response };
  if (textOver) {
    capped.text = response.text.slice(0, maxChars);
    capped.finishReason = 'length';
    capped.rawFinishReason = CLIENT_CAP_REASON;
  }
  if (callsOver && response.toolCalls) capped.toolCalls = response.toolCalls.map((c) => capCall(c, maxChars));
  return capped;
}

function capCall(call: ModelToolCall, maxChars: number): ModelToolCall {
  if (call.input.length <= maxChars) return call;
  return { ...call, input: call.input.slice(0, maxChars) };
}
