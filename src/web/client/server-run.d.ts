/**
 * Types for `server-run.js`, part of the playground page's script (plain browser JavaScript, so
 * that this Node project's type check needs no DOM types; see `main.js`).
 *
 * @module
 */

/**
 * A run on the server, followed over its event stream.
 * Only ever called in the browser.
 */
export declare function createServerRun(deps: unknown): unknown;
