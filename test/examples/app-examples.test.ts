/**
 * The README's app examples run, each against a local OpenAI-compatible test server (they import
 * `taoloop`, which tsconfig's `paths` maps to the source, so they are type-checked by `npm run typecheck`).
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { startFakeOpenAI } from '../helpers/fake-openai-server.js';

/** Runs an example with the fake server as its model; resolves with stdout once `done(stdout)` says so or it exits. */
function runExample(
  file: string,
  env: Record<string, string>,
  done?: (stdout: string) => boolean,
  args: string[] = [],
): Promise<{ stdout: string; child: ChildProcess; code: number | null }> {
  const child = spawn(process.execPath, ['--import', 'tsx', file, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      if (done?.(stdout)) resolve({ stdout, child, code: null });
    });
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 || done
        ? resolve({ stdout, child, code })
        : reject(new Error(`${file} exited ${code}: ${stderr}`)),
    );
  });
}

test('examples/app/follow-ups.ts: the follow-up carries the first turn', async (t) => {
  const fake = await startFakeOpenAI({
    replies: [
      'Thought: 12 months.\nAction: calculator[20 * 12]',
      'Thought: done\nAnswer: 240 USD',
      'Thought: seven seats\nAction: calculator[240 * 7]',
      'Thought: done\nAnswer: 1680 USD',
    ],
  });
  t.after(() => fake.close());
  const { stdout } = await runExample('examples/app/follow-ups.ts', {
    TAOLOOP_MODEL: `openai-compatible:${fake.baseURL}#fake`,
  });
  assert.equal(stdout, 'first: 240 USD\nsecond: 1680 USD\nturns: 4\n');
  const followUp = fake.requests[2]!.messages.map((m) => m.content);
  assert.ok(followUp.includes('Answer: 240 USD'));
});

test('examples/app/session.ts: the session sends the first turn with the follow-up and keeps both on disk', async (t) => {
  const fake = await startFakeOpenAI({
    replies: [
      'Thought: 12 months.\nAction: calculator[20 * 12]',
      'Thought: done\nAnswer: 240 USD',
      'Thought: seven seats\nAction: calculator[240 * 7]',
      'Thought: done\nAnswer: 1680 USD',
    ],
  });
  t.after(() => fake.close());
  const folder = await mkdtemp(join(tmpdir(), 'taoloop-session-example-'));
  t.after(() => rm(folder, { recursive: true, force: true }));
  const { stdout } = await runExample(
    'examples/app/session.ts',
    {
      TAOLOOP_MODEL: `openai-compatible:${fake.baseURL}#fake`,
    },
    undefined,
    [folder],
  );
  assert.equal(stdout, 'first: 240 USD\nsecond: 1680 USD\nturns kept: 4\n');
  assert.deepEqual(
    fake.requests[2]!.messages.slice(1).map((m) => m.content),
    [
      'Question: Brightgrid Pro is 20 USD per seat a month. Price per seat per year?',
      'Answer: 240 USD',
      'Question: And for 7 seats a year?',
    ],
  );
  const traces = (await readdir(folder)).filter((name) => name.endsWith('.jsonl'));
  assert.equal(traces.length, 2);
});

test('examples/app/typed-answer.ts: the typed total', async (t) => {
  const fake = await startFakeOpenAI({
    replies: [
      'Thought: 20 * 12 * 7\nAction: calculator[20 * 12 * 7]',
      'Thought: done\nAnswer: {"totalUsd": "1680"}',
      'Thought: fix it\nAnswer: {"totalUsd": 1680, "seats": 7}',
    ],
  });
  t.after(() => fake.close());
  const { stdout } = await runExample('examples/app/typed-answer.ts', {
    TAOLOOP_MODEL: `openai-compatible:${fake.baseURL}#fake`,
  });
  assert.equal(stdout, 'total: 1680 USD for 7 seats\n');
});

test('examples/app/chat-route.ts: a useChat request gets the UI message stream', async (t) => {
  const fake = await startFakeOpenAI({ replies: ['Thought: easy\nAnswer: 4'] });
  t.after(() => fake.close());
  const { stdout, child } = await runExample(
    'examples/app/chat-route.ts',
    { TAOLOOP_MODEL: `openai-compatible:${fake.baseURL}#fake`, PORT: '0' },
    (out) => out.includes('listening on'),
  );
  t.after(() => child.kill());
  const url = /listening on (\S+)/.exec(stdout)![1]!;
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: '2 + 2?' }] }],
    }),
  });
  assert.equal(response.headers.get('x-vercel-ai-ui-message-stream'), 'v1');
  const body = await response.text();
  assert.match(body, /"type":"text-delta","id":"text-1","delta":"4"/);
  assert.match(body, /"type":"data-stop","data":\{"status":"answered"/);
});

test('examples/app/approve-later.ts: asks in one process, sends after the approval in another, once', async (t) => {
  const fake = await startFakeOpenAI({
    replies: [
      'Thought: I will email Ann.\nAction: send_email[ann@example.com]',
      'Thought: Sent.\nAnswer: Ann knows the report is ready.',
    ],
  });
  t.after(() => fake.close());
  const folder = await mkdtemp(join(tmpdir(), 'taoloop-approve-later-'));
  t.after(() => rm(folder, { recursive: true, force: true }));
  const env = { TAOLOOP_MODEL: `openai-compatible:${fake.baseURL}#fake` };
  const state = join(folder, 'state.json');
  const asked = await runExample('examples/app/approve-later.ts', env, undefined, ['ask', state]);
  assert.equal(asked.stdout, 'waiting: send_email[ann@example.com]\n');
  const decided = await runExample('examples/app/approve-later.ts', env, undefined, [
    'decide',
    state,
    'approve',
  ]);
  assert.equal(
    decided.stdout,
    '(sending the email to ann@example.com)\nanswered: Ann knows the report is ready.\n',
  );
  assert.equal(fake.requests.length, 2, 'no model call made again');
  // Deciding again (a retried request, a second click) finds the state claimed: no second email.
  await assert.rejects(
    runExample('examples/app/approve-later.ts', env, undefined, ['decide', state, 'approve']),
    /exited 1: nothing waits for a decision .*already decided/,
  );
  assert.equal(fake.requests.length, 2);
});
