/**
 * Set-up shared by the chat route's tests (test/ui/): the request `useChat` sends, the assistant message its
 * client side holds after reading a response, and a tool that needs approval.
 */
import assert from 'node:assert/strict';
import { readUIMessageStream } from 'ai';
import { defineTool } from '../../src/tools/define.js';
import type { TaoloopUIMessage, TaoloopUIMessageChunk } from '../../src/ui/ui-stream.js';

/** The POST that `useChat` sends for `messages` (chat `chat-1`, trigger `submit-message`). */
export function chatRequest(messages: unknown): Request {
  return new Request('http://127.0.0.1/api/chat', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ id: 'chat-1', messages, trigger: 'submit-message' }),
  });
}

/**
 * The assistant message the client has after reading `response` with the AI SDK's `readUIMessageStream`
 * (continuing `message` when given, as `useChat` does), as a deep copy.
 *
 * @throws AssertionError when the response's status is not 200 (the message is its body).
 */
export async function clientMessage(
  response: Response,
  message?: TaoloopUIMessage,
): Promise<TaoloopUIMessage> {
  assert.equal(response.status, 200, await response.clone().text());
  const chunks = (await response.text())
    .split('\n')
    .filter((line) => line.startsWith('data: ') && line !== 'data: [DONE]')
    .map((line) => JSON.parse(line.slice(6)) as TaoloopUIMessageChunk);
  const stream = new ReadableStream<TaoloopUIMessageChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  let last: TaoloopUIMessage | undefined;
  for await (const m of readUIMessageStream<TaoloopUIMessage>({ stream, ...(message && { message }) }))
    last = m;
  return structuredClone(last!);
}

/** A `send_email` tool with external effects (so it needs approval); `sent` lists each address it ran for. */
export function sendEmailTool() {
  const sent: string[] = [];
  const tool = defineTool({
    name: 'send_email',
    description: 'Sends an email.',
    input: 'text',
    effects: 'external',
    run: (to) => {
      sent.push(to);
      return `sent to ${to}`;
    },
  });
  return { tool, sent };
}
