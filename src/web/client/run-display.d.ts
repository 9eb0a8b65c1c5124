/**
 * Types for `run-display.js`, part of the playground page's script (plain browser JavaScript, so
 * that this Node project's type check needs no DOM types; see `main.js`).
 *
 * @module
 */

/**
 * The run area's buttons, earlier turns and focus at the end of a run.
 * Only ever called in the browser.
 */
export declare function createRunDisplay(deps: unknown): unknown;
