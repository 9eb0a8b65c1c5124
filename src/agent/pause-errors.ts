/**
 * Errors of pause and resume.
 *
 * @module
 */
import type { PendingApprovalRequest } from './types.js';

/**
 * Why a paused run's state (or the decisions given with it) was refused:
 * - `format`: not a taoloop run state, or a malformed one;
 * - `version`: written by a taoloop whose state format this one does not read;
 * - `signature`: the signature does not match (tampered with, or signed with another secret);
 * - `unsigned`: a `secret` was given but the state has no signature, or the state is signed and no
 *   `secret` was given;
 * - `decision`: a decision names a request the state does not wait for, a pending request has none, or
 *   the decisions cannot be read (a throwing getter or proxy; in a chat route, one request answered twice);
 * - `mismatch`: the resumed run did not follow the paused one (other model, tools, options or
 *   conversation; in a chat route, a paused message posted in another conversation).
 */
export type RunStateProblem = 'format' | 'version' | 'signature' | 'unsigned' | 'decision' | 'mismatch';

/**
 * Thrown by `resumeAgent` (before any side effect, except for `mismatch`, found while replaying, before
 * anything new runs) when a paused run's state or the decisions cannot be used. The message says what to do.
 */
export class RunStateError extends Error {
  override name = 'RunStateError';
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
