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
            input: parseJsonOr(call.input),
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

function parseJsonOr(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
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
