/**
 * `hooks.repairToolCall`: in native mode, a tool call naming an unknown tool or with input that does not
 * validate goes to the caller's repair function first (which may, for example, ask a second model); what it
 * returns is run instead. Without a repair (or when the repaired call is still wrong) the model gets the
 * usual corrective observation. The model calls a repair makes through `generate` count like the run's own
 * (usage, `usageByModel`, cost, budgets) and are kept with the repair's journal entry, so a replay counts
 * them too. The shape follows the AI SDK's `experimental_repairToolCall`
 * (https://ai-sdk.dev/docs/ai-sdk-core/tools-and-tool-calling#tool-call-repair).
 *
 * @module
 */
import type {
  Model,
  ModelMessage,
  ModelRequest,
  ModelResponse,
  ModelToolCall,
  ModelUsage,
} from '../models/types.js';
import type { ToolRouter } from '../tools/router.js';
import { errorMessage } from '../util/own.js';
import { type Budget, requestTokens } from './budget.js';
import { recordedCall } from './effects.js';
import { BudgetExceededError, InvalidToolInputError, NoSuchToolError } from './errors.js';
import { FINAL_ANSWER_TOOL } from './final-answer.js';
import type { RepairToolCallFunction, RepairToolCallOptions } from './hook-types.js';
import { toolDefinitions } from './native.js';
import { callAction } from './native-calls.js';
import type { Run } from './run.js';
import type { AgentEvent, ToolCallRepair } from './types.js';

export type { RepairToolCallFunction, RepairToolCallOptions };

/** A model call a repair made through `generate`, as its journal entry keeps it (plain data). */
interface RepairModelCall {
  modelId: string;
  purpose: string;
  text: string;
  usage: ModelUsage;
  /** The request's input tokens as the budget estimates them, for a replay where the provider gave none. */
  requestTokens: number;
}

/** What the journal records for one repair: its answer (or why it failed) and the model calls it made. */
interface RepairRecord {
  answer: unknown;
  error?: string;
  modelCalls: RepairModelCall[];
}

/** What {@link repairToolCalls} gave: the response to read, a record per repaired call, the events to yield. */
export interface RepairedResponse {
  response: ModelResponse;
  repairs?: ToolCallRepair[];
  /** A `hook-model-end` event for each model call the repairs made. */
  events: AgentEvent[];
}

/**
 * Passes each native call of `response` that cannot run through `hooks.repairToolCall` (in the run's
 * flattened settings). Returns the response with the repaired calls, and a record per call that needed a
 * repair (none: `undefined`). The model calls a repair makes through `generate` are recorded in `budget`,
 * replayed ones too.
 */
export async function repairToolCalls(
  run: Run,
  response: ModelResponse,
  step: number,
  messages: ModelMessage[],
  router: ToolRouter,
): Promise<RepairedResponse> {
  const { budget, settings: options } = run;
  const repair = options.repairToolCall;
  const calls = response.toolCalls;
  const events: AgentEvent[] = [];
  if (!repair || !calls?.length) return { response, events };
  const count = (made: RepairModelCall) => {
    const costUsd = budget.record(made.requestTokens, made.usage, made.text, made.modelId);
    const { modelId, text, usage, purpose } = made;
    events.push({
      type: 'hook-model-end',
      step,
      modelId,
      text,
      usage,
      purpose,
      ...(costUsd !== undefined && { costUsd }),
    });
  };
  const repairs: ToolCallRepair[] = [];
  const fixed: ModelToolCall[] = [];
  for (const [i, call] of calls.entries()) {
    const error = callError(call, router);
    if (!error) {
      fixed.push(call);
      continue;
    }
    const record: ToolCallRepair = { original: call, error: error.message };
    repairs.push(record);
    const args = {
      step,
      toolCall: call,
      error,
      messages,
      tools: router.tools,
      inputSchema: ({ toolName }: { toolName: string }) => schemaOf(router, toolName),
    };
    let ran = false;
    const journaled = await recordedCall(run.effects, `step-${step}-repair-${i + 1}`, () => {
      ran = true;
      return callRepair(repair, args, { budget, count, signal: options.signal });
    });
    const { answer, error: repairError, modelCalls } = readRecord(journaled);
    // A replayed repair does not call its models again: the calls it recorded count here.
    if (!ran) for (const made of modelCalls) count(made);
    if (repairError !== undefined) record.repairError = repairError;
    const repaired = readCall(answer, call.id);
    if (repaired) record.repaired = repaired;
    else if (answer !== null && answer !== undefined && repairError === undefined)
      record.repairError =
        'the repair returned something that is not a tool call ({ name, input } with text)';
    fixed.push(repaired ?? call);
  }
  if (!repairs.length) return { response, events };
  return { response: { ...response, toolCalls: fixed }, repairs, events };
}

/**
 * Calls the repair with a `generate` that checks the budget before each model call and counts it as soon
 * as it is made. Returns what the journal records: the repair's answer, or what it threw, and its calls.
 */
async function callRepair(
  repair: RepairToolCallFunction,
  args: Omit<RepairToolCallOptions, 'generate'>,
  run: { budget: Budget; count: (made: RepairModelCall) => void; signal: AbortSignal | undefined },
): Promise<RepairRecord> {
  const modelCalls: RepairModelCall[] = [];
  const generate = async (model: Model, request: ModelRequest, purpose = 'repairToolCall') => {
    const over = run.budget.check(request);
    if (over !== undefined) throw new BudgetExceededError(over);
    const response = await model.generate({ ...request, ...(run.signal && { signal: run.signal }) });
    const { text, usage } = response;
    const made = { modelId: model.id, purpose, text, usage, requestTokens: requestTokens(request) };
    modelCalls.push(made);
    run.count(made);
    return response;
  };
  try {
    return { answer: (await repair({ ...args, generate })) ?? null, modelCalls };
  } catch (thrown) {
    return { answer: null, error: errorMessage(thrown), modelCalls };
  }
}

/** A journaled repair; a journal written before repairs recorded their model calls kept the answer alone. */
function readRecord(value: unknown): RepairRecord {
  if (typeof value === 'object' && value !== null && Array.isArray((value as RepairRecord).modelCalls))
    return value as RepairRecord;
  return { answer: value, modelCalls: [] };
}

/** Why a call cannot run, or `undefined` when it can (the typed answer's function is not a tool call). */
function callError(
  call: ModelToolCall,
  router: ToolRouter,
): NoSuchToolError | InvalidToolInputError | undefined {
  if (call.name === FINAL_ANSWER_TOOL && !router.names.includes(call.name)) return undefined;
  if (!router.names.includes(call.name)) return new NoSuchToolError(call.name, router.names);
  const turn = callAction(call, router.tools);
  const prepared = router.prepare(turn.tool, turn.input);
  if (prepared.ok) return undefined;
  return new InvalidToolInputError(call.name, call.input, prepared.observation.replace(/^Error: /, ''));
}

/** The arguments schema of one of the step's tools. */
function schemaOf(router: ToolRouter, toolName: string): Record<string, unknown> | undefined {
  const tool = router.tools.find((t) => t.name === toolName);
  return tool && toolDefinitions([tool])[0]!.inputJsonSchema;
}

/** A repair's answer as a call under the model's call id, or `undefined` when it is not one. */
function readCall(value: unknown, id: string): ModelToolCall | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { name, input } = value as { name?: unknown; input?: unknown };
  if (typeof name !== 'string' || typeof input !== 'string') return undefined;
  return { id, name, input };
}
