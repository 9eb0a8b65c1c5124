/**
 * Billing as the providers do it, for the cost benchmark's local servers: which input tokens of a request
 * are read from the prompt cache, written to it, or billed as plain input. Tokens are counted as characters
 * / 4 of the request as sent, the same rule for every client.
 *
 * - Anthropic (https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching): the prompt is tools,
 *   then system, then messages, in content blocks. A block marked `cache_control` ends a cacheable prefix,
 *   of at least 1,024 tokens; a `cache_control` at the top level of the request (automatic caching) marks
 *   the last block. A request reads the longest cached prefix that ends at one of its block boundaries,
 *   looking back at most 20 blocks from each breakpoint, writes the rest up to its last breakpoint, and
 *   pays plain input for what follows. No breakpoint, no caching.
 * - OpenAI (https://platform.openai.com/docs/guides/prompt-caching): automatic for prompts of 1,024 tokens
 *   and more; the longest prefix shared with an earlier request is read from the cache in steps of 128
 *   tokens, at no write charge.
 *
 * @module
 */
import type { AnthropicRequestBody, FakeAnthropicUsage } from '../../test/helpers/fake-anthropic-server.js';
import type { FakeUsage, ParsedRequestBody } from '../../test/helpers/fake-openai-server.js';

/** Tokens of a text: characters / 4, rounded up. */
export function tokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** One request's bill, in tokens. */
export interface Bill {
  uncachedInput: number;
  cacheRead: number;
  cacheWrite: number;
  output: number;
}

/** List prices in USD per million tokens. */
export interface Prices {
  input: number;
  cacheRead: number;
  cacheWrite: number;
  output: number;
}

/** The sum of bills in USD. */
export function usd(bills: readonly Bill[], prices: Prices): number {
  let micro = 0;
  for (const b of bills) {
    micro +=
      b.uncachedInput * prices.input +
      b.cacheRead * prices.cacheRead +
      b.cacheWrite * prices.cacheWrite +
      b.output * prices.output;
  }
  return micro / 1e6;
}

const MIN_CACHEABLE_TOKENS = 1024;

/** How far back from a breakpoint Anthropic looks for a cached prefix, in blocks. */
const LOOKBACK_BLOCKS = 20;

/** The Anthropic request as content blocks in cache order, each with its breakpoint mark. */
function anthropicBlocks(body: AnthropicRequestBody): { text: string; breakpoint: boolean }[] {
  const blocks: { text: string; breakpoint: boolean }[] = [];
  const add = (block: unknown, prefix = '') => {
    const { cache_control, ...rest } = (typeof block === 'string' ? { text: block } : block) as Record<
      string,
      unknown
    >;
    blocks.push({ text: prefix + JSON.stringify(rest), breakpoint: cache_control !== undefined });
  };
  for (const tool of body.tools ?? []) add(tool);
  if (typeof body.system === 'string') add(body.system);
  else for (const block of body.system ?? []) add(block);
  for (const message of body.messages) {
    const content = typeof message.content === 'string' ? [message.content] : message.content;
    content.forEach((block, i) => {
      add(block, i === 0 ? `${message.role}:` : '');
    });
  }
  // Automatic caching: a top-level `cache_control` puts the breakpoint on the last block.
  const last = blocks.at(-1);
  if (body.cache_control !== undefined && last) last.breakpoint = true;
  return blocks;
}

/** The text a request's prompt is, in cache order: what the cache-optimal bill compares. */
export function anthropicPromptText(body: AnthropicRequestBody): string {
  return anthropicBlocks(body)
    .map((b) => b.text)
    .join('');
}

