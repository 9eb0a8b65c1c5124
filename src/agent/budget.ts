/**
 * Budgets: tokens and cost, checked before each model call (as mini-swe-agent does), so a run stops
 * with `budget` instead of starting a call that would go over.
 *
 * @module
 */
import {
  addCost,
  costUsd,
  DEFAULT_PRICES,
  findPrice,
  type ModelPrice,
  type PriceTable,
} from '../models/pricing.js';
import type { ModelRequest, ModelUsage } from '../models/types.js';
import { estimateTokens } from './context.js';
import { AgentConfigError } from './request.js';
import type { AgentOptions } from './types.js';

/** Prices found, by the caller's table (or none) and model id: looked up once per model, not once per run. */
const foundPrices = new WeakMap<object, Map<string, ModelPrice | undefined>>();
const NO_TABLE = {};

/**
 * {@link findPrice} in the defaults merged with `prices` (which win). Cached by the table's identity, so a
 * table changed in place after a run is not seen by later runs (price tables are `Readonly`).
 */
function priceOf(modelId: string, prices: PriceTable | undefined): ModelPrice | undefined {
  let byModel = foundPrices.get(prices ?? NO_TABLE);
  if (!byModel) {
    byModel = new Map();
    foundPrices.set(prices ?? NO_TABLE, byModel);
  }
  if (byModel.has(modelId)) return byModel.get(modelId);
  const price = findPrice(modelId, prices ? { ...DEFAULT_PRICES, ...prices } : DEFAULT_PRICES);
  // Bounded: a process that makes up model ids cannot grow it without limit.
  if (byModel.size >= 256) byModel.clear();
  byModel.set(modelId, price);
  return price;
}

/** Tracks what a run has spent. */
export class Budget {
  readonly #maxTokens: number | undefined;
  readonly #maxCostUsd: number | undefined;
  readonly #price: ModelPrice | undefined;
  #tokens = 0;
  #costUsd: number | undefined;
  #costKnown = true;

  /** @throws {AgentConfigError} when `maxCostUsd` is set and no price is known for the model. */
  constructor(options: AgentOptions) {
    this.#maxTokens = options.maxTokens;
    this.#maxCostUsd = options.maxCostUsd;
    this.#price = priceOf(options.model.id, options.prices);
    if (this.#maxCostUsd !== undefined && !this.#price) {
      throw new AgentConfigError(
        `maxCostUsd is set but no price is known for ${options.model.id}; pass prices: { '<model>': { inputUsdPerMTok, outputUsdPerMTok } }.`,
      );
    }
  }

  /** Total cost so far in USD; `undefined` when any call's cost was unknown. */
  get costUsd(): number | undefined {
    return this.#costKnown ? this.#costUsd : undefined;
  }

  /** Why the next call must not start, or `undefined` when it may. */
  check(request: ModelRequest): string | undefined {
    // Estimating means joining the whole transcript: only worth it when there is a limit to check.
    if (this.#maxTokens === undefined && this.#maxCostUsd === undefined) return undefined;
    const input = estimateTokens(request.messages.map((m) => m.content).join('\n'));
    if (this.#maxTokens !== undefined && this.#tokens + input > this.#maxTokens) {
      return `token budget: ${this.#tokens} of ${this.#maxTokens} tokens used, and the next call needs about ${input} more.`;
    }
    if (this.#maxCostUsd !== undefined && this.#price) {
      const next = costUsd({ inputTokens: input, outputTokens: 0 }, this.#price) ?? 0;
      const spent = this.#costUsd ?? 0;
      if (spent + next > this.#maxCostUsd) {
        return `cost budget: $${spent.toFixed(6)} of $${this.#maxCostUsd} spent, and the next call's input costs about $${next.toFixed(6)}.`;
      }
    }
    return undefined;
  }

  /** Records a call; returns its cost in USD when known. Unreported token counts are estimated. */
  record(request: ModelRequest, usage: ModelUsage, text: string): number | undefined {
    const cost = costUsd(usage, this.#price);
    if (cost === undefined) this.#costKnown = false;
    if (this.#maxTokens === undefined && this.#maxCostUsd === undefined) {
      this.#costUsd = addCost(this.#costUsd, cost);
      return cost;
    }
    const input = usage.inputTokens ?? estimateTokens(request.messages.map((m) => m.content).join('\n'));
    const output = usage.outputTokens ?? estimateTokens(text);
    this.#tokens += input + output;
    // For the budget, an unknown count is estimated; the reported total stays honest (undefined).
    const forBudget = cost ?? costUsd({ inputTokens: input, outputTokens: output }, this.#price);
    this.#costUsd = addCost(this.#costUsd, forBudget);
    return cost;
  }
}
