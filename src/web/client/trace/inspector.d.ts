/**
 * Types for `inspector.js`, part of the playground page's script (plain browser JavaScript, so
 * that this Node project's type check needs no DOM types; see `../main.js`).
 *
 * @module
 */

/**
 * The trace view's per-step inspector.
 * Only ever called in the browser.
 */
export declare function createInspector(deps: unknown): unknown;
