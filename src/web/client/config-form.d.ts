/**
 * Types for `config-form.js`, part of the playground page's script (plain browser JavaScript, so
 * that this Node project's type check needs no DOM types; see `main.js`).
 *
 * @module
 */

/**
 * The new-run form: the configuration shown, read as a run request, filled with a run's options.
 * Only ever called in the browser.
 */
export declare function createConfigForm(deps: unknown): unknown;
