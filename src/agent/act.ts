/**
 * One action: validate, ask for approval when the tool has side effects, run, and word the observation.
 *
 * @module
 */

import { formatObservation } from '../react/observation.js';
import type { ActionTurn } from '../react/turn.js';
import type { PreparedCall, ToolOutcome, ToolRouter } from '../tools/router.js';
import { ownField } from '../util/own.js';
import { isAllowedWithoutAsking, toApprovalDecision } from './approval.js';
import { approvalId, effectName, toolCallId } from './ids.js';
import { nestedRunnerOf, type Run } from './run.js';
import type { AgentEvent, ApprovalDecision, ApprovalRequest, StepObservation } from './types.js';

/**
 * Runs the action of step `step` (its `call`-th tool call, from 1), yielding approval and tool events, and
 * returns the observation. Refusals, rejections and tool failures are observations; it throws only when the
 * run pauses for approval (`RunPaused`) or its journal refuses an effect.
 *
 * @param decided the decision on this call when it was already asked ({@link askApproval}, as native mode
 * does for a step's calls with `pauseForApproval`); else a call that needs approval asks now.
 */
export async function* act(
  run: Run,
  turn: ActionTurn,
  step: number,
  router: ToolRouter,
  call = 1,
  decided?: ApprovalDecision,
): AsyncGenerator<AgentEvent, StepObservation> {
  const { labels } = run.settings;
  let prepared = router.prepare(turn.tool, turn.input);
  let approval: ApprovalDecision | undefined;
  if (prepared.ok && needsAsking(run, prepared)) {
    approval = decided ?? (yield* askApproval(run, prepared, step, call));
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
      ? yield* nested(prepared.rawInput, { run, step, call })
      : await runTool(run, step, prepared, router, call);
  const text = formatObservation(outcome.observation, labels).text;
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
export function needsAsking(run: Run, prepared: PreparedCall): boolean {
  return (
    prepared.needsApproval &&
    !isAllowedWithoutAsking(prepared.tool.name, ownField(run.settings, 'allowTools'))
  );
}

/**
 * Asks for approval of step `step`'s `call`-th tool call (through the run's effects, as
 * `step-<n>-approval`), between an `approval-start` and an `approval-end` event, and returns the decision.
 * Only an exact approval runs the tool: a recorded decision is data, read again like an approver's answer.
 *
 * @throws {RunPaused} when the run pauses for this request instead (after `approval-start`, with no
 * `approval-end`).
 */
export async function* askApproval(
  run: Run,
  prepared: PreparedCall,
  step: number,
  call: number,
): AsyncGenerator<AgentEvent, ApprovalDecision> {
  const { runId, signal } = run.settings;
  const request: ApprovalRequest = {
    id: approvalId(runId, step, call),
    step,
    tool: prepared.tool.name,
    input: prepared.rawInput,
    effects: prepared.tool.effects ?? 'read',
    ...(signal && { signal }),
  };
  const where = call > 1 ? { step, call } : { step };
  // Events carry copies: what an observer or the stream's reader does to an event changes neither what the
  // approver is asked nor the decision the tool runs on.
  yield { type: 'approval-start', ...where, request: { ...request } };
  const decision = toApprovalDecision(await run.effects.approval(effectName(step, 'approval'), request));
  yield { type: 'approval-end', ...where, request: { ...request }, decision: { ...decision } };
  return decision;
}

/**
 * Runs a valid tool call through the run's effects (`step-<n>-tool`), with its call ID (`index`: the
 * call's number in its step, from 1), the run's signal and `toolTimeoutMs`. Never throws, except what the
 * effects refuse (a resumed run that does not follow its journal, an entry over a journal's size limit).
 */
export function runTool(
  run: Run,
  step: number,
  prepared: PreparedCall,
  router: ToolRouter,
  index = 1,
): Promise<ToolOutcome> {
  const { signal, toolTimeoutMs, runId } = run.settings;
  const execution = { signal, timeoutMs: toolTimeoutMs, callId: toolCallId(runId, step, index) };
  return run.effects.tool(
    effectName(step, 'tool'),
    () => router.execute(prepared, execution),
    prepared.tool.snapshot,
  );
}
