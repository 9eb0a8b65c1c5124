import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { runAgent, streamAgent } from '../../src/agent/loop.js';
import type { ApprovalRequest } from '../../src/agent/types.js';
import { scriptedModel } from '../../src/testing/scripted-model.js';
import { defineTool } from '../../src/tools/define.js';

function emailTool() {
  const sent: string[] = [];
  const tool = defineTool({
    name: 'send_email',
    description: 'Sends an email.',
    input: z.object({ to: z.string(), body: z.string() }),
    effects: 'external',
    run: ({ to, body }) => {
      sent.push(`${to}: ${body}`);
      return `sent to ${to}`;
    },
  });
  return { tool, sent };
}

const turns = [
  'Thought: tell the boss\nAction: send_email[{"to": "boss@example.com", "body": "done"}]',
  'Thought: ok\nAnswer: finished',
];

test('approved: the tool runs and the request shows tool, input and effects', async () => {
  const { tool, sent } = emailTool();
  const requests: ApprovalRequest[] = [];
  const result = await runAgent({
    model: scriptedModel(turns),
    question: 'q',
    tools: [tool],
    approve: (request) => {
      requests.push(request);
      return { type: 'approve' };
    },
  });
  assert.deepEqual(sent, ['boss@example.com: done']);
  assert.deepEqual(
    requests.map(({ tool, input, effects, step }) => ({ tool, input, effects, step })),
    [
      {
        tool: 'send_email',
        input: '{"to": "boss@example.com", "body": "done"}',
        effects: 'external',
        step: 1,
      },
    ],
  );
  assert.equal(result.steps[0]!.observation?.text, 'sent to boss@example.com');
  assert.deepEqual(result.steps[0]!.observation?.approval, { type: 'approve' });
});

test('rejected: nothing runs and the model is told the user rejected the action', async () => {
  const { tool, sent } = emailTool();
  const model = scriptedModel(turns);
  const result = await runAgent({
    model,
    question: 'q',
    tools: [tool],
    approve: () => ({ type: 'reject', reason: 'not today' }),
  });
  assert.deepEqual(sent, []);
  assert.equal(
    result.steps[0]!.observation?.text,
    'The user rejected this action (not today). It did not run. Choose another action, or give the Answer.',
  );
  assert.match(model.requests[1]!.messages.at(-1)!.content, /The user rejected this action/);
});

test('edited: the tool runs with the edited input, validated again', async () => {
  const { tool, sent } = emailTool();
  await runAgent({
    model: scriptedModel(turns),
    question: 'q',
    tools: [tool],
    approve: () => ({ type: 'edit', input: '{"to": "me@example.com", "body": "draft"}' }),
  });
  assert.deepEqual(sent, ['me@example.com: draft']);
  const { tool: tool2, sent: sent2 } = emailTool();
  const result = await runAgent({
    model: scriptedModel(turns),
    question: 'q',
    tools: [tool2],
    approve: () => ({ type: 'edit', input: 'not json' }),
  });
  assert.deepEqual(sent2, []);
  assert.match(result.steps[0]!.observation?.text ?? '', /not valid JSON/);
});

test('with no approver, side effects are refused; allowTools opts in', async () => {
  const { tool, sent } = emailTool();
  const refused = await runAgent({ model: scriptedModel(turns), question: 'q', tools: [tool] });
  assert.deepEqual(sent, []);
  assert.match(
    refused.steps[0]!.observation?.text ?? '',
    /^The user rejected this action \(no one was asked/,
  );
  await runAgent({
    model: scriptedModel(turns),
    question: 'q',
    tools: [tool],
    limits: { allowTools: ['send_email'] },
  });
  assert.equal(sent.length, 1);
});

test('read tools never ask; approval events come before the tool runs', async () => {
  const { tool } = emailTool();
  const lookup = defineTool({ name: 'lookup', description: 'Reads.', input: 'text', run: () => 'x' });
  const events: string[] = [];
  const model = scriptedModel(['Thought: t\nAction: lookup[a]', ...turns]);
  for await (const event of streamAgent({
    model,
    question: 'q',
    tools: [lookup, tool],
    approve: () => ({ type: 'approve' }),
  })) {
    events.push(event.type);
  }
  const second = events.slice(events.indexOf('step-end') + 1);
  assert.deepEqual(second.slice(0, 5), [
    'model-start',
    'model-end',
    'approval-start',
    'approval-end',
    'tool-start',
  ]);
  assert.equal(events.filter((e) => e === 'approval-start').length, 1);
});
