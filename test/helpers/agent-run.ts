/**
 * Set-up shared by the agent tests (loop, pause, nested agents, usage counts): draining a run's event stream,
 * a native model that replies from a list, and a write tool that records its runs.
 */
import type { AgentEvent, RunResult } from '../../src/agent/types.js';
import type { Model, ModelToolCall } from '../../src/models/types.js';
import { defineTool } from '../../src/tools/define.js';

/** A signing secret long enough for `pauseForApproval` (32 characters or more). */
export const TEST_SECRET = 'a test secret of at least 32 characters';

/**
 * Drains a run's event stream (`streamAgent`, `streamResumedAgent`).
 *
 * @returns every event in order, and the run's result (the generator's return value).
 */
export async function collectRun(
  run: AsyncGenerator<AgentEvent, RunResult>,
): Promise<{ events: AgentEvent[]; result: RunResult }> {
  const events: AgentEvent[] = [];
  let next = await run.next();
  while (!next.done) {
    events.push(next.value);
    next = await run.next();
  }
  return { events, result: next.value };
}

/**
 * A native (tool-calling) model that answers each request with the next reply: a list of tool calls, or a
 * final text. `requests` counts the calls made.
 *
 * @throws Error "called too often" when asked once more than there are replies.
 */
export function nativeReplyModel(replies: (ModelToolCall[] | string)[]): Model & { requests: number } {
  const model = {
    id: 'native',
    supportsToolCalls: true,
    requests: 0,
    async generate() {
      const reply: ModelToolCall[] | string | undefined = replies[model.requests++];
      if (reply === undefined) throw new Error('called too often');
      return typeof reply === 'string'
        ? { text: reply, toolCalls: [], usage: {}, finishReason: 'stop' as const }
        : { text: '', toolCalls: reply, usage: {}, finishReason: 'tool-calls' as const };
    },
  };
  return model;
}

/** A native tool call of a text-input tool: `input` travels as `{"input": ...}`. */
export const textToolCall = (id: string, name: string, input: string): ModelToolCall => ({
  id,
  name,
  input: JSON.stringify({ input }),
});

/**
 * A write tool, `append[line]`, that records each run: `lines` (what it wrote, in order) and `calls` (each
 * line with the `callId` it was given). Both arrays grow as the tool runs.
 */
export function appendTool() {
  const lines: string[] = [];
  const calls: { line: string; callId: string | undefined }[] = [];
  const tool = defineTool({
    name: 'append',
    description: 'Appends a line.',
    input: 'text',
    effects: 'write',
    run: (line, context) => {
      lines.push(line);
      calls.push({ line, callId: context?.callId });
      return `appended ${line}`;
    },
  });
  return { tool, lines, calls };
}
