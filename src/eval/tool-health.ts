/**
 * Whether the tools of an eval worked: an eval whose searches all failed (Wikipedia unreachable, offline)
 * measured nothing about ReAct, and must say so rather than report a score as if it had.
 *
 * @module
 */
import type { ItemResult, StrategyName } from './types.js';

/** Tool calls and failures of one strategy over an eval's results. */
export interface ToolHealth {
  strategy: StrategyName;
  /** Tool calls made. */
  calls: number;
  /** Tool calls that failed. */
  errors: number;
  /** Items of this strategy. */
  items: number;
  /** Items whose every tool call failed (items that made no call are not counted). */
  itemsAllFailed: number;
  /** The first failed call's observation. */
  sample?: string;
}

/** Per strategy that called tools: how many calls failed. Strategies without tool calls are left out. */
export function toolHealth(
  results: readonly ItemResult[],
  strategies: readonly StrategyName[],
): ToolHealth[] {
  const health: ToolHealth[] = [];
  for (const strategy of strategies) {
    const mine = results.filter((r) => r.strategy === strategy && r.status !== 'error');
    const calls = mine.reduce((total, r) => total + (r.toolCalls ?? 0), 0);
    if (calls === 0) continue;
    const errors = mine.reduce((total, r) => total + r.toolErrors, 0);
    const itemsAllFailed = mine.filter(
      (r) => (r.toolCalls ?? 0) > 0 && r.toolErrors >= (r.toolCalls ?? 0),
    ).length;
    const sample = mine.find((r) => r.toolError !== undefined)?.toolError;
    health.push({ strategy, calls, errors, items: mine.length, itemsAllFailed, ...(sample && { sample }) });
  }
  return health;
}

/**
 * The warning for a strategy most of whose tool calls failed, e.g. `react: Wikipedia could not be
 * reached: 3 of 3 tool calls failed (Error: ...); run with --wiki-corpus for an offline corpus`;
 * `undefined` when most calls worked.
 */
export function toolWarning(health: ToolHealth, hint: string | undefined): string | undefined {
  if (health.errors * 2 <= health.calls) return undefined;
  const why = health.sample ? ` (e.g. ${health.sample.split('\n')[0]})` : '';
  const what = hint ? 'Wikipedia could not be reached: ' : '';
  const then = hint ? `; ${hint}` : '';
  return `${health.strategy}: ${what}${health.errors} of ${health.calls} tool calls failed${why}${then}`;
}

/** True when every item of the strategy that called tools had only failing calls: nothing was measured. */
export function allToolsFailed(health: ToolHealth): boolean {
  return health.items > 0 && health.itemsAllFailed === health.items;
}
