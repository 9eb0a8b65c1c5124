/**
 * One action: validate, ask for approval when the tool has side effects, run, and word the observation.
 *
 * @module
 */

import type { LabelSet } from '../react/labels.js';
import { formatObservation } from '../react/observation.js';
import type { ActionTurn } from '../react/turn.js';
import type { PreparedCall, ToolOutcome, ToolRouter } from '../tools/router.js';
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
 */
export async function* act(
  turn: ActionTurn,
  step: number,
  router: ToolRouter,
  options: AgentOptions & { labels: LabelSet },
  call = 1,
): AsyncGenerator<AgentEvent, StepObservation> {
  let prepared = router.prepare(turn.tool, turn.input);
  let approval: ApprovalDecision | undefined;
  if (
    prepared.ok &&
    prepared.needsApproval &&
    !isAllowedWithoutAsking(prepared.tool.name, options.allowTools)
  ) {
    const request: ApprovalRequest = {
      id: approvalId(options.runId ?? '', step, call),
      step,
      tool: prepared.tool.name,
      input: prepared.rawInput,
      effects: prepared.tool.effects ?? 'read',
      ...(options.signal && { signal: options.signal }),
    };
    yield { type: 'approval-start', step, request };
    // Read again after the journal: a recorded decision is data, and only an exact approval runs the tool.
    approval = toApprovalDecision(
      await journalOf(options)(`step-${step}-approval`, () => askApprover(request, options.approve)),
    );
    yield { type: 'approval-end', step, request, decision: approval };
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
  yield { type: 'tool-start', step, tool: turn.tool, input };
  // A nested agent (`agentTool`) runs here, its events passed on; its own effects are journaled one by one.
  const nested = prepared.ok ? nestedRunnerOf(prepared.tool) : undefined;
  const outcome = !prepared.ok
    ? { ok: false, observation: prepared.observation, durationMs: 0 }
    : nested
      ? yield* nested(prepared.rawInput, { step, call, options })
      : await journalTool(options, step, prepared, router);
  const text = formatObservation(outcome.observation, options.labels).text;
  yield {
    type: 'tool-end',
    step,
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

/**
 * With a journal, every tool call goes through it, read tools included, so a resumed run continues from
 * exactly the observations the model saw (`durable.ts`). Every call gets its call ID.
 */
export function journalTool(
  options: AgentOptions,
  step: number,
  call: PreparedCall,
  router: ToolRouter,
): Promise<ToolOutcome> {
  const execution = {
    signal: options.signal,
    timeoutMs: options.toolTimeoutMs,
    callId: toolCallId(options.runId ?? '', step),
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
  return options.journal ?? ((_, effect) => effect());
}
