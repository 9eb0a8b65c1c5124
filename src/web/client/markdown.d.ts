/**
 * Types for `markdown.js`, part of the playground page's script (plain browser JavaScript, so that this
 * Node project's type check needs no DOM types; see `main.js`).
 *
 * @module
 */

/**
 * Renders the model's answers as Markdown, with elements it makes itself (never HTML from the text).
 * Only ever called in the browser.
 */
export declare function createMarkdown(deps: unknown): unknown;
