/**
 * Types for `elements.js`, part of the playground page's script (plain browser JavaScript, so
 * that this Node project's type check needs no DOM types; see `main.js`).
 *
 * @module
 */

/**
 * The page's elements, by name.
 * Only ever called in the browser.
 */
export declare function findPageElements(): unknown;
