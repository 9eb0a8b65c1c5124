/**
 * Running a step's action, and native mode's several tool calls in one step: every call gets a result,
 * never a silent drop. Calls are taken in the order the model made them; consecutive read tools run together
 * (at most `toolConcurrency` at a time), and each tool with side effects runs alone, after its own approval
 * (`act`). With `parallelToolCalls: false` the first call runs and each other one is answered that it was not
 * run. Every call that ran gets the same notes a single action gets: how to answer instead of calling an
 * unknown tool, and that it repeats an earlier call with the same result. With `pauseForApproval`, a step's
 * approvals are asked together before any of its calls runs, so the run pauses once per step.
 *
 * @module
 */
import type { ModelToolCall } from '../models/types.js';
import { formatObservation } from '../react/observation.js';
import type { ActionTurn } from '../react/turn.js';
import type { ToolRouter } from '../tools/router.js';
import type { Tool } from '../tools/types.js';
import { act, askApproval, needsAsking, runTool } from './act.js';
import { RunPaused } from './errors.js';
import { textInput } from './native.js';
import { nestedRunnerOf, type Run } from './run.js';
import { unknownToolHint } from './turns.js';
import type {
  AgentEvent,
  ApprovalDecision,
  PendingApprovalRequest,
  StepCall,
  StepObservation,
} from './types.js';

/** Default for {@link AgentLimits.toolConcurrency}. */
export const DEFAULT_TOOL_CONCURRENCY = 4;
/** Default for {@link AgentLimits.maxToolCallsPerStep}. */
export const DEFAULT_MAX_TOOL_CALLS_PER_STEP = 16;

/** What running a step's action gave. */
export interface ActedStep {
  /** The observation of the action (in native mode, of the step's first call). */
  observation: StepObservation;
  /** Native mode: the step's other calls, each answered. */
  otherCalls?: StepCall[];
  /** Native mode: how many of the step's calls were past `maxToolCallsPerStep`, answered "not run". */
  callsOverLimit?: number;
  /** True when a call used up its repeats (`maxRepeatedActions`): the run stops with `repeated_action`. */
  stop: boolean;
}

/**
 * Runs the action of a step: `turn` alone in text mode or for a single native call; every one of `calls`
 * when a native step made several (or, with `parallelToolCalls: false`, the first, the others answered that
 * they were not run). Each call that ran gets the unknown-tool hint and the repeat note it calls for.
 *
 * @throws {RunPaused} when a call waits for a person (`pauseForApproval`).
 */
export async function* actStep(
  run: Run,
  turn: ActionTurn,
  calls: readonly ModelToolCall[],
  step: number,
  router: ToolRouter,
): AsyncGenerator<AgentEvent, ActedStep> {
  const { settings } = run;
  // A flooded turn: only the first calls run (or ask approval); each one past the limit is answered.
  const limit = settings.maxToolCallsPerStep ?? DEFAULT_MAX_TOOL_CALLS_PER_STEP;
  const kept = calls.slice(0, limit);
  const over = calls.slice(limit).map((call) => overLimit(call, settings.tools, limit, calls.length));
  let observation: StepObservation;
  let others: StepCall[] | undefined;
  let ran: readonly StepCall[] = [];
  if (kept.length > 1 && settings.parallelToolCalls !== false) {
    const [first, ...rest] = yield* actAll(run, kept, step, router);
    observation = first!.observation;
    others = rest;
    ran = rest;
  } else {
    observation = yield* act(run, turn, step, router);
    if (kept.length > 1) others = kept.slice(1).map((call) => notRun(call, settings.tools));
  }
  if (over.length > 0) others = [...(others ?? []), ...over];
  let stop = false;
  for (const call of [{ tool: turn.tool, input: turn.input, observation }, ...ran]) {
    if (!router.names.includes(call.tool))
      call.observation.text = `${call.observation.text}\n${unknownToolHint(settings.labels, run.plan.native)}`;
    const repeat = run.repeats.record(call.tool, call.input, call.observation.text);
    if (repeat.note) call.observation.text = `${call.observation.text}\n${repeat.note}`;
    if (repeat.stop) stop = true;
  }
  return {
    observation,
    ...(others && { otherCalls: others }),
    ...(over.length > 0 && { callsOverLimit: over.length }),
    stop,
  };
}

/** A call past `maxToolCallsPerStep`, answered so: the model may make it again in a later step. */
function overLimit(call: ModelToolCall, tools: readonly Tool[], limit: number, made: number): StepCall {
  const { tool, input } = callAction(call, tools);
  const text = `Not run: this step made ${made} tool calls and at most ${limit} run in one step. Call ${tool} again in a later step if you still need it.`;
  return { toolCall: call, tool, input, observation: { text, source: 'tool', ok: false } };
}

/** A call left out by `parallelToolCalls: false`, answered so: never dropped without a word. */
function notRun(call: ModelToolCall, tools: readonly Tool[]): StepCall {
  const { tool, input } = callAction(call, tools);
  const text = `Not run: only one tool call runs each step (parallel tool calls are off); call ${tool} again in a later step if you still need it.`;
  return { toolCall: call, tool, input, observation: { text, source: 'tool', ok: false } };
}

/** A native tool call as the action it asks for. */
export function callAction(call: ModelToolCall, tools: readonly Tool[]): ActionTurn {
  const tool = tools.find((t) => t.name === call.name);
  const input = tool && !tool.inputJsonSchema ? textInput(call.input) : call.input;
  return { type: 'action', tool: call.name, input };
}

