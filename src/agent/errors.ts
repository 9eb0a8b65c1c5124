/**
 * Errors the agent throws for caller mistakes, the errors a tool-call repair is told about, and the one a
 * hook's `generate` throws when the budget has no room for its call.
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

/**
 * Thrown by a hook's `generate` (`prepareStep`, a compaction strategy, `repairToolCall`) instead of making a model call the
 * run's token or cost budget has no room for (checked like the run's own calls, before the call, on the
 * hook's request). `message` is the budget's reason, as a run stopped by it reports in `error` (`token
 * budget: ...` or `cost budget: ...`). Thrown out of `prepareStep` or compaction, it ends the run with status
 * `budget`; `summaryCompaction` catches it and shortens the transcript with markers instead; out of a repair,
 * it is that repair's failure (the model gets the corrective observation).
 */
export class BudgetExceededError extends Error {
  override name = 'BudgetExceededError';
}
