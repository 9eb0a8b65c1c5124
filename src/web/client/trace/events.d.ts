/**
 * Types for `events.js`, part of the playground page's script (plain browser JavaScript, so
 * that this Node project's type check needs no DOM types; see `../main.js`).
 *
 * @module
 */

/**
 * Which part of the trace view renders each message.
 * Only ever called in the browser.
 */
export declare function createTraceEvents(deps: unknown): unknown;
