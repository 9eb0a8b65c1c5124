import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { createMemoryStore, createSession } from '../../src/agent/session.js';
import { scriptedModel } from '../../src/testing/scripted-model.js';
import { calculator } from '../../src/tools/calculator.js';
import { createFileStore } from '../../src/trace/conversation-store.js';
import { readTrace } from '../../src/trace/trace.js';

test('a session keeps the conversation: the follow-up carries the first turn to the model', async () => {
  const model = scriptedModel(['Action: calculator[20 * 12]', 'Answer: 240', 'Answer: 1680']);
  const store = createMemoryStore();
  const chat = createSession({ model, tools: [calculator], store });
  await chat.send('Per seat per year?');
  const second = await chat.send('For 7 seats?');
  assert.equal(second.answer, '1680');
  assert.deepEqual(
    model.requests[2]!.messages.slice(1).map((m) => m.content),
    ['Question: Per seat per year?', 'Answer: 240', 'Question: For 7 seats?'],
  );
  assert.equal((await chat.messages()).length, 4);
  // Another session on the same store and id continues it; a new id starts afresh.
  const again = createSession({
    model: scriptedModel(['Answer: ok']),
    tools: [],
    store,
    conversationId: chat.conversationId,
  });
  assert.equal((await again.send('Thanks')).messages.length, 6);
  assert.deepEqual(await createSession({ model, tools: [], store }).messages(), []);
});

test('the file store writes each run as a trace linked to its conversation id, and reads it back', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'taoloop-sessions-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const model = scriptedModel(['Answer: 240', 'Answer: 1680']);
  const chat = createSession({ model, tools: [], store: createFileStore(dir), conversationId: 'c-1' });
  await chat.send('Per seat?');
  await chat.send('For 7?');
  const files = (await readdir(dir)).sort();
  assert.equal(files.length, 2);
  const traces = files.map((f) => readTrace(path.join(dir, f)));
  assert.deepEqual(
    traces.map((tr) => [tr.header.conversationId, tr.header.question]),
    [
      ['c-1', 'Per seat?'],
      ['c-1', 'For 7?'],
    ],
  );
  // A new process (a new store on the same folder) continues the conversation from the traces.
  const later = createSession({
    model: scriptedModel(['Answer: yes']),
    tools: [],
    store: createFileStore(dir),
    conversationId: 'c-1',
  });
  assert.deepEqual(
    (await later.messages()).map((m) => m.content),
    ['Per seat?', '240', 'For 7?', '1680'],
  );
});

test('an override replaces what it names: a group keeps the session’s other fields', async () => {
  let ran = 0;
  const write = {
    name: 'write',
    description: 'Writes.',
    effects: 'write' as const,
    run: () => String(++ran),
  };
  const session = createSession({
    model: scriptedModel(['Thought: w\nAction: write[x]', 'Thought: done\nAnswer: ok']),
    tools: [write],
    limits: { allowTools: ['write'] },
  });
  // Overriding one limit must not drop `allowTools`: the write still runs without asking.
  const result = await session.send('go', { limits: { maxTokens: 100_000 } });
  assert.equal(result.status, 'answered');
  assert.equal(ran, 1);
});
