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
import { AgentConfigError } from './errors.js';
import type { RunSettings } from './options.js';
import type { RunUsage } from './types.js';

/** Tracks what a run has spent (and, for a nested run, what its parent has). */
export class Budget {
  readonly #parent: Budget | undefined;
  readonly #maxTokens: number | undefined;
  readonly #maxCostUsd: number | undefined;
  readonly #price: ModelPrice | undefined;
  readonly #modelId: string;
  readonly #prices: PriceTable;
  #tokens = 0;
  #costUsd: number | undefined;
  #costKnown = true;
  #usage: RunUsage = {};
  #usageByModel: Record<string, RunUsage> = {};

  /**
   * @param parent the budget of the run a nested agent runs in (`agentTool`): the nested run checks the
   * parent's limits too and records its calls in the parent's totals.
   * @throws {AgentConfigError} when `maxCostUsd` is set and no price is known for the model.
   */
  constructor(options: RunSettings, parent?: Budget) {
    this.#parent = parent;
    this.#maxTokens = options.maxTokens;
    this.#maxCostUsd = options.maxCostUsd;
    this.#modelId = options.model.id;
    // The caller's prices win over the defaults.
    this.#prices = { ...DEFAULT_PRICES, ...options.prices };
    this.#price = findPrice(options.model.id, this.#prices);
    if (this.#maxCostUsd !== undefined && !this.#price) {
      throw new AgentConfigError(
        `limits.maxCostUsd is set but no price is known for ${options.model.id}; pass limits.prices: { '<model>': { inputUsdPerMTok, outputUsdPerMTok } }.`,
      );
    }
  }

  /**
   * Usage summed over every call recorded: the run's steps, its hooks' and repairs' calls through `generate`,
   * its nested agents' calls.
   */
  get usage(): RunUsage {
    return this.#usage;
  }

  /**
   * {@link usage} per model that made a call, keyed by model id (a fallback model's calls under its own id,
   * a nested agent's under its model's). Summed with `addUsage`, the entries give {@link usage}.
   */
  get usageByModel(): Record<string, RunUsage> {
    return this.#usageByModel;
  }

  /**
   * Total cost so far in USD; `undefined` when any call's cost was unknown. Before any call it is 0 when the
   * model has a price (a run stopped by its budget before its first call cost nothing), else `undefined`.
   */
  get costUsd(): number | undefined {
    if (!this.#costKnown) return undefined;
    return this.#costUsd ?? (this.#price ? 0 : undefined);
  }

  /** Why the next call must not start (over this run's limits or a parent's), or `undefined` when it may. */
  check(request: ModelRequest): string | undefined {
    return this.#checkOwn(request) ?? this.#parent?.check(request);
  }

  #checkOwn(request: ModelRequest): string | undefined {
    // Estimating means joining the whole transcript: only worth it when there is a limit to check.
    if (this.#maxTokens === undefined && this.#maxCostUsd === undefined) return undefined;
    const input = requestTokens(request);
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

  /**
   * Records a call, at the price of `modelId` (a fallback model's, when one answered); returns its cost in
   * USD when known. For the budgets, unreported token counts are estimated: the input from `request` (or
   * `request` is that estimate, in tokens, for a call replayed from a journal; see {@link requestTokens}),
   * the output from `text`. The call is recorded in the parent's budget too (a nested agent's).
   */
  record(
    request: ModelRequest | number,
    usage: ModelUsage,
    text: string,
    modelId = this.#modelId,
  ): number | undefined {
    this.#usage = addUsage(this.#usage, usage);
    this.#usageByModel[modelId] = addUsage(this.#usageByModel[modelId] ?? {}, usage);
    this.#parent?.record(request, usage, text, modelId);
    const price = modelId === this.#modelId ? this.#price : findPrice(modelId, this.#prices);
    const cost = costUsd(usage, price);
    if (cost === undefined) this.#costKnown = false;
    if (this.#maxTokens === undefined && this.#maxCostUsd === undefined) {
      this.#costUsd = addCost(this.#costUsd, cost);
      return cost;
    }
    const input = usage.inputTokens ?? (typeof request === 'number' ? request : requestTokens(request));
    const output = usage.outputTokens ?? estimateTokens(text);
    this.#tokens += input + output;
    // For the budget, an unknown count is estimated; the reported total stays honest (undefined).
    const forBudget = cost ?? costUsd({ inputTokens: input, outputTokens: output }, price);
    this.#costUsd = addCost(this.#costUsd, forBudget);
    return cost;
  }
}

/** The input tokens of a request, estimated from its messages (about 4 characters a token). */
export function requestTokens(request: ModelRequest): number {
  return estimateTokens(request.messages.map((m) => m.content).join('\n'));
}

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
