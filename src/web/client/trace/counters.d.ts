/**
 * Types for `counters.js`, part of the playground page's script (plain browser JavaScript, so
 * that this Node project's type check needs no DOM types; see `../main.js`).
 *
 * @module
 */

/**
 * The trace view's counters and step figures.
 * Only ever called in the browser.
 */
export declare function createCounters(deps: unknown): unknown;
