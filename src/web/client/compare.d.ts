/**
 * Types for `compare.js`, part of the playground page's script (plain browser JavaScript, so that this
 * Node project's type check needs no DOM types; see `main.js`).
 *
 * @module
 */

/**
 * Two runs side by side, step by step, with their totals.
 * Only ever called in the browser.
 */
export declare function createCompare(deps: unknown): unknown;
