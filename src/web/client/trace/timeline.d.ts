/**
 * Types for `timeline.js`, part of the playground page's script (plain browser JavaScript, so
 * that this Node project's type check needs no DOM types; see `../main.js`).
 *
 * @module
 */

/**
 * The run's timeline.
 * Only ever called in the browser.
 */
export declare function createTimeline(deps: unknown): unknown;
