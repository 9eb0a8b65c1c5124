/**
 * One action: validate, ask for approval when the tool has side effects, run, and word the observation.
 *
 * @module
 */

import type { LabelSet } from '../react/labels.js';
import { formatObservation } from '../react/observation.js';
import type { ActionTurn } from '../react/turn.js';
import type { PreparedCall, ToolOutcome, ToolRouter } from '../tools/router.js';
import { ownField } from '../util/own.js';
import { askApprover, isAllowedWithoutAsking, toApprovalDecision } from './approval.js';
import { journaledToolCall, toolCallId } from './durable.js';
import { nestedRunnerOf } from './nested.js';
import { recorderOf } from './pause-journal.js';
import type {
  AgentEvent,
  AgentOptions,
  ApprovalDecision,
  ApprovalRequest,
  Journal,
  StepObservation,
} from './types.js';

/**
 * Runs the action of step `step` (its `call`-th tool call, from 1), yielding approval and tool events, and
 * returns the observation. Refusals, rejections and tool failures are observations; it throws only when the
 * run pauses for approval (`RunPaused`) or its journal refuses an effect.
 *
 * @param decided the decision on this call when it was already asked ({@link askApproval}, as native mode
 * does for a step's calls with `pauseForApproval`); else a call that needs approval asks now.
 */
export async function* act(
  turn: ActionTurn,
  step: number,
  router: ToolRouter,
  options: AgentOptions & { labels: LabelSet },
  call = 1,
  decided?: ApprovalDecision,
): AsyncGenerator<AgentEvent, StepObservation> {
  let prepared = router.prepare(turn.tool, turn.input);
  let approval: ApprovalDecision | undefined;
  if (prepared.ok && needsAsking(prepared, options)) {
    approval = decided ?? (yield* askApproval(prepared, step, call, options));
    if (approval.type === 'reject') {
      const why = approval.reason ? ` (${approval.reason})` : '';
      return {
        text: `The user rejected this action${why}. It did not run. Choose another action, or give the Answer.`,
        source: 'tool',
        ok: false,
        approval,
      };
    }
    if (approval.type === 'edit') prepared = router.prepare(prepared.tool.name, approval.input);
  }
  const input = prepared.ok ? prepared.rawInput : turn.input;
  const where = call > 1 ? { step, call } : { step };
  yield { type: 'tool-start', ...where, tool: turn.tool, input };
  // A nested agent (`agentTool`) runs here, its events passed on; its own effects are journaled one by one.
  const nested = prepared.ok ? nestedRunnerOf(prepared.tool) : undefined;
  const outcome = !prepared.ok
    ? { ok: false, observation: prepared.observation, durationMs: 0 }
    : nested
      ? yield* nested(prepared.rawInput, { step, call, options })
      : await journalTool(options, step, prepared, router, call);
  const text = formatObservation(outcome.observation, options.labels).text;
  yield {
    type: 'tool-end',
    ...where,
    tool: turn.tool,
    input,
    ok: outcome.ok,
    observation: text,
    durationMs: outcome.durationMs,
  };
  const observation: StepObservation = {
    text,
    source: 'tool',
    ok: outcome.ok,
    durationMs: outcome.durationMs,
  };
  if (outcome.fullOutput !== undefined) observation.fullText = outcome.fullOutput;
  if (approval) observation.approval = approval;
  return observation;
}

/** True when a valid call needs a person's approval (side effects, not allowed by `allowTools`). */
export function needsAsking(prepared: PreparedCall, options: AgentOptions): boolean {
  return (
    prepared.needsApproval && !isAllowedWithoutAsking(prepared.tool.name, ownField(options, 'allowTools'))
  );
}

/**
 * Asks for approval of step `step`'s `call`-th tool call (through the journal, as `step-<n>-approval`),
 * between an `approval-start` and an `approval-end` event, and returns the decision. Only an exact approval
 * runs the tool: a recorded decision is data, read again like an approver's answer.
 *
 * @throws {RunPaused} when the run pauses for this request instead (after `approval-start`, with no
 * `approval-end`).
 */
export async function* askApproval(
  prepared: PreparedCall,
  step: number,
  call: number,
  options: AgentOptions,
): AsyncGenerator<AgentEvent, ApprovalDecision> {
  const request: ApprovalRequest = {
    id: approvalId(options.runId ?? '', step, call),
    step,
    tool: prepared.tool.name,
    input: prepared.rawInput,
    effects: prepared.tool.effects ?? 'read',
    ...(options.signal && { signal: options.signal }),
  };
  const where = call > 1 ? { step, call } : { step };
  yield { type: 'approval-start', ...where, request };
  const decision = toApprovalDecision(
    await journalOf(options)(`step-${step}-approval`, () =>
      askApprover(request, ownField(options, 'approve')),
    ),
  );
  yield { type: 'approval-end', ...where, request, decision };
  return decision;
}

/**
 * With a journal, every tool call goes through it, read tools included, so a resumed run continues from
 * exactly the observations the model saw (`durable.ts`). Every call gets its call ID (`index`: the call's
 * number in its step, from 1).
 */
export function journalTool(
  options: AgentOptions,
  step: number,
  call: PreparedCall,
  router: ToolRouter,
  index = 1,
): Promise<ToolOutcome> {
  const execution = {
    signal: options.signal,
    timeoutMs: options.toolTimeoutMs,
    callId: toolCallId(options.runId ?? '', step, index),
  };
  const { journal } = options;
  if (journal) return journaledToolCall(journal, step, call, router, execution, !!recorderOf(journal));
  return router.execute(call, execution);
}

/** The id of an approval request: `<run id>/step-<n>/call-<k>` (see `ApprovalRequest.id`). */
export function approvalId(runId: string, step: number, call: number): string {
  return `${runId}/step-${step}/call-${call}`;
}

/** The caller's journal, or a pass-through. */
export function journalOf(options: AgentOptions): Journal {
  return ownField(options, 'journal') ?? ((_, effect) => effect());
}
