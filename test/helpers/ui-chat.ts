/**
 * Set-up shared by the chat route's tests (test/ui/): the request `useChat` sends, the assistant message its
 * client side holds after reading a response, a tool that needs approval, and a model whose turns end
 * when the test says.
 */
import assert from 'node:assert/strict';
import { readUIMessageStream } from 'ai';
import type { Model, ModelRequest } from '../../src/models/types.js';
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

/** A promise and its resolve function. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

/** Waits for `opened`, or throws when the request is aborted (the page went away). */
async function waitFor(opened: Promise<void>, request: ModelRequest): Promise<void> {
  const signal = request.signal;
  if (!signal) return opened;
  signal.throwIfAborted();
  let onAbort = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    await Promise.race([opened, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/**
 * A model that streams each call's `before` text, waits for the call's gate, then streams `after`: the test
 * decides when each turn ends, so what the page shows mid-turn is checked without any timing.
 */
export function gatedModel(calls: { before: string; after: string }[]) {
  const gates = calls.map(() => gate());
  const requests: ModelRequest[] = [];
  let call = 0;
  const model: Model = {
    id: 'gated',
    async generate() {
      throw new Error('this model only streams');
    },
    async *stream(request) {
      const index = call++;
      requests.push(request);
      const script = calls[index];
      assert.ok(script, `model called ${index + 1} times, ${calls.length} scripted`);
      yield { type: 'text-delta', text: script.before };
      await waitFor(gates[index]!.opened, request);
      yield { type: 'text-delta', text: script.after };
      yield { type: 'finish', usage: {}, finishReason: 'stop' };
    },
  };
  return {
    model,
    /** The request of each call so far (its `signal` tells whether the run was aborted). */
    requests,
    open: (index: number) => gates[index]!.open(),
    openAll: () => {
      for (const g of gates) g.open();
    },
  };
}
