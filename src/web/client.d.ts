/**
 * Types for `client.js`, the page's browser script (plain JavaScript, so that this Node project's type
 * check needs no DOM types).
 *
 * @module
 */

/**
 * Runs the playground page. Only ever called in the browser, from the source text `page.ts` serves, with
 * `createTraceView` from `client-trace.js`.
 */
export declare function playgroundClient(createTraceView: unknown): void;
