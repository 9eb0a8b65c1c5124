/**
 * Types for `turns.js`, part of the playground page's script (plain browser JavaScript, so
 * that this Node project's type check needs no DOM types; see `../main.js`).
 *
 * @module
 */

/**
 * A step's model turn, retries, dropped text and observation.
 * Only ever called in the browser.
 */
export declare function createTurns(deps: unknown): unknown;
