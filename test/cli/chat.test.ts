import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { after, test } from 'node:test';
import { runFiles } from '../../src/trace/runs.js';
import { readTrace } from '../../src/trace/trace.js';
import { ROOT, runCli } from '../helpers/cli.js';
import { type FakeReply, type ParsedRequestBody, startFakeOpenAI } from '../helpers/fake-openai-server.js';
import { spawnPty } from '../helpers/pty.js';
import { BIN, cliEnv, plain } from './support.js';

const folders: string[] = [];
after(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

function env(): { env: NodeJS.ProcessEnv; runs: string } {
  const made = cliEnv();
  folders.push(dirname(made.runs));
  return made;
}

/** What the model was sent after the system prompt. */
const sent = (request: ParsedRequestBody | undefined) => request?.messages.slice(1).map((m) => m.content);

/** The model's replies, chosen by the question it is asked (the last user message). */
function reply(request: ParsedRequestBody): FakeReply {
  const last = request.messages.at(-1)?.content ?? '';
  if (last === 'Question: Per seat per year?') return 'Thought: multiply\nAction: calculator[20 * 12]';
  if (last.startsWith('Observation: 240')) return 'Thought: done\nAnswer: 240';
  if (last === 'Question: For 7 seats?') return 'Answer: 1680';
  // Long enough to be still arriving when Ctrl-C comes (5 ms per 4 characters: about 6 s).
  if (last === 'Question: Slow?') return `Thought: ${'wait '.repeat(1000)}\nAnswer: too late`;
  if (last === 'Question: Fresh?') return 'Answer: fresh start';
  if (last === 'Question: And the total?') return 'Answer: 1680 in all';
  return `Answer: unexpected ${last}`;
}

test('chat at a terminal: a follow-up carries the first turn, Ctrl-C stops an answer, /new clears, /exit leaves; run --continue picks the conversation up', async (t) => {
  const server = await startFakeOpenAI({ replies: reply, chunkDelayMs: 5 });
  t.after(() => server.close());
  const model = `openai-compatible:${server.baseURL}#m`;
  const { env: chatEnv, runs } = env();
  const pty = spawnPty(process.execPath, [BIN, 'chat', '--tools', 'calculator', '--model', model], {
    cwd: ROOT,
    env: chatEnv,
  });
  t.after(() => pty.kill('SIGKILL'));
  const prompts = () => (pty.output().match(/^> /gm) ?? []).length;
  const waitForPrompt = (count: number) => pty.waitFor(new RegExp(`(^> [\\s\\S]*){${count}}`, 'm'), 30_000);

  await pty.waitFor(/Conversation ([0-9a-f-]{36})\./, 30_000);
  const conversationId = /Conversation ([0-9a-f-]{36})\./.exec(pty.output())![1]!;
  await waitForPrompt(1);
  // Ctrl-C at the prompt leaves nothing running and says how to leave.
  pty.type('\x03');
  await pty.waitFor(/\/exit or Ctrl-D leaves\)/);
  await waitForPrompt(2);

  pty.type('Per seat per year?\r');
  await pty.waitFor(/Action: calculator\[20 \* 12\][\s\S]*Observation: 240[\s\S]*240/, 30_000);
  await waitForPrompt(3);
  pty.type('For 7 seats?\r');
  await pty.waitFor(/1680/, 30_000);
  await waitForPrompt(4);
  // The follow-up reached the model with the first question and answer before it, as conversation.
  assert.deepEqual(sent(server.requests[2]), [
    'Question: Per seat per year?',
    'Answer: 240',
    'Question: For 7 seats?',
  ]);

  // Ctrl-C while an answer streams stops that run, not the chat.
  pty.type('Slow?\r');
  await pty.waitFor(/Thought: wait wait/, 30_000);
  pty.type('\x03');
  await pty.waitFor(/Stopping the run/, 15_000);
  await pty.waitFor(/aborted/, 15_000);
  await waitForPrompt(5);
  assert.doesNotMatch(pty.output(), /too late/);

  pty.type('/new\r');
  await pty.waitFor(/New conversation ([0-9a-f-]{36})\./);
  const newId = /New conversation ([0-9a-f-]{36})\./.exec(pty.output())![1]!;
  assert.notEqual(newId, conversationId);
  await waitForPrompt(6);
  pty.type('Fresh?\r');
  await pty.waitFor(/fresh start/, 30_000);
  await waitForPrompt(7);
  assert.deepEqual(sent(server.requests.at(-1)), ['Question: Fresh?'], 'a new conversation has no history');

  pty.type('/exit\r');
  const code = await pty.exited;
  // On failure, the end of the screen first: it holds what went wrong.
  assert.equal(code, 0, `chat exited ${code}; the screen ends with:\n${pty.output().slice(-2000)}`);
  assert.equal(prompts(), 7);
  assert.match(plain(pty.output()), new RegExp(`taoloop run --continue ${newId}`));

  // Each question's trace is in the runs folder, linked to its conversation.
  const headers = runFiles(runs).map((file) => readTrace(file).header);
  assert.deepEqual(headers.map((h) => [h.question, h.conversationId]).reverse(), [
    ['Per seat per year?', conversationId],
    ['For 7 seats?', conversationId],
    ['Slow?', conversationId],
    ['Fresh?', newId],
  ]);
  assert.equal((headers[0]?.meta as { command?: string } | undefined)?.command, 'chat');

  // `run --continue <conversation id>` follows the first conversation up (the stopped question included).
  const followUp = await runCli(
    [
      'run',
      'And the total?',
      '--continue',
      conversationId,
      '--tools',
      'calculator',
      '--json',
      '--model',
      model,
    ],
    { env: chatEnv },
  );
  assert.equal(followUp.code, 0, followUp.stderr);
  assert.equal(JSON.parse(followUp.stdout).answer, '1680 in all');
  assert.deepEqual(sent(server.requests.at(-1)), [
    'Question: Per seat per year?',
    'Answer: 240',
    'Question: For 7 seats?',
    'Answer: 1680',
    'Question: Slow?',
    'Question: And the total?',
  ]);
  assert.equal(readTrace(JSON.parse(followUp.stdout).trace as string).header.conversationId, conversationId);
});

