/**
 * Types for `approvals.js`, part of the playground page's script (plain browser JavaScript, so
 * that this Node project's type check needs no DOM types; see `../main.js`).
 *
 * @module
 */

/**
 * The trace view's approval requests and decisions.
 * Only ever called in the browser.
 */
export declare function createApprovals(deps: unknown): unknown;
