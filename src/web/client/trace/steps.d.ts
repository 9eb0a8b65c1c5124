/**
 * Types for `steps.js`, part of the playground page's script (plain browser JavaScript, so
 * that this Node project's type check needs no DOM types; see `../main.js`).
 *
 * @module
 */

/**
 * The trace view's numbered steps and their blocks.
 * Only ever called in the browser.
 */
export declare function createTraceSteps(deps: unknown): unknown;