/**
 * Runs every call of a step and returns each with its observation, in the order of `calls`. Yields the
 * approval and tool events of each call (`tool-start` / `tool-end` for each, so the trace shows every call).
 *
 * Approvals: with `approve` alone, each call that needs one is asked just before it runs, one at a time, in
 * order. With `pauseForApproval`, every call of the step that needs one is asked first
 * ({@link approveTogether}), so the run pauses once with all of the step's requests, and a resumed run
 * takes all their decisions before any call runs.
 *
 * @throws {RunPaused} when the run pauses for approval.
 */
export async function* actAll(
  run: Run,
  calls: readonly ModelToolCall[],
  step: number,
  router: ToolRouter,
): AsyncGenerator<AgentEvent, StepCall[]> {
  const { tools } = run.settings;
  const decided = run.effects.asksTogether
    ? yield* approveTogether(run, calls, step, router)
    : new Map<number, ApprovalDecision>();
  const results: StepCall[] = [];
  let reads: ReadCall[] = [];
  const flushReads = async function* (): AsyncGenerator<AgentEvent, void> {
    if (reads.length) results.push(...(yield* runReads(run, reads, step, router)));
    reads = [];
  };
  for (const [i, call] of calls.entries()) {
    const turn = callAction(call, tools);
    if (runsWithoutAsking(run, turn, router)) {
      reads.push({ call, turn, index: i + 1 });
      continue;
    }
    yield* flushReads();
    const observation = yield* act(run, turn, step, router, i + 1, decided.get(i + 1));
    results.push({ toolCall: call, tool: turn.tool, input: turn.input, observation });
  }
  yield* flushReads();
  return results;
}

/**
 * Asks for the approval of every call of the step that needs one, in order, before any runs. A request
 * that pauses the run does not stop the asking: the run pauses after the last one, with all of them.
 *
 * @returns the decisions, by call number (from 1).
 * @throws {RunPaused} with every request that paused the run.
 */
async function* approveTogether(
  run: Run,
  calls: readonly ModelToolCall[],
  step: number,
  router: ToolRouter,
): AsyncGenerator<AgentEvent, Map<number, ApprovalDecision>> {
  const decisions = new Map<number, ApprovalDecision>();
  const paused: PendingApprovalRequest[] = [];
  for (const [i, call] of calls.entries()) {
    const { tool, input } = callAction(call, run.settings.tools);
    const prepared = router.prepare(tool, input);
    if (!prepared.ok || !needsAsking(run, prepared)) continue;
    try {
      decisions.set(i + 1, yield* askApproval(run, prepared, step, i + 1));
    } catch (error) {
      if (!(error instanceof RunPaused)) throw error;
      paused.push(...error.pending);
    }
  }
  if (paused.length > 0) throw new RunPaused(paused);
  return decisions;
}

/** A read tool (or an unknown one, answered at once) that needs no approval. */
function runsWithoutAsking(run: Run, turn: ActionTurn, router: ToolRouter): boolean {
  const prepared = router.prepare(turn.tool, turn.input);
  if (!prepared.ok) return true;
  // A nested agent runs through `act`, which passes its events on.
  if ((prepared.tool.effects ?? 'read') !== 'read' || nestedRunnerOf(prepared.tool)) return false;
  return !needsAsking(run, prepared);
}

/** A read call of a step, and its number in the step (from 1). */
interface ReadCall {
  call: ModelToolCall;
  turn: ActionTurn;
  index: number;
}

/** Runs read calls together, at most `toolConcurrency` at a time; events come in call order. */
async function* runReads(
  run: Run,
  reads: readonly ReadCall[],
  step: number,
  router: ToolRouter,
): AsyncGenerator<AgentEvent, StepCall[]> {
  const at = (index: number) => (index > 1 ? { step, call: index } : { step });
  for (const { turn, index } of reads)
    yield { type: 'tool-start', ...at(index), tool: turn.tool, input: turn.input };
  const limit = Math.max(1, run.settings.toolConcurrency ?? DEFAULT_TOOL_CONCURRENCY);
  const outcomes: StepObservation[] = new Array(reads.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < reads.length; i = next++)
      outcomes[i] = await runRead(run, reads[i]!, step, router);
  };
  await Promise.all(Array.from({ length: Math.min(limit, reads.length) }, worker));
  const results: StepCall[] = [];
  for (const [i, { call, turn, index }] of reads.entries()) {
    const observation = outcomes[i]!;
    yield {
      type: 'tool-end',
      ...at(index),
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
  run: Run,
  { turn, index }: ReadCall,
  step: number,
  router: ToolRouter,
): Promise<StepObservation> {
  const prepared = router.prepare(turn.tool, turn.input);
  // Through the run's effects like every tool call, so a resumed or replayed run does not run it again.
  const outcome = prepared.ok
    ? await runTool(run, step, prepared, router, index)
    : { ok: false, observation: prepared.observation, durationMs: 0 };
  const observation: StepObservation = {
    text: formatObservation(outcome.observation, run.settings.labels).text,
    source: 'tool',
    ok: outcome.ok,
    durationMs: outcome.durationMs,
  };
  if ('fullOutput' in outcome && outcome.fullOutput !== undefined) observation.fullText = outcome.fullOutput;
  return observation;
}
