/**
 * Types for `view.js`, the playground page's trace view (plain browser JavaScript; see `../main.js`).
 *
 * @module
 */

/**
 * Renders a run's messages as blocks. Only ever called in the browser, by `playgroundClient`, with the
 * page script's `parts`.
 */
export declare function createTraceView(ui: unknown, hooks: unknown, parts: unknown): unknown;
