/**
 * Converting between taoloop's model messages and the AI SDK's: native tool calls and their results
 * become content parts, tool definitions become a `ToolSet` without `execute`.
 *
 * @module
 */
import type { ModelMessage as AiModelMessage, ToolSet } from 'ai';
import type { ModelMessage, ModelToolCall, ModelToolDefinition } from './types.js';

/** taoloop messages to AI SDK messages; tool calls and results become content parts. */
export function toAiMessage(message: ModelMessage): AiModelMessage {
  switch (message.role) {
    case 'system':
    case 'user':
      return { role: message.role, content: message.content };
    case 'assistant':
      if (!message.toolCalls?.length) return { role: 'assistant', content: message.content };
      return {
        role: 'assistant',
        content: [
          ...(message.content ? [{ type: 'text' as const, text: message.content }] : []),
          ...message.toolCalls.map((call) => ({
            type: 'tool-call' as const,
            toolCallId: call.id,
            toolName: call.name,
            input: parsedInput(call),
          })),
        ],
      };
    case 'tool':
      return {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: message.toolCallId,
            toolName: message.toolName,
            output: { type: 'text', value: message.content },
          },
        ],
      };
    default:
      return message satisfies never;
  }
}

/**
 * A call's input parsed from JSON (or the text itself when it is not JSON), once per call: a run sends
 * every earlier call again with each step, and parsing them all again made a step's cost grow with the
 * run (bench/loop-overhead, native mode: 9% of a 64-step run's CPU). Callers never mutate the result.
 */
const parsedInputs = new WeakMap<ModelToolCall, { text: string; value: unknown }>();

function parsedInput(call: ModelToolCall): unknown {
  const known = parsedInputs.get(call);
  if (known?.text === call.input) return known.value;
  let value: unknown;
  try {
    value = JSON.parse(call.input);
  } catch {
    value = call.input;
  }
  parsedInputs.set(call, { text: call.input, value });
  return value;
}

/** Tools offered as functions, without `execute`: the AI SDK returns the calls and the loop runs them. */
export function toToolSet(
  ai: Pick<typeof import('ai'), 'jsonSchema' | 'tool'>,
  tools: readonly ModelToolDefinition[],
): ToolSet {
  const set: ToolSet = {};
  for (const definition of tools) {
    set[definition.name] = ai.tool({
      description: definition.description,
      inputSchema: ai.jsonSchema(definition.inputJsonSchema as Parameters<typeof ai.jsonSchema>[0]),
    });
  }
  return set;
}

export function toToolCall(call: { toolCallId: string; toolName: string; input: unknown }): ModelToolCall {
  return {
    id: call.toolCallId,
    name: call.toolName,
    input: typeof call.input === 'string' ? call.input : JSON.stringify(call.input ?? {}),
  };
}
