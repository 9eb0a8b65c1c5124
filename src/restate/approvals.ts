/**
 * Approvals of a durable run: the run publishes the request it waits for (workflow state) and waits on a
 * durable promise; an answer must name the request it answers (step, tool and input, as `pending`
 * returned them), so an answer sent early, late or for another request is refused instead of approving
 * whatever that step turns out to be.
 *
 * Source: Restate TypeScript SDK docs, "Workflows" (durable promises `ctx.promise(name)`, shared
 * handlers): https://docs.restate.dev/develop/ts/workflows.
 *
 * @module
 */
import * as restate from '@restatedev/restate-sdk';
import type { ApprovalDecision, ApprovalRequest, ApproveFn } from '../agent/types.js';

/** An approval the run is waiting for, as returned by the workflow's `pending` handler. */
export interface PendingApproval {
  step: number;
  tool: string;
  /** The input as the model wrote it (JSON text for schema tools). */
  input: string;
  effects: ApprovalRequest['effects'];
}

/**
 * The body of the workflow's `approve` handler: the request it answers, named by its `step`, `tool` and
 * `input` exactly as {@link PendingApproval} gave them (extra fields such as `effects` are ignored, so
 * `{ ...pending, decision }` is an answer), and the decision.
 */
export interface ApprovalAnswer {
  /** The step of the {@link PendingApproval} being answered. */
  step: number;
  /** Its tool. */
  tool: string;
  /** Its input, character for character. */
  input: string;
  decision: ApprovalDecision;
}

/** What the durable promise of a step's approval carries: the answer, bound to its request. */
interface BoundDecision {
  tool: string;
  input: string;
  decision: ApprovalDecision;
}

/** The workflow state key of the approval the run waits for. */
export const PENDING_KEY = 'pendingApproval';

/** The durable promise that carries the decision for `step`'s approval. */
export function approvalPromiseName(step: number): string {
  return `step-${step}-approval`;
}

/**
 * Approvals through durable promises: the request is published in state, the decision awaited durably
 * (a rejection after `timeoutMs`). A decision bound to another tool or input than the request is a
 * rejection: only an answer to this exact request lets the tool run.
 */
export function durableApprover(ctx: restate.WorkflowContext, timeoutMs: number | undefined): ApproveFn {
  return async (request) => {
    const pending: PendingApproval = {
      step: request.step,
      tool: request.tool,
      input: request.input,
      effects: request.effects,
    };
    ctx.set(PENDING_KEY, pending);
    const promise = ctx.promise<unknown>(approvalPromiseName(request.step)).get();
    try {
      const value = await (timeoutMs === undefined ? promise : promise.orTimeout(timeoutMs));
      return boundDecision(value, pending);
    } catch (error) {
      if (error instanceof restate.TimeoutError) {
        return { type: 'reject', reason: `no decision within ${timeoutMs} ms` };
      }
      throw error;
    } finally {
      ctx.clear(PENDING_KEY);
    }
  };
}

/** The decision in a promise's value when it answers `pending`; otherwise a rejection that says why. */
function boundDecision(value: unknown, pending: PendingApproval): ApprovalDecision {
  if (
    !isRecord(value) ||
    value.tool !== pending.tool ||
    value.input !== pending.input ||
    !isRecord(value.decision)
  ) {
    return { type: 'reject', reason: 'the answer did not name this request' };
  }
  try {
    return parseDecision(value.decision);
  } catch {
    return { type: 'reject', reason: 'the answer carried no valid decision' };
  }
}

/**
 * The `approve` handler: checks `input` against the approval the run waits for and resolves its durable
 * promise.
 * @throws {restate.TerminalError} (HTTP 400) for a malformed answer; (HTTP 409) when no approval waits,
 *   or the answer names another step, tool or input than the one waiting.
 */
export async function answerPending(ctx: restate.WorkflowSharedContext, input: unknown): Promise<void> {
  const answer = parseApprovalAnswer(input);
  const pending = await ctx.get<PendingApproval>(PENDING_KEY);
  const problem = mismatch(answer, pending ?? null);
  if (problem) throw new restate.TerminalError(problem, { errorCode: 409 });
  const bound: BoundDecision = { tool: answer.tool, input: answer.input, decision: answer.decision };
  await ctx.promise<BoundDecision>(approvalPromiseName(answer.step)).resolve(bound);
}

/** Why `answer` does not answer `pending`, or `undefined` when it does. */
export function mismatch(answer: ApprovalAnswer, pending: PendingApproval | null): string | undefined {
  const named = `${answer.tool}[${answer.input}] at step ${answer.step}`;
  if (pending === null) {
    return `no approval is waiting (the answer for ${named} is early, late or already given): answer the request the pending handler returns`;
  }
  if (pending.step !== answer.step || pending.tool !== answer.tool || pending.input !== answer.input) {
    return `the run waits for the approval of ${pending.tool}[${pending.input}] at step ${pending.step}, not ${named}: nothing was approved`;
  }
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** @throws {restate.TerminalError} for a body that is not an {@link ApprovalAnswer}. */
export function parseApprovalAnswer(input: unknown): ApprovalAnswer {
  if (
    !isRecord(input) ||
    !Number.isInteger(input.step) ||
    (input.step as number) < 1 ||
    typeof input.tool !== 'string' ||
    typeof input.input !== 'string'
  ) {
    throw new restate.TerminalError(
      'the answer must name the request it answers, as the pending handler returned it: "step" (a whole number ≥ 1), "tool" and "input" (strings), and carry a "decision"',
      { errorCode: 400 },
    );
  }
  return {
    step: input.step as number,
    tool: input.tool,
    input: input.input,
    decision: parseDecision(input.decision),
  };
}

/** @throws {restate.TerminalError} for anything but an {@link ApprovalDecision}. */
export function parseDecision(value: unknown): ApprovalDecision {
  if (isRecord(value)) {
    if (value.type === 'approve') return { type: 'approve' };
    if (value.type === 'reject') {
      return typeof value.reason === 'string' ? { type: 'reject', reason: value.reason } : { type: 'reject' };
    }
    if (value.type === 'edit' && typeof value.input === 'string') return { type: 'edit', input: value.input };
  }
  throw new restate.TerminalError(
    'the decision must be {"type":"approve"}, {"type":"reject","reason"?} or {"type":"edit","input"}',
    { errorCode: 400 },
  );
}
