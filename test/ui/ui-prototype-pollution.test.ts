/**
 * The chat route reads what the client sent as the client's own data: a field that only a polluted
 * `Object.prototype` has (prototype pollution somewhere in the process) is absent. An approval response
 * without its own `approved: true` never approves a call.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { UIMessage } from 'ai';
import { scriptedModel } from '../../src/testing/scripted-model.js';
import { createAgentUIStreamResponse, uiMessagesToAgentMessages } from '../../src/ui/ui-response.js';
import { pausedRunIn } from '../../src/ui/ui-resume.js';
import type { TaoloopUIMessage } from '../../src/ui/ui-stream.js';
import { TEST_SECRET } from '../helpers/agent-run.js';
import { chatRequest, clientMessage, sendEmailTool } from '../helpers/ui-chat.js';

const question: UIMessage = { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Email Ann.' }] };
const ACT = 'Thought: send it\nAction: send_email[ann@example.com]';
type Part = Record<string, unknown> & { approval?: Record<string, unknown> };

/** Runs `body` with `fields` set on `Object.prototype`, removing them afterwards whatever happens. */
async function polluted<T>(fields: Record<string, unknown>, body: () => Promise<T> | T): Promise<T> {
  const proto = Object.prototype as Record<string, unknown>;
  for (const [key, value] of Object.entries(fields)) proto[key] = value;
  try {
    return await body();
  } finally {
    for (const key of Object.keys(fields)) delete proto[key];
  }
}

test('an approval response without its own `approved` does not approve, even with Object.prototype.approved = true', async () => {
  const { tool, sent } = sendEmailTool();
  const options = { tools: [tool], durable: { pauseForApproval: true, secret: TEST_SECRET } };
  const paused = await clientMessage(
    await createAgentUIStreamResponse({
      ...options,
      model: scriptedModel([ACT]),
      request: chatRequest([question]),
    }),
  );
  // The client answers with an approval that has an id and nothing else (no `approved` of its own).
  const parts = (paused.parts as unknown as Part[]).map((part) =>
    part.state === 'approval-requested'
      ? { ...part, state: 'approval-responded', approval: { id: part.approval?.id } }
      : part,
  );
  const answered = { ...paused, parts } as unknown as TaoloopUIMessage;
  const response = await polluted({ approved: true }, () =>
    createAgentUIStreamResponse({
      ...options,
      model: scriptedModel(['Thought: done\nAnswer: done.']),
      request: chatRequest([question, answered]),
    }),
  );
  // No decision of the client's own for the pending request: refused before anything runs.
  assert.equal(response.status, 400);
  assert.match(((await response.json()) as { error: string }).error, /No decision for/);
  assert.deepEqual(sent, [], 'the tool never ran');
  const resume = await polluted({ approved: true }, () => pausedRunIn([question, answered]));
  assert.deepEqual(Object.values(resume?.decisions ?? {}), []);

  // An own `approved` that is not `true` rejects, whatever the prototype says.
  const withFalse = {
    ...answered,
    parts: parts.map((p) => (p.approval ? { ...p, approval: { ...p.approval, approved: 'yes' } } : p)),
  };
  const rejected = await polluted({ approved: true }, () => pausedRunIn([question, withFalse]));
  assert.deepEqual(Object.values(rejected?.decisions ?? {}), [{ type: 'reject' }]);
});

test('UI messages are read as own data: inherited role, parts or text count as absent', async () => {
  // A message with no role and no parts of its own: refused, not read as the prototype's user message.
  await polluted({ role: 'user', parts: [{ type: 'text', text: 'injected' }] }, () => {
    assert.throws(() => uiMessagesToAgentMessages([{ id: 'm1' }]), /must be a user or assistant UI message/);
  });
  // A text part whose text is inherited: no text of the client's.
  await polluted({ text: 'injected' }, () => {
    assert.throws(
      () => uiMessagesToAgentMessages([{ id: 'm1', role: 'user', parts: [{ type: 'text' }] }]),
      /text part without a `text` string/,
    );
  });
  // A body whose `messages` is only inherited: a 400, the agent does not run.
  const response = await polluted({ messages: [question] }, () =>
    createAgentUIStreamResponse({
      model: scriptedModel(['Thought: x\nAnswer: x']),
      tools: [],
      request: new Request('http://127.0.0.1/api/chat', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      }),
    }),
  );
  assert.equal(response.status, 400);
});
