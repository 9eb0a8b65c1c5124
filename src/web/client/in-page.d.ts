/**
 * Types for `in-page.js`, part of the playground page's script (plain browser JavaScript, so
 * that this Node project's type check needs no DOM types; see `main.js`).
 *
 * @module
 */

/**
 * A run of the in-page model: the loop runs in the page.
 * Only ever called in the browser.
 */
export declare function createInPageRun(deps: unknown): unknown;
