/**
 * Native mode with several tool calls in one step: every call gets a result, never a silent drop. Calls
 * are taken in the order the model made them; consecutive read tools run together (at most
 * `toolConcurrency` at a time), and each tool with side effects runs alone, after its own approval (`act`).
 *
 * @module
 */
import type { ModelToolCall } from '../models/types.js';
import type { LabelSet } from '../react/labels.js';
import { formatObservation } from '../react/observation.js';
import type { ActionTurn } from '../react/turn.js';
import type { ToolRouter } from '../tools/router.js';
import type { Tool } from '../tools/types.js';
import { act, journalTool } from './act.js';
import { isAllowedWithoutAsking } from './approval.js';
import { textInput } from './native.js';
import type { AgentEvent, AgentOptions, StepCall, StepObservation } from './types.js';

/** Default for {@link AgentOptions.toolConcurrency}. */
export const DEFAULT_TOOL_CONCURRENCY = 4;

/** A native tool call as the action it asks for. */
export function callAction(call: ModelToolCall, tools: readonly Tool[]): ActionTurn {
  const tool = tools.find((t) => t.name === call.name);
  const input = tool && !tool.inputJsonSchema ? textInput(call.input) : call.input;
  return { type: 'action', tool: call.name, input };
}

/**
 * Runs every call of a step and returns each with its observation, in the order of `calls`. Yields the
 * approval and tool events of each call (`tool-start` / `tool-end` for each, so the trace shows every call).
 */
export async function* actAll(
  calls: readonly ModelToolCall[],
  step: number,
  router: ToolRouter,
  options: AgentOptions & { labels: LabelSet },
): AsyncGenerator<AgentEvent, StepCall[]> {
  const results: StepCall[] = [];
  let reads: { call: ModelToolCall; turn: ActionTurn }[] = [];
  const flushReads = async function* (): AsyncGenerator<AgentEvent, void> {
    if (reads.length) results.push(...(yield* runReads(reads, step, router, options)));
    reads = [];
  };
  for (const [i, call] of calls.entries()) {
    const turn = callAction(call, options.tools);
    if (runsWithoutAsking(turn, router, options)) {
      reads.push({ call, turn });
      continue;
    }
    yield* flushReads();
    const observation = yield* act(turn, step, router, options, i + 1);
    results.push({ toolCall: call, tool: turn.tool, input: turn.input, observation });
  }
  yield* flushReads();
  return results;
}

/** A read tool (or an unknown one, answered at once) that needs no approval. */
function runsWithoutAsking(turn: ActionTurn, router: ToolRouter, options: AgentOptions): boolean {
  const prepared = router.prepare(turn.tool, turn.input);
  if (!prepared.ok) return true;
  if ((prepared.tool.effects ?? 'read') !== 'read') return false;
  return !prepared.needsApproval || isAllowedWithoutAsking(prepared.tool.name, options.allowTools);
}

/** Runs read calls together, at most `toolConcurrency` at a time; events come in call order. */
async function* runReads(
  reads: readonly { call: ModelToolCall; turn: ActionTurn }[],
  step: number,
  router: ToolRouter,
  options: AgentOptions & { labels: LabelSet },
): AsyncGenerator<AgentEvent, StepCall[]> {
  for (const { turn } of reads) yield { type: 'tool-start', step, tool: turn.tool, input: turn.input };
  const limit = Math.max(1, options.toolConcurrency ?? DEFAULT_TOOL_CONCURRENCY);
  const outcomes: StepObservation[] = new Array(reads.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < reads.length; i = next++)
      outcomes[i] = await runRead(reads[i]!.turn, step, router, options);
  };
  await Promise.all(Array.from({ length: Math.min(limit, reads.length) }, worker));
  const results: StepCall[] = [];
  for (const [i, { call, turn }] of reads.entries()) {
    const observation = outcomes[i]!;
    yield {
      type: 'tool-end',
      step,
      tool: turn.tool,
      input: turn.input,
      ok: observation.ok,
      observation: observation.text,
      durationMs: observation.durationMs ?? 0,
    };
    results.push({ toolCall: call, tool: turn.tool, input: turn.input, observation });
  }
  return results;
}

/** One read call: validated, run, its observation worded. Never throws. */
async function runRead(
  turn: ActionTurn,
  step: number,
  router: ToolRouter,
  options: AgentOptions & { labels: LabelSet },
): Promise<StepObservation> {
  const prepared = router.prepare(turn.tool, turn.input);
  // Through the journal like every tool call, so a resumed or replayed run does not run it again.
  const outcome = prepared.ok
    ? await journalTool(options, step, prepared, router)
    : { ok: false, observation: prepared.observation, durationMs: 0 };
  const observation: StepObservation = {
    text: formatObservation(outcome.observation, options.labels).text,
    source: 'tool',
    ok: outcome.ok,
    durationMs: outcome.durationMs,
  };
  if ('fullOutput' in outcome && outcome.fullOutput !== undefined) observation.fullText = outcome.fullOutput;
  return observation;
}
