/**
 * Errors the agent throws for caller mistakes, and the errors a tool-call repair is told about.
 *
 * @module
 */

/** Thrown before any model call when the options cannot work together, with what to change. */
export class AgentConfigError extends Error {
  override name = 'AgentConfigError';
}

/** The model called a tool the step does not offer. */
export class NoSuchToolError extends Error {
  override name = 'NoSuchToolError';
  constructor(
    readonly toolName: string,
    /** The tools the step offers. */
    readonly availableTools: readonly string[],
  ) {
    super(`unknown tool "${toolName}"; the tools are ${availableTools.join(', ') || '(none)'}`);
  }
}

/** The model's input to a tool was refused (too long, not JSON, or not valid for the tool's schema). */
export class InvalidToolInputError extends Error {
  override name = 'InvalidToolInputError';
  constructor(
    readonly toolName: string,
    /** The input as the model wrote it. */
    readonly toolInput: string,
    /** What is wrong, as the model would be told. */
    problem: string,
  ) {
    super(problem);
  }
}
