/**
 * Errors the agent throws for caller mistakes, the errors a tool-call repair is told about, the one a
 * hook's `generate` throws when the budget has no room for its call, and those of pause and resume.
 *
 * @module
 */

import type { PendingApprovalRequest } from './types.js';

/** Thrown before any model call when the options cannot work together, with what to change. */
export class AgentConfigError extends Error {
  override name = 'AgentConfigError';
}

/** The model called a tool the step does not offer. */
export class NoSuchToolError extends Error {
  override name = 'NoSuchToolError';
  /**
   * Makes the error.
   * @param toolName the tool the model called.
   */
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
  /**
   * Makes the error.
   * @param toolName the tool whose input was refused.
   */
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
 * Thrown by a hook's `generate` (`hooks.prepareStep`, a `prompt.compaction` strategy, `hooks.repairToolCall`)
 * instead of making a model call the run's token or cost budget has no room for (checked like the run's own
 * calls, before the call, on the hook's request). `message` is the budget's reason, as a run stopped by it
 * reports in `error` (`token budget: ...` or `cost budget: ...`). Thrown out of `prepareStep` or compaction,
 * it ends the run with status `budget`; `summaryCompaction` catches it and shortens the transcript with
 * markers instead; out of a repair, it is that repair's failure (the model gets the corrective observation).
 */
export class BudgetExceededError extends Error {
  override name = 'BudgetExceededError';
}

/**
 * Why a paused run's state (or the decisions given with it) was refused:
 * - `format`: not a taoloop run state, or a malformed one;
 * - `version`: written by a taoloop whose state format this one does not read;
 * - `signature`: the signature does not match (tampered with, or signed with another secret);
 * - `unsigned`: a `durable.secret` was given but the state has no signature, or the state is signed and
 *   no secret was given;
 * - `decision`: a decision names a request the state does not wait for, a pending request has none, or
 *   the decisions cannot be read (a throwing getter or proxy; in a chat route, one request answered twice);
 * - `mismatch`: the resumed run did not follow the paused one (other model, tools, options or
 *   conversation; in a chat route, a paused message posted in another conversation);
 * - `checkpoint`: `durable.onCheckpoint` failed, so the run stopped before its next effect.
 */
export type RunStateProblem =
  | 'format'
  | 'version'
  | 'signature'
  | 'unsigned'
  | 'decision'
  | 'mismatch'
  | 'checkpoint';

/**
 * Thrown by `resumeAgent` (before any side effect, except for `mismatch`, found while replaying, before
 * anything new runs) when a paused run's state or the decisions cannot be used. The message says what to do.
 */
export class RunStateError extends Error {
  override name = 'RunStateError';
  /**
   * Makes the error.
   * @param message what was wrong and what to do.
   */
  constructor(
    /** What was wrong; see {@link RunStateProblem}. */
    readonly problem: RunStateProblem,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Thrown through the loop when a run pauses for approval; the loop ends the run `paused`. Never reaches a
 * caller.
 */
export class RunPaused extends Error {
  override name = 'RunPaused';
  constructor(readonly pending: PendingApprovalRequest[]) {
    super(`The run paused for approval of ${pending.map((p) => p.id).join(', ')}.`);
  }
}
