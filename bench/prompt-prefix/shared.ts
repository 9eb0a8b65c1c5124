/** What the prompt-prefix and cost benchmarks share: the task's size and how a request is read as text. */
import type { ModelMessage } from '../../src/models/types.js';

/** Steps of the benchmark task: 15 tool calls, then the answer. */
export const STEPS = 16;
/** A tool observation of about 400 tokens (1,600 characters). */
export const OBSERVATION =
  `${'Brightgrid Pro costs $20 per month per developer; volume discounts start at 50 seats. '.repeat(19)}`.slice(
    0,
    1600,
  );

/** A request's messages as one text, in order, as a provider's prefix cache sees them. */
export function requestText(messages: readonly ModelMessage[]): string {
  return messages
    .map((m) => {
      const calls = m.role === 'assistant' && m.toolCalls ? JSON.stringify(m.toolCalls) : '';
      const id = m.role === 'tool' ? `${m.toolCallId} ${m.toolName}` : '';
      return `<${m.role}${id && ` ${id}`}>${m.content}${calls}`;
    })
    .join('\n');
}

/** Length of the common prefix of two texts. */
export function commonPrefixLength(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/**
 * Σ common prefix of consecutive prompts / Σ length of the later prompt: the share of the prompt text sent
 * after the first request that a prefix cache could serve.
 */
export function prefixShare(prompts: readonly string[]): number {
  let shared = 0;
  let total = 0;
  for (let i = 1; i < prompts.length; i++) {
    shared += commonPrefixLength(prompts[i - 1]!, prompts[i]!);
    total += prompts[i]!.length;
  }
  return total === 0 ? 1 : shared / total;
}
