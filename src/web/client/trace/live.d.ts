/**
 * Types for `live.js`, part of the playground page's script (plain browser JavaScript, so
 * that this Node project's type check needs no DOM types; see `../main.js`).
 *
 * @module
 */

/**
 * The text of a model turn as it is written.
 * Only ever called in the browser.
 */
export declare function createLiveText(deps: unknown): unknown;
