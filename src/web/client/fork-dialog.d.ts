/**
 * Types for `fork-dialog.js`, part of the playground page's script (plain browser JavaScript, so that
 * this Node project's type check needs no DOM types; see `main.js`).
 *
 * @module
 */

/**
 * "Fork from here" on each step of an ended run, and the dialog that edits the step and starts the fork.
 * Only ever called in the browser.
 */
export declare function createForkDialog(deps: unknown): unknown;