/** Runs `taoloop chat ARGS` with `input` on a pipe; resolves with the exit code and output. */
function pipedChat(args: string[], input: string, env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [BIN, 'chat', ...args], {
    cwd: ROOT,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  child.stdin.end(input);
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  );
}

test('chat reads questions from a pipe until the end of input and exits 0; --continue goes on with it; --json is refused', async (t) => {
  const server = await startFakeOpenAI({ replies: reply });
  t.after(() => server.close());
  const model = `openai-compatible:${server.baseURL}#m`;
  const { env: chatEnv, runs } = env();
  // Two questions arriving together: neither is lost.
  const first = await pipedChat(['--model', model], 'Fresh?\nFor 7 seats?\n', chatEnv);
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stdout, /fresh start[\s\S]*1680/);
  assert.deepEqual(sent(server.requests[1]), [
    'Question: Fresh?',
    'Answer: fresh start',
    'Question: For 7 seats?',
  ]);
  const conversationId = /Conversation ([0-9a-f-]{36})\./.exec(first.stderr)?.[1];
  assert.ok(conversationId, first.stderr);

  const again = await pipedChat(['--continue', 'last', '--model', model], 'And the total?\n', chatEnv);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stderr, new RegExp(`Conversation ${conversationId}\\.`));
  assert.deepEqual(sent(server.requests.at(-1)), [
    'Question: Fresh?',
    'Answer: fresh start',
    'Question: For 7 seats?',
    'Answer: 1680',
    'Question: And the total?',
  ]);
  assert.equal(readTrace(runFiles(runs)[0]!).header.conversationId, conversationId);

  const json = await runCli(['chat', '--json', '--model', model], { env: chatEnv });
  assert.equal(json.code, 2);
  assert.match(json.stderr, /chat .* has no --json/);
});

test('SIGTERM or SIGHUP mid-answer stops the answer (its trace complete) and ends the chat with exit 1', async (t) => {
  const server = await startFakeOpenAI({ replies: reply, chunkDelayMs: 5 });
  t.after(() => server.close());
  for (const signal of ['SIGTERM', 'SIGHUP'] as const) {
    const { env: chatEnv, runs } = env();
    const child = spawn(process.execPath, [BIN, 'chat', '--model', `openai-compatible:${server.baseURL}#m`], {
      cwd: ROOT,
      env: chatEnv,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    t.after(() => child.kill('SIGKILL'));
    let stdout = '';
    child.stdout.on('data', (d) => (stdout += d));
    const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
    // The input stays open: only the signal can end the chat.
    child.stdin.write('Slow?\n');
    const started = Date.now();
    while (!/wait wait/.test(stdout)) {
      if (Date.now() - started > 30_000) throw new Error(`no answer streamed; stdout: ${stdout}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    child.kill(signal);
    assert.equal(await closed, 1, `${signal}: ${stdout.slice(-500)}`);
    const [file] = runFiles(runs);
    const trace = readTrace(file!);
    assert.equal(trace.result?.status, 'aborted');
    assert.equal(trace.events.at(-1)?.type, 'run-end');
    assert.doesNotMatch(stdout, /too late/);
  }
});