/** A fresh Anthropic prompt cache and the bills of the requests sent to it. */
export function anthropicBilling() {
  const cached = new Set<string>();
  const bills: Bill[] = [];
  return {
    bills,
    /** The usage to report for `body` (Anthropic's fields), recorded as a bill. */
    usage(body: AnthropicRequestBody, replyText: string): FakeAnthropicUsage {
      const blocks = anthropicBlocks(body);
      const prefixes: string[] = [];
      let text = '';
      for (const block of blocks) {
        text += block.text;
        prefixes.push(text);
      }
      const total = tokens(text);
      const last = blocks.findLastIndex((b) => b.breakpoint);
      let read = 0;
      let written = 0;
      if (last >= 0) {
        // From each breakpoint, the server looks back at most LOOKBACK_BLOCKS blocks for a cached prefix.
        for (const [b, block] of blocks.entries()) {
          if (!block.breakpoint) continue;
          for (let i = b; i >= Math.max(0, b - LOOKBACK_BLOCKS); i--) {
            if (cached.has(prefixes[i]!)) {
              read = Math.max(read, tokens(prefixes[i]!));
              break;
            }
          }
        }
        blocks.forEach((block, i) => {
          if (block.breakpoint && tokens(prefixes[i]!) >= MIN_CACHEABLE_TOKENS) cached.add(prefixes[i]!);
        });
        if (tokens(prefixes[last]!) >= MIN_CACHEABLE_TOKENS) written = tokens(prefixes[last]!) - read;
      }
      const bill = {
        uncachedInput: total - read - written,
        cacheRead: read,
        cacheWrite: written,
        output: tokens(replyText),
      };
      bills.push(bill);
      return {
        inputTokens: bill.uncachedInput,
        outputTokens: bill.output,
        cacheReadInputTokens: bill.cacheRead,
        cacheCreationInputTokens: bill.cacheWrite,
      };
    },
  };
}

/** The OpenAI request as one text in prompt order (tools, then messages). */
export function openAiText(body: ParsedRequestBody): string {
  const tools = JSON.stringify(body.tools ?? []);
  return tools + body.messages.map((m) => JSON.stringify(m)).join('');
}

/** A fresh OpenAI prompt cache and the bills of the requests sent to it. */
export function openAiBilling() {
  const seen: string[] = [];
  const bills: Bill[] = [];
  return {
    bills,
    /** The usage to report for `body` (OpenAI's fields), recorded as a bill. */
    usage(body: ParsedRequestBody, replyText: string): FakeUsage {
      const text = openAiText(body);
      const total = tokens(text);
      let shared = 0;
      for (const earlier of seen) shared = Math.max(shared, commonPrefixLength(earlier, text));
      seen.push(text);
      const read = total >= MIN_CACHEABLE_TOKENS ? Math.floor(Math.floor(shared / 4) / 128) * 128 : 0;
      const cacheRead = read >= MIN_CACHEABLE_TOKENS ? read : 0;
      const bill = { uncachedInput: total - cacheRead, cacheRead, cacheWrite: 0, output: tokens(replyText) };
      bills.push(bill);
      return { promptTokens: total, completionTokens: bill.output, cachedTokens: cacheRead };
    },
  };
}

function commonPrefixLength(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/**
 * The cache-optimal bill of a sequence of prompts (each prompt's text, in order, and its output tokens): the
 * same tokens, each input token written to the cache once and read from it after. A prompt's prefix that an
 * earlier prompt had is a cache read; the rest is a cache write when a later prompt starts with it, else plain
 * input (a write no one reads is not worth its price). Block boundaries and breakpoints are ignored; only the
 * providers' minimum of 1,024 tokens for a cached prefix holds: the bound no client can beat. With OpenAI's prices a write costs plain input (`cacheWrite: 0` means none is charged).
 */
export function cacheOptimalUsd(
  prompts: readonly { text: string; output: number }[],
  prices: Prices,
): number {
  const bills: Bill[] = prompts.map((prompt, i) => {
    let read = 0;
    for (let j = 0; j < i; j++) read = Math.max(read, commonPrefixLength(prompts[j]!.text, prompt.text));
    let reused = read;
    for (let j = i + 1; j < prompts.length; j++)
      reused = Math.max(reused, commonPrefixLength(prompts[j]!.text, prompt.text));
    const total = tokens(prompt.text);
    // The providers' own rule, which no client can change: a prefix under 1,024 tokens is never cached.
    const cacheable = (chars: number) =>
      tokens(prompt.text.slice(0, chars)) >= MIN_CACHEABLE_TOKENS ? chars : 0;
    const cacheRead = tokens(prompt.text.slice(0, cacheable(read)));
    const cacheWrite = tokens(prompt.text.slice(0, cacheable(reused))) - cacheRead;
    return { uncachedInput: total - cacheRead - cacheWrite, cacheRead, cacheWrite, output: prompt.output };
  });
  // With no write surcharge (OpenAI), a write is billed as plain input.
  const writePrice = prices.cacheWrite === 0 ? prices.input : prices.cacheWrite;
  return usd(bills, { ...prices, cacheWrite: writePrice });
}
