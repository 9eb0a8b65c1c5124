/**
 * Types for `run-end.js`, part of the playground page's script (plain browser JavaScript, so
 * that this Node project's type check needs no DOM types; see `../main.js`).
 *
 * @module
 */

/**
 * The end of a run in the trace view.
 * Only ever called in the browser.
 */
export declare function createRunEnd(deps: unknown): unknown;
