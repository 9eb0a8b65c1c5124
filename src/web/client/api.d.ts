/**
 * Types for `api.js`, part of the playground page's script (plain browser JavaScript, so
 * that this Node project's type check needs no DOM types; see `main.js`).
 *
 * @module
 */

/**
 * How the page calls the playground server (its JSON API, with the access token).
 * Only ever called in the browser.
 */
export declare function createApi(): unknown;
