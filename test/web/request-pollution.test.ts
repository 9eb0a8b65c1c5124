/**
 * The playground reads every field of a request body as the client's own: a field only a polluted
 * `Object.prototype` has is absent. An approval body without its own `type` approves nothing; a run body
 * without its own `continueFrom`, `maxSteps` or `tools` gets the defaults.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RunMessage } from '../../src/web/run-session.js';
import { followRun, rawRequest, startTestPlayground, type TestPlayground } from './helpers.js';

const TURNS = [
  'Thought: I will save the total.\nAction: write_note[total: 1680]',
  'Thought: Done.\nAnswer: saved',
];

/** Runs `body` with `fields` set on `Object.prototype`, removing them afterwards whatever happens. */
async function polluted<T>(fields: Record<string, unknown>, body: () => Promise<T>): Promise<T> {
  const proto = Object.prototype as Record<string, unknown>;
  for (const [key, value] of Object.entries(fields)) proto[key] = value;
  try {
    return await body();
  } finally {
    for (const key of Object.keys(fields)) delete proto[key];
  }
}

/** POSTs `body` as JSON text with the page's Origin (node:http, as the body is sent as given). */
function post(playground: TestPlayground, pathname: string, body: string) {
  return rawRequest(`${playground.origin}${pathname}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: playground.origin },
    body,
  });
}

test('an approval body without its own `type` approves nothing, even with Object.prototype.type = "approve"', async () => {
  const playground = await startTestPlayground(TURNS);
  try {
    const started = await post(
      playground,
      '/api/runs',
      JSON.stringify({ question: 'Save it', model: 'scripted', tools: ['write_note'] }),
    );
    const id = JSON.parse(started.body).id as string;
    const answers: { status: number; body: string }[] = [];
    await followRun(playground, id, async (message: RunMessage) => {
      if (message.type !== 'approval-pending') return;
      const path = `/api/runs/${id}/approvals/${message.requestId}`;
      answers.push(await polluted({ type: 'approve' }, () => post(playground, path, '{}')));
      answers.push(await post(playground, path, JSON.stringify({ type: 'reject' })));
    });
    assert.equal(answers[0]?.status, 400, answers[0]?.body);
    assert.match(JSON.parse(answers[0]!.body).error, /type must be "approve", "reject" or "edit"/);
    assert.equal(answers[1]?.status, 200);
    assert.deepEqual(playground.notes, [], 'the write tool never ran');
  } finally {
    await playground.close();
  }
});

test('a run body is read as own data: inherited continueFrom, maxSteps and tools are absent', async () => {
  const playground = await startTestPlayground(['Thought: easy.\nAnswer: 4']);
  try {
    const fields = { continueFrom: 'no-such-run', maxSteps: 1, tools: ['fetch_page'] };
    const started = await polluted(fields, () =>
      post(playground, '/api/runs', JSON.stringify({ question: '2 + 2?', model: 'scripted' })),
    );
    assert.equal(started.status, 201, started.body);
    const messages = await followRun(playground, JSON.parse(started.body).id as string);
    const options = messages.find((m) => m.type === 'run-options');
    assert.ok(options?.type === 'run-options');
    assert.equal(options.continueFrom, undefined);
    assert.equal(options.maxSteps, 8);
    assert.deepEqual(options.tools, ['calculator', 'write_note', 'fetch_page']);
  } finally {
    await playground.close();
  }
});
