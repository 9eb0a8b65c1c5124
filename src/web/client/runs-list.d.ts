/**
 * Types for `runs-list.js`, part of the playground page's script (plain browser JavaScript, so
 * that this Node project's type check needs no DOM types; see `main.js`).
 *
 * @module
 */

/**
 * The past runs list.
 * Only ever called in the browser.
 */
export declare function createRunsList(deps: unknown): unknown;
