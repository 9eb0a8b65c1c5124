/**
 * Prices per million tokens, for the cost of a run in USD. Computed with exact decimals (decimal.js) so
 * that sums of many small costs do not drift.
 *
 * @module
 */
import { Decimal } from 'decimal.js';
import type { ModelUsage } from './types.js';

/** Price of one model in USD per million tokens. */
export interface ModelPrice {
  /** Input tokens neither read from nor written to a prompt cache. */
  inputUsdPerMTok: number;
  outputUsdPerMTok: number;
  /** Input tokens read from the provider's prompt cache. @default inputUsdPerMTok */
  cachedInputUsdPerMTok?: number;
  /**
   * Input tokens written to the provider's prompt cache (Anthropic: 1.25x the input price for the
   * 5-minute cache). @default inputUsdPerMTok
   */
  cacheWriteInputUsdPerMTok?: number;
}

/** Prices keyed by model name prefix (`gpt-4o-mini`) or full spec (`openai:gpt-4o-mini`). Longest key wins. */
export type PriceTable = Readonly<Record<string, ModelPrice>>;

/**
 * List prices from the providers' pricing pages (2025), per million tokens, with prompt-cache prices:
 * OpenAI bills cached input at its cached price and has no write charge; Anthropic bills cache reads at
 * 0.1x and 5-minute cache writes at 1.25x the input price. Local models (`local:`, `ollama:`) cost
 * nothing. Extend or override with the `limits.prices` option.
 */
export const DEFAULT_PRICES: PriceTable = {
  'gpt-4o-mini': { inputUsdPerMTok: 0.15, outputUsdPerMTok: 0.6, cachedInputUsdPerMTok: 0.075 },
  'gpt-4o': { inputUsdPerMTok: 2.5, outputUsdPerMTok: 10, cachedInputUsdPerMTok: 1.25 },
  'gpt-4.1-nano': { inputUsdPerMTok: 0.1, outputUsdPerMTok: 0.4, cachedInputUsdPerMTok: 0.025 },
  'gpt-4.1-mini': { inputUsdPerMTok: 0.4, outputUsdPerMTok: 1.6, cachedInputUsdPerMTok: 0.1 },
  'gpt-4.1': { inputUsdPerMTok: 2, outputUsdPerMTok: 8, cachedInputUsdPerMTok: 0.5 },
  'claude-3-5-haiku': {
    inputUsdPerMTok: 0.8,
    outputUsdPerMTok: 4,
    cachedInputUsdPerMTok: 0.08,
    cacheWriteInputUsdPerMTok: 1,
  },
  'claude-haiku-4-5': {
    inputUsdPerMTok: 1,
    outputUsdPerMTok: 5,
    cachedInputUsdPerMTok: 0.1,
    cacheWriteInputUsdPerMTok: 1.25,
  },
  'claude-3-5-sonnet': {
    inputUsdPerMTok: 3,
    outputUsdPerMTok: 15,
    cachedInputUsdPerMTok: 0.3,
    cacheWriteInputUsdPerMTok: 3.75,
  },
  'claude-sonnet-4': {
    inputUsdPerMTok: 3,
    outputUsdPerMTok: 15,
    cachedInputUsdPerMTok: 0.3,
    cacheWriteInputUsdPerMTok: 3.75,
  },
  'gemini-2.0-flash': { inputUsdPerMTok: 0.1, outputUsdPerMTok: 0.4, cachedInputUsdPerMTok: 0.025 },
  'gemini-2.5-flash': { inputUsdPerMTok: 0.3, outputUsdPerMTok: 2.5, cachedInputUsdPerMTok: 0.075 },
  'local:': { inputUsdPerMTok: 0, outputUsdPerMTok: 0 },
  'ollama:': { inputUsdPerMTok: 0, outputUsdPerMTok: 0 },
};

/** The price of `modelId` (e.g. `openai:gpt-4o-mini`), or `undefined` when no table entry matches. */
export function findPrice(modelId: string, prices: PriceTable = DEFAULT_PRICES): ModelPrice | undefined {
  const name = (modelId.split('#').at(-1) ?? modelId).replace(/^[a-z-]+:/, '');
  let best: [string, ModelPrice] | undefined;
  for (const [key, price] of Object.entries(prices)) {
    const matches = modelId.startsWith(key) || name.startsWith(key);
    if (matches && (!best || key.length > best[0].length)) best = [key, price];
  }
  return best?.[1];
}

/**
 * The cost in USD of one call's usage, or `undefined` when the price or the token counts are unknown.
 * `inputTokens` includes the tokens read from and written to the prompt cache; those are billed at the
 * cache-read and cache-write prices and not again at the input price.
 */
export function costUsd(usage: ModelUsage, price: ModelPrice | undefined): number | undefined {
  if (!price || usage.inputTokens === undefined || usage.outputTokens === undefined) return undefined;
  const read = usage.cachedInputTokens ?? 0;
  const written = usage.cacheWriteInputTokens ?? 0;
  const perToken = (usdPerMTok: number) => new Decimal(usdPerMTok).div(1_000_000);
  return perToken(price.inputUsdPerMTok)
    .times(usage.inputTokens - read - written)
    .plus(perToken(price.cachedInputUsdPerMTok ?? price.inputUsdPerMTok).times(read))
    .plus(perToken(price.cacheWriteInputUsdPerMTok ?? price.inputUsdPerMTok).times(written))
    .plus(perToken(price.outputUsdPerMTok).times(usage.outputTokens))
    .toNumber();
}

/** Adds two costs exactly; `undefined` stays `undefined` only when both are. */
export function addCost(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return new Decimal(a).plus(b).toNumber();
}
