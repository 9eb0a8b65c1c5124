/**
 * Types for `run-actions.js`, part of the playground page's script (plain browser JavaScript, so
 * that this Node project's type check needs no DOM types; see `main.js`).
 *
 * @module
 */

/**
 * Run, Stop, run again, edit and run again, follow-up questions, and their keys.
 * Only ever called in the browser.
 */
export declare function createRunActions(deps: unknown): unknown;
