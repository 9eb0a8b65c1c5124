/**
 * Approvals through the UI stream: a paused run's response carries the AI SDK's tool approval request and
 * the signed state; the next `useChat` request (the same message with the approval response, as
 * `addToolApprovalResponse` leaves it) resumes the run. The client side is the AI SDK's own
 * `readUIMessageStream`, continuing the same assistant message as `useChat` does.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readUIMessageStream, type UIMessage } from 'ai';
import { AgentConfigError } from '../../src/agent/errors.js';
import { scriptedModel } from '../../src/testing/scripted-model.js';
import { defineTool } from '../../src/tools/define.js';
import { createAgentUIStreamResponse } from '../../src/ui/ui-response.js';
import type { TaoloopUIMessage, TaoloopUIMessageChunk } from '../../src/ui/ui-stream.js';

const SECRET = 'a test secret of at least 32 characters';
const question: UIMessage = { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Email Ann.' }] };

function sendEmailTool() {
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

function chatRequest(messages: unknown): Request {
  return new Request('http://127.0.0.1/api/chat', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ id: 'chat-1', messages, trigger: 'submit-message' }),
  });
}

/** The assistant message the client has after reading `response` (continuing `message`, as useChat does). */
async function clientMessage(response: Response, message?: TaoloopUIMessage): Promise<TaoloopUIMessage> {
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

/** What `addToolApprovalResponse({ id, approved, reason })` does to the message. */
function respond(message: TaoloopUIMessage, approved: boolean, reason?: string): TaoloopUIMessage {
  return {
    ...message,
    parts: message.parts.map((part) =>
      'approval' in part && part.state === 'approval-requested'
        ? ({
            ...part,
            state: 'approval-responded',
            approval: { ...part.approval, approved, ...(reason && { reason }) },
          } as unknown as typeof part)
        : part,
    ),
  };
}

function toolPart(message: TaoloopUIMessage) {
  const part = message.parts.find((p) => p.type === 'tool-send_email');
  assert.ok(part && part.type === 'tool-send_email');
  return part;
}

async function pausedChat() {
  const { tool, sent } = sendEmailTool();
  const options = { tools: [tool], pauseForApproval: true, secret: SECRET };
  const first = await createAgentUIStreamResponse({
    ...options,
    model: scriptedModel(['Thought: send it\nAction: send_email[ann@example.com]']),
    request: chatRequest([question]),
  });
  const message = await clientMessage(first);
  return { message, sent, options };
}

test('a paused run streams an approval request; the approval response resumes it into the same message', async () => {
  const { message, sent, options } = await pausedChat();
  assert.deepEqual(sent, []);
  const part = toolPart(message);
  assert.equal(part.state, 'approval-requested');
  assert.match(part.approval!.id, /\/step-1\/call-1$/);
  const pause = message.parts.find((p) => p.type === 'data-run-pause');
  assert.ok(pause && pause.type === 'data-run-pause');
  assert.equal(pause.data.pending[0]!.id, part.approval!.id);
  assert.match(pause.data.state.signature ?? '', /^hmac-sha256:/);

  const model = scriptedModel(['Thought: done\nAnswer: Ann has the email.']);
  const second = await createAgentUIStreamResponse({
    ...options,
    model,
    request: chatRequest([question, respond(message, true)]),
  });
  const after = await clientMessage(second, respond(message, true));
  model.assertAllUsed();
  assert.deepEqual(sent, ['ann@example.com']);
  const done = toolPart(after);
  assert.equal(done.state, 'output-available');
  assert.equal(done.output, 'sent to ann@example.com');
  assert.equal(done.approval?.approved, true);
  const texts = after.parts.filter((p) => p.type === 'text').map((p) => p.type === 'text' && p.text);
  assert.deepEqual(texts, ['Ann has the email.']);
  assert.equal(
    after.parts.filter((p) => p.type === 'tool-send_email').length,
    1,
    'one tool part, not a copy',
  );
});

test('a denial resumes the run with the reason; the tool never runs', async () => {
  const { message, sent, options } = await pausedChat();
  const model = scriptedModel(['Thought: ok\nAnswer: I did not send it.']);
  const denied = respond(message, false, 'wrong address');
  const after = await clientMessage(
    await createAgentUIStreamResponse({ ...options, model, request: chatRequest([question, denied]) }),
    denied,
  );
  assert.deepEqual(sent, []);
  assert.equal(toolPart(after).state, 'output-denied');
  assert.match(JSON.stringify(model.requests[0]!.messages), /rejected this action \(wrong address\)/);
});

test('a changed state, an approval for another request, or a route without a secret gets a 400; nothing runs', async () => {
  const { message, sent, options } = await pausedChat();
  const model = scriptedModel([]);
  const post = (messages: unknown, extra: object = options) =>
    createAgentUIStreamResponse({ ...options, ...extra, model, request: chatRequest(messages) } as never);
  const approved = respond(message, true);

  const tampered = structuredClone(approved);
  for (const part of tampered.parts)
    if (part.type === 'data-run-pause') part.data.state.pending[0]!.input = 'everyone@example.com';
  const forged = structuredClone(approved);
  for (const part of forged.parts)
    if ('approval' in part && part.approval) part.approval.id = 'another-run/step-1/call-1';

  for (const [messages, extra, pattern] of [
    [[question, tampered], options, /does not match its signature/],
    [[question, forged], options, /does not wait for/],
    [[question, approved], { pauseForApproval: false, secret: undefined }, /resumes none/],
  ] as const) {
    const response = await post(messages, extra);
    assert.equal(response.status, 400);
    assert.match(((await response.json()) as { error: string }).error, pattern);
  }
  assert.deepEqual(sent, []);
  assert.equal(model.requests.length, 0);
});

test('pauseForApproval in a chat route needs a secret', async () => {
  const { tool } = sendEmailTool();
  await assert.rejects(
    createAgentUIStreamResponse({
      model: scriptedModel([]),
      tools: [tool],
      pauseForApproval: true,
      request: chatRequest([question]),
    }),
    (error: unknown) => error instanceof AgentConfigError && /needs a `secret`/.test(error.message),
  );
});
