/**
 * `repairToolCall`: in native mode, a tool call naming an unknown tool or with input that does not validate
 * goes to the caller's repair function first (which may, for example, ask a second model); what it returns
 * is run instead. Without a repair (or when the repaired call is still wrong) the model gets the usual
 * corrective observation. The shape follows the AI SDK's `experimental_repairToolCall`
 * (https://ai-sdk.dev/docs/ai-sdk-core/tools-and-tool-calling#tool-call-repair).
 *
 * @module
 */
import type { ModelMessage, ModelResponse, ModelToolCall } from '../models/types.js';
import type { ToolRouter } from '../tools/router.js';
import { errorMessage } from '../util/own.js';
import { journalOf } from './act.js';
import { InvalidToolInputError, NoSuchToolError } from './errors.js';
import { FINAL_ANSWER_TOOL } from './final-answer.js';
import { toolDefinitions } from './native.js';
import { callAction } from './native-calls.js';
import type { AgentOptions, ToolCallRepair } from './types.js';

export type { RepairToolCallFunction, RepairToolCallOptions } from './hook-types.js';

/**
 * Passes each native call of `response` that cannot run through `options.repairToolCall`. Returns the
 * response with the repaired calls, and a record per call that needed a repair (none: `undefined`).
 */
export async function repairToolCalls(
  response: ModelResponse,
  step: number,
  messages: ModelMessage[],
  router: ToolRouter,
  options: AgentOptions,
): Promise<{ response: ModelResponse; repairs?: ToolCallRepair[] }> {
  const repair = options.repairToolCall;
  const calls = response.toolCalls;
  if (!repair || !calls?.length) return { response };
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
    let answer: unknown;
    try {
      answer = await journalOf(options)(`step-${step}-repair-${i + 1}`, async () => {
        const repaired = await repair({
          step,
          toolCall: call,
          error,
          messages,
          tools: router.tools,
          inputSchema: ({ toolName }) => schemaOf(router, toolName),
        });
        return repaired ?? null;
      });
    } catch (thrown) {
      record.repairError = errorMessage(thrown);
    }
    const repaired = readCall(answer, call.id);
    if (repaired) record.repaired = repaired;
    else if (answer !== null && answer !== undefined && record.repairError === undefined)
      record.repairError =
        'the repair returned something that is not a tool call ({ name, input } with text)';
    fixed.push(repaired ?? call);
  }
  if (!repairs.length) return { response };
  return { response: { ...response, toolCalls: fixed }, repairs };
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
