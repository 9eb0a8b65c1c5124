/**
 * Usage arithmetic: adding the usage of calls (an unknown count stays unknown, never a fake 0), and
 * estimating the usage of a call the provider did not report (a stream cut on the client side).
 *
 * @module
 */
import type { ModelRequest, ModelUsage } from '../models/types.js';
import { estimateTokens } from './context.js';

/**
 * Adds usage field by field; a field stays `undefined` until some call reports it (`cacheWriteInputTokens`
 * is left out until then, as providers without a cache-write charge leave it out).
 */
export function addUsage(total: ModelUsage, next: ModelUsage): ModelUsage {
  const sum: ModelUsage = {
    inputTokens: add(total.inputTokens, next.inputTokens),
    outputTokens: add(total.outputTokens, next.outputTokens),
    cachedInputTokens: add(total.cachedInputTokens, next.cachedInputTokens),
  };
  const cacheWrite = add(total.cacheWriteInputTokens, next.cacheWriteInputTokens);
  if (cacheWrite !== undefined) sum.cacheWriteInputTokens = cacheWrite;
  if (total.estimated || next.estimated) sum.estimated = true;
  return sum;
}

/** `a + b`, where an unknown count (`undefined`) on one side is the other side. */
function add(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : a + b;
}

/**
 * The usage of a call whose stream was cut on the client side (at an invented observation, at the turn's
 * size cap, or by an abort), where the provider sends no usage: input
 * from the request's size (its messages and tool definitions), output from the text received, at about 4
 * characters a token, marked `estimated`. So totals and cost count the call instead of dropping it.
 */
export function estimateUsage(request: ModelRequest, text: string): ModelUsage {
  let chars = 0;
  for (const message of request.messages) chars += message.content.length + MESSAGE_OVERHEAD_CHARS;
  if (request.tools?.length) chars += JSON.stringify(request.tools).length;
  return { inputTokens: Math.ceil(chars / 4), outputTokens: estimateTokens(text), estimated: true };
}

/** Role markers and separators a chat format adds per message, in characters (about 4 tokens). */
const MESSAGE_OVERHEAD_CHARS = 16;
