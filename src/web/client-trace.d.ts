/**
 * Types for `client-trace.js`, the page's trace view (plain browser JavaScript).
 *
 * @module
 */

/** Renders a run's messages as blocks. Only ever called in the browser; see `client.js`. */
export declare function createTraceView(ui: unknown, hooks: unknown): unknown;
