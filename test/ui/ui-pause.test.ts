/**
 * Approvals through the UI stream: a paused run's response carries the AI SDK's tool approval request and
 * the signed state; the next `useChat` request (the same message with the approval response, as
 * `addToolApprovalResponse` leaves it) resumes the run. The client side is the AI SDK's own
 * `readUIMessageStream`, continuing the same assistant message as `useChat` does.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lastAssistantMessageIsCompleteWithApprovalResponses, type ToolUIPart, type UIMessage } from 'ai';
import { agentTool } from '../../src/agent/agent-tool.js';
import { AgentConfigError } from '../../src/agent/errors.js';
import type { Model, ModelToolCall } from '../../src/models/types.js';
import { scriptedModel } from '../../src/testing/scripted-model.js';
import { createAgentUIStreamResponse } from '../../src/ui/ui-response.js';
import type { TaoloopUIMessage } from '../../src/ui/ui-stream.js';
import { TEST_SECRET } from '../helpers/agent-run.js';
import { chatRequest, clientMessage, sendEmailTool } from '../helpers/ui-chat.js';

const question: UIMessage = { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Email Ann.' }] };

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
  const options = { tools: [tool], durable: { pauseForApproval: true, secret: TEST_SECRET } };
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
    [[question, approved], { durable: { pauseForApproval: false, secret: undefined } }, /resumes none/],
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
      request: chatRequest([question]),
      durable: { pauseForApproval: true },
    }),
    (error: unknown) => error instanceof AgentConfigError && /needs a `durable\.secret`/.test(error.message),
  );
});

test('a nested agent’s approval is a tool approval request of its own; the response resumes the nested run, repeating nothing', async () => {
  const { tool, sent } = sendEmailTool();
  const inner = scriptedModel([
    'Thought: send it\nAction: send_email[ann@example.com]',
    'Thought: sent\nAnswer: the email went to Ann',
  ]);
  const helper = agentTool({ name: 'mailer', description: 'Sends emails.', model: inner, tools: [tool] });
  const options = { tools: [helper], durable: { pauseForApproval: true, secret: TEST_SECRET } };
  const outerFirst = scriptedModel(['Thought: ask the mailer\nAction: mailer[email Ann]']);
  const message = await clientMessage(
    await createAgentUIStreamResponse({ ...options, model: outerFirst, request: chatRequest([question]) }),
  );
  assert.deepEqual(sent, []);
  const part = toolPart(message);
  assert.equal(part.state, 'approval-requested');
  assert.equal(part.input, 'ann@example.com');
  const pause = message.parts.find((p) => p.type === 'data-run-pause');
  assert.ok(pause && pause.type === 'data-run-pause');
  assert.deepEqual(
    pause.data.pending.map((p) => p.id),
    [part.approval!.id],
  );
  assert.equal(part.toolCallId, part.approval!.id);
  const mailer = message.parts.find((p) => p.type === 'tool-mailer');
  assert.equal(mailer && 'state' in mailer && mailer.state, 'input-available');
  assert.equal(lastAssistantMessageIsCompleteWithApprovalResponses({ messages: [question, message] }), false);
  const approved = respond(message, true);
  assert.equal(
    lastAssistantMessageIsCompleteWithApprovalResponses({ messages: [question, approved] }),
    true,
    'useChat sends the response by itself (sendAutomaticallyWhen)',
  );

  const outerSecond = scriptedModel(['Thought: done\nAnswer: Ann has the email.']);
  const after = await clientMessage(
    await createAgentUIStreamResponse({
      ...options,
      model: outerSecond,
      request: chatRequest([question, approved]),
    }),
    approved,
  );
  assert.deepEqual(sent, ['ann@example.com'], 'the nested tool ran once');
  outerFirst.assertAllUsed();
  outerSecond.assertAllUsed();
  inner.assertAllUsed();
  assert.equal(inner.requests.length, 2, 'no nested model call was made again');
  const done = toolPart(after);
  assert.equal(done.state, 'output-available');
  assert.equal(done.output, 'sent to ann@example.com');
  const mailerDone = after.parts.find((p) => p.type === 'tool-mailer');
  assert.ok(mailerDone && mailerDone.type === 'tool-mailer');
  assert.equal(mailerDone.state, 'output-available');
  assert.equal(mailerDone.output, 'the email went to Ann');
  const texts = after.parts.filter((p) => p.type === 'text').map((p) => p.type === 'text' && p.text);
  assert.deepEqual(texts, ['Ann has the email.']);
  assert.equal(after.parts.filter((p) => p.type === 'tool-send_email').length, 1, 'one part, not a copy');
});

test('a nested approval denied in the chat: the nested tool never runs and its part says denied', async () => {
  const { tool, sent } = sendEmailTool();
  const inner = scriptedModel([
    'Thought: send it\nAction: send_email[ann@example.com]',
    'Thought: refused\nAnswer: not sent',
  ]);
  const helper = agentTool({ name: 'mailer', description: 'Sends emails.', model: inner, tools: [tool] });
  const options = { tools: [helper], durable: { pauseForApproval: true, secret: TEST_SECRET } };
  const message = await clientMessage(
    await createAgentUIStreamResponse({
      ...options,
      model: scriptedModel(['Thought: ask\nAction: mailer[email Ann]']),
      request: chatRequest([question]),
    }),
  );
  const denied = respond(message, false, 'not now');
  const after = await clientMessage(
    await createAgentUIStreamResponse({
      ...options,
      model: scriptedModel(['Thought: ok\nAnswer: Not sent.']),
      request: chatRequest([question, denied]),
    }),
    denied,
  );
  assert.deepEqual(sent, []);
  assert.equal(toolPart(after).state, 'output-denied');
  assert.match(JSON.stringify(inner.requests[1]!.messages), /rejected this action \(not now\)/);
  inner.assertAllUsed();
});

test('native mode: a step’s two approvals arrive as two approval requests in one pause; both responses resume it', async () => {
  const { tool, sent } = sendEmailTool();
  const nativeModel = (reply: ModelToolCall[] | string): Model => ({
    id: 'native',
    supportsToolCalls: true,
    async generate() {
      return typeof reply === 'string'
        ? { text: reply, toolCalls: [], usage: {}, finishReason: 'stop' as const }
        : { text: '', toolCalls: reply, usage: {}, finishReason: 'tool-calls' as const };
    },
  });
  const options = {
    tools: [tool],
    modelSettings: { mode: 'native' },
    durable: { pauseForApproval: true, secret: TEST_SECRET },
  } as const;
  const calls = ['ann@example.com', 'bob@example.com'].map((to, i) => ({
    id: `c${i}`,
    name: 'send_email',
    input: JSON.stringify({ input: to }),
  }));
  const message = await clientMessage(
    await createAgentUIStreamResponse({
      ...options,
      model: nativeModel(calls),
      request: chatRequest([question]),
    }),
  );
  const emailParts = (m: TaoloopUIMessage) =>
    m.parts.filter((p) => p.type === 'tool-send_email') as ToolUIPart[];
  const asked = emailParts(message);
  assert.deepEqual(
    asked.map((p) => [p.toolCallId, p.state, p.input]),
    [
      ['step-1', 'approval-requested', 'ann@example.com'],
      ['step-1-call-2', 'approval-requested', 'bob@example.com'],
    ],
  );
  const approved = respond(message, true);
  assert.equal(lastAssistantMessageIsCompleteWithApprovalResponses({ messages: [question, approved] }), true);
  const after = await clientMessage(
    await createAgentUIStreamResponse({
      ...options,
      model: nativeModel('Both have it.'),
      request: chatRequest([question, approved]),
    }),
    approved,
  );
  assert.deepEqual(sent, ['ann@example.com', 'bob@example.com']);
  assert.deepEqual(
    emailParts(after).map((p) => [p.state, p.output]),
    [
      ['output-available', 'sent to ann@example.com'],
      ['output-available', 'sent to bob@example.com'],
    ],
  );
});
