/**
 * Errors the agent throws for caller mistakes.
 *
 * @module
 */

/** Thrown before any model call when the options cannot work together, with what to change. */
export class AgentConfigError extends Error {
  override name = 'AgentConfigError';
}
