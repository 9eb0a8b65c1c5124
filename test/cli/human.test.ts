import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { readTrace } from '../../src/trace/trace.js';
import { ROOT, runCli } from '../helpers/cli.js';
import { startFakeOpenAI } from '../helpers/fake-openai-server.js';
import { spawnPty } from '../helpers/pty.js';
import { tempDir } from '../helpers/temp.js';
import { BIN, cliEnv, plain } from './support.js';

const FAN = 'Why is my laptop fan loud when it is idle?';

test('ask: the model asks the person to check things, and their answers are the observations', async () => {
  const server = await startFakeOpenAI({
    replies: [
      'Thought: Something may be using the CPU.\nAction: human[Open the task manager and tell me the top process by CPU]',
      'Thought: The indexer explains the load.\nAnswer: The search indexer is busy; let it finish or pause indexing.',
    ],
  });
  try {
    const { env } = cliEnv();
    const args = ['ask', FAN, '--model', `openai-compatible:${server.baseURL}#m`];
    const pty = spawnPty(process.execPath, [BIN, ...args], { cwd: ROOT, env });
    await pty.waitFor(/What did you observe\? /);
    assert.match(
      pty.output(),
      /The agent asks you to: Open the task manager and tell me the top process by CPU/,
    );
    pty.type('SearchIndexer at 45% CPU\r');
    assert.equal(await pty.exited, 0, pty.output());
    const out = plain(pty.output());
    assert.match(out, /Observation: SearchIndexer at 45% CPU/);
    assert.match(out, /Answer: The search indexer is busy/);
    const system = server.requests[0]?.messages[0]?.content ?? '';
    assert.match(system, /- human\[what to do or check\]/);
    assert.doesNotMatch(system, /- calculator\[/, 'ask offers the human tool only');
    assert.match(system, /The person at the terminal performs each action/);
    assert.match(JSON.stringify(server.requests[1]?.messages), /Observation: SearchIndexer at 45% CPU/);
  } finally {
    await server.close();
  }
});

test('ask with its input closed stops the run as aborted and says why; the model is not asked to go on', async () => {
  /** `ask` with no standard input (runCli gives /dev/null: it ends at once); the model asks, then would guess. */
  async function askWithClosedInput(extra: string[]) {
    const server = await startFakeOpenAI({
      replies: [
        'Thought: Something may be using the CPU.\nAction: human[Open the task manager and tell me the top process by CPU]',
        'Thought: I will guess.\nAnswer: It is probably dust.',
      ],
    });
    try {
      const { env } = cliEnv();
      const run = await runCli(['ask', FAN, '--model', `openai-compatible:${server.baseURL}#m`, ...extra], {
        env,
      });
      assert.equal(server.requests.length, 1, 'no model call after the input ended');
      return run;
    } finally {
      await server.close();
    }
  }
  const json = await askWithClosedInput(['--json']);
  assert.equal(json.code, 1, json.stderr);
  const result = JSON.parse(json.stdout);
  assert.equal(result.status, 'aborted');
  assert.equal(result.answer ?? null, null);
  assert.match(result.error, /^The run was aborted: the input ended \(standard input is closed\)/);
  assert.equal(readTrace(result.trace).result?.error, result.error);

  const text = await askWithClosedInput([]);
  assert.equal(text.code, 1, text.stderr);
  assert.match(
    text.stderr,
    /the input ended \(standard input is closed\), so nobody can answer the human tool/,
  );
  assert.match(text.stdout + text.stderr, /No answer: the run was aborted/);
  assert.doesNotMatch(text.stdout, /probably dust/);
});

test('ask --lang pt: labels, prompt and messages in Portuguese', async () => {
  const server = await startFakeOpenAI({
    replies: [
      'Pensamento: Algo pode estar usando a CPU.\nAção: human[Abra o gerenciador de tarefas e diga o processo que mais usa CPU]',
      'Pensamento: O indexador explica.\nResposta: O indexador de busca está ocupado.',
    ],
  });
  try {
    const args = [
      'ask',
      'Por que o ventilador faz barulho?',
      '--lang',
      'pt',
      '--model',
      `openai-compatible:${server.baseURL}#m`,
    ];
    const pty = spawnPty(process.execPath, [BIN, ...args], { cwd: ROOT, env: cliEnv().env });
    await pty.waitFor(/O que você observou\? /);
    assert.match(pty.output(), /O agente pede que você: Abra o gerenciador de tarefas/);
    pty.type('SearchIndexer com 45% da CPU\r');
    assert.equal(await pty.exited, 0, pty.output());
    const out = plain(pty.output());
    assert.match(out, /Observação: SearchIndexer com 45% da CPU/);
    assert.match(out, /Resposta: O indexador de busca está ocupado\./);
    assert.match(out, /— respondida · 2 passos/);
    const system = server.requests[0]?.messages[0]?.content ?? '';
    assert.match(system, /Pensamento: /);
    assert.match(system, /Escreva em português\./);
    assert.match(system, /A pessoa no terminal faz cada ação/);
    assert.match(system, /- human\[what to do or check\]: Pede à pessoa no terminal/);
    assert.match(server.requests[0]?.messages[1]?.content ?? '', /^Pergunta: /);
  } finally {
    await server.close();
  }
});

test('--model human: the person writes Thought and Action, real tools answer', async () => {
  const { env, runs } = cliEnv();
  const args = ['run', 'What is 17 * 23?', '--model', 'human', '--tools', 'calculator'];
  const pty = spawnPty(process.execPath, [BIN, ...args], { cwd: ROOT, env });
  await pty.waitFor(/an empty line ends the turn\.\n?\r?\n?> /);
  const first = plain(pty.output());
  assert.match(first, /You are the model\./);
  assert.match(first, /----- system prompt -----/);
  assert.match(first, /- calculator\[/);
  assert.match(first, /Question: What is 17 \* 23\?/);
  pty.type('Thought: I multiply with the calculator.\rAction: calculator[17 * 23]\r\r');
  await pty.waitFor(/Observation: 391[\s\S]*Your turn/);
  pty.type('Thought: The calculator said 391.\rAnswer: 391\r\r');
  assert.equal(await pty.exited, 0, pty.output());
  const out = plain(pty.output());
  assert.match(out, /Action: calculator\[17 \* 23\]\n {2}Observation: 391/);
  assert.match(out, /Answer: 391/);
  assert.match(out, /tokens unknown/);
  const [file] = readdirSync(runs);
  const trace = readTrace(join(runs, file ?? ''));
  assert.equal(trace.header.modelId, 'human');
  assert.equal(trace.result?.answer, '391');
  assert.equal(
    trace.steps[0]?.modelText,
    'Thought: I multiply with the calculator.\nAction: calculator[17 * 23]',
  );
});

test('ask: SIGTERM while the person is being asked ends the run aborted, exit 1, the trace complete', async () => {
  const server = await startFakeOpenAI({
    replies: [
      'Thought: Something may be using the CPU.\nAction: human[Open the task manager and tell me the top process by CPU]',
      'Thought: I will guess.\nAnswer: It is probably dust.',
    ],
  });
  try {
    const { env } = cliEnv();
    const file = join(tempDir(), 'ask.jsonl');
    const args = ['ask', FAN, '--trace', file, '--model', `openai-compatible:${server.baseURL}#m`];
    const pty = spawnPty(process.execPath, [BIN, ...args], { cwd: ROOT, env });
    await pty.waitFor(/What did you observe\? /);
    // `kill`, `timeout`, `docker stop`: the signal, not the terminal's Ctrl-C.
    pty.signalCommand('SIGTERM');
    assert.equal(await pty.exited, 1, pty.output());
    assert.match(plain(pty.output()), /No answer: the run was aborted/);
    assert.equal(server.requests.length, 1, 'the model is not asked to go on');
    const trace = readTrace(file);
    assert.equal(trace.result?.status, 'aborted');
    assert.equal(trace.events.at(-1)?.type, 'run-end');
  } finally {
    await server.close();
  }
});
