/**
 * Types for `helpers.js`, part of the playground page's script (plain browser JavaScript, so
 * that this Node project's type check needs no DOM types; see `../main.js`).
 *
 * @module
 */

/**
 * The trace view's small helpers (elements, status line, following, numbers).
 * Only ever called in the browser.
 */
export declare function createTraceHelpers(ui: unknown): unknown;
