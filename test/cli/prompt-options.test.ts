import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { startFakeOpenAI } from '../helpers/fake-openai-server.js';
import { cliEnv, tempDir } from './support.js';

/** Runs once against a server that answers at once; returns the system prompt it received. */
async function systemPromptFor(args: string[]): Promise<string> {
  const server = await startFakeOpenAI({ replies: ['Thought: easy.\nAnswer: 4'] });
  try {
    const { code, stderr } = await runCli(
      ['run', '2 + 2?', '--model', `openai-compatible:${server.baseURL}#m`, ...args],
      {
        env: cliEnv().env,
      },
    );
    assert.equal(code, 0, stderr);
    return server.requests[0]?.messages[0]?.content ?? '';
  } finally {
    await server.close();
  }
}

test('--system adds instructions to the system prompt', async () => {
  assert.match(
    await systemPromptFor(['--system', 'Always answer in Roman numerals.']),
    /\n\nAlways answer in Roman numerals\.\n?/,
  );
});

test("--examples reads the paper's text format and JSON", async () => {
  const dir = tempDir();
  const text = join(dir, 'examples.txt');
  writeFileSync(
    text,
    'Solve the task.\n\nQuestion: What is 3 * 4?\nThought 1: Multiply.\nAction 1: Calculator[3 * 4]\nObservation 1: 12\nThought 2: Done.\nAction 2: Finish[12]\n',
  );
  const fromText = await systemPromptFor(['--examples', text]);
  assert.match(
    fromText,
    /Examples:\n\nQuestion: What is 3 \* 4\?\nThought: Multiply\.\nAction: calculator\[3 \* 4\]\nObservation: 12/,
  );
  assert.match(fromText, /Solve the task\./, 'text before the first example becomes instructions');

  const json = join(dir, 'examples.json');
  writeFileSync(
    json,
    JSON.stringify([{ question: 'Capital of France?', steps: [{ thought: 'I know it.', answer: 'Paris' }] }]),
  );
  assert.match(
    await systemPromptFor(['--examples', json]),
    /Question: Capital of France\?\nThought: I know it\.\nAnswer: Paris/,
  );
});

test('--lang fr: French labels and the rules restated in French', async () => {
  const prompt = await systemPromptFor(['--lang', 'fr']);
  assert.match(prompt, /Réflexion: /);
  assert.match(prompt, /Écris en français\./);
});

test('--timeout stops a slow run with status budget', async () => {
  const server = await startFakeOpenAI({
    replies: ['Thought: slow.\nAnswer: 4'],
    chunkSize: 1,
    chunkDelayMs: 100,
  });
  try {
    const args = [
      'run',
      'q',
      '--json',
      '--timeout',
      '300ms',
      '--model',
      `openai-compatible:${server.baseURL}#m`,
    ];
    const { code, stdout } = await runCli(args, { env: cliEnv().env });
    assert.equal(code, 1);
    const result = JSON.parse(stdout);
    assert.equal(result.status, 'budget');
    assert.match(result.error, /300 ms/);
  } finally {
    await server.close();
  }
});

test('--max-cost for a model without a known price is a usage error before anything runs', async () => {
  const server = await startFakeOpenAI({ replies: ['Thought: easy.\nAnswer: 4'] });
  try {
    const args = ['run', 'q', '--max-cost', '0.10', '--model', `openai-compatible:${server.baseURL}#m`];
    const { env, runs } = cliEnv();
    const { code, stderr } = await runCli(args, { env });
    assert.equal(code, 2);
    assert.match(stderr, /price/i);
    assert.equal(server.requests.length, 0);
    assert.doesNotMatch(stderr, /\n\s+at /);
    assert.equal(existsSync(runs), false, 'no trace for a run that never started');
  } finally {
    await server.close();
  }
});
