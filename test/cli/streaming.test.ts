/**
 * The CLI streams a turn as it arrives (issue 16): the thought appears before the turn ends, the spinner
 * turns only until the first token, and the complete turn prints as it does with `--no-stream`. Reasoning
 * is shown dimmed unless `--hide-reasoning`. Real HTTP against a local OpenAI-compatible server.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { after, test } from 'node:test';
import { ROOT, runCli } from '../helpers/cli.js';
import { type FakeOpenAIOptions, startFakeOpenAI } from '../helpers/fake-openai-server.js';
import { spawnPty } from '../helpers/pty.js';
import { BIN, cliEnv } from './support.js';

const folders: string[] = [];
after(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

function env(): NodeJS.ProcessEnv {
  const { env, runs } = cliEnv();
  folders.push(dirname(runs));
  return env;
}

async function withServer<T>(options: FakeOpenAIOptions, fn: (model: string) => Promise<T>): Promise<T> {
  const server = await startFakeOpenAI(options);
  try {
    return await fn(`openai-compatible:${server.baseURL}#m`);
  } finally {
    await server.close();
  }
}

const THOUGHT = 'I need to multiply six by seven, so I will use the calculator tool for it now.';
const TURN = `Thought: ${THOUGHT}\nAction: calculator[6 * 7]`;

test('at a terminal, a thought streamed over two seconds is on screen before the turn ends', async () => {
  // About 25 chunks of 4 characters, 80 ms apart: the turn takes two seconds to arrive.
  const server = { replies: [TURN, 'Thought: done\nAnswer: 42'], chunkSize: 4, chunkDelayMs: 80 };
  await withServer(server, async (model) => {
    const started = performance.now();
    const pty = spawnPty(process.execPath, [BIN, 'run', 'What is 6 * 7?', '--model', model], {
      cwd: ROOT,
      env: env(),
    });
    await pty.waitFor(/Thought: I need to multiply/, 20_000);
    const seenAt = performance.now() - started;
    const early = pty.output();
    assert.doesNotMatch(early, /Action: calculator/, 'the thought is shown while the turn is still arriving');
    assert.doesNotMatch(
      early,
      /so I will use the calculator tool for it now/,
      'only part of the thought so far',
    );
    assert.equal(await pty.exited, 0, pty.output());
    const out = pty.output().replace(/\r/g, '');
    assert.match(out, new RegExp(`Thought: ${THOUGHT}\\nAction: calculator\\[6 \\* 7\\]`));
    assert.equal(out.split(`Thought: ${THOUGHT}`).length, 2, 'the thought is printed once');
    assert.ok(seenAt < performance.now() - started, `seen after ${Math.round(seenAt)} ms`);
  });
});

test('at a terminal, the action streams too, and the observation the model invents never reaches the screen', async () => {
  // The action's input alone takes about two seconds (4 characters every 80 ms); the server ignores stop
  // sequences and goes on with an observation, a thought and an answer of its own, which are cut.
  const expression =
    '(6 * 7) + (1 * 0) + (2 * 0) + (3 * 0) + (4 * 0) + (5 * 0) + (6 * 0) + (7 * 0) + (8 * 0)';
  const turn = `Thought: Add them up.\nAction: calculator[${expression}]`;
  const invented = '\nObservation: 41 (made up)\nThought: so the answer is 41\nAnswer: 41';
  const server = {
    replies: [`${turn}${invented}`, 'Thought: done\nAnswer: 42'],
    ignoreStop: true,
    chunkSize: 4,
    chunkDelayMs: 80,
  };
  await withServer(server, async (model) => {
    const pty = spawnPty(process.execPath, [BIN, 'run', 'What is 6 * 7?', '--model', model], {
      cwd: ROOT,
      env: env(),
    });
    await pty.waitFor(/Action: calculator\[\(6 \* 7\) \+ \(1/, 20_000);
    const early = pty.output().replace(/\r/g, '');
    // Seen while the input is still arriving: the bracket is not closed, no observation is there yet.
    assert.doesNotMatch(early, /\(8 \* 0\)|Observation/, early);
    assert.match(early, /Thought: Add them up\.\nAction: calculator\[/);
    assert.equal(await pty.exited, 0, pty.output());
    const out = pty.output().replace(/\r/g, '');
    assert.doesNotMatch(out, /made up|answer is 41|Answer: 41/, out);
    const action = `Action: calculator[${expression}]`;
    assert.ok(out.includes(`Thought: Add them up.\n${action}\n`), out);
    assert.equal(out.split(action).length, 2, 'the action is printed once');
    assert.match(out, /\(dropped an Observation the model wrote itself\)\n {2}Observation: 42/);
  });
});

/** stdout without the footer's timing line. */
const withoutFooter = (stdout: string) => stdout.replace(/— answered.*\n?/, '');

test('the complete turn prints the same streamed and with --no-stream; nothing after an invented observation', async () => {
  const replies = [
    `${TURN}\nObservation: 41 (made up)\nThought: so the answer is 41\nAnswer: 41`,
    'Thought: the tool says 42.\nAnswer: 42',
  ];
  const outputs: string[] = [];
  for (const flags of [[], ['--no-stream']]) {
    await withServer({ replies, ignoreStop: true, chunkSize: 3 }, async (model) => {
      const { code, stdout } = await runCli(['run', 'What is 6 * 7?', '--model', model, ...flags], {
        env: env(),
      });
      assert.equal(code, 0, stdout);
      assert.doesNotMatch(stdout, /made up|answer is 41/);
      outputs.push(withoutFooter(stdout));
    });
  }
  assert.equal(outputs[0], outputs[1]);
  assert.match(outputs[0] ?? '', /Thought: I need to multiply[^\n]*\nAction: calculator\[6 \* 7\]\n/);
});

test('reasoning is shown (streamed or not) and --hide-reasoning leaves it off the screen', async () => {
  const reasoning = 'Six sevens: forty-two, but check.';
  const reply = {
    reasoning,
    text: '<think>Also in a think block.</think>\nThought: check it\nAction: calculator[6 * 7]',
  };
  for (const flags of [[], ['--no-stream'], ['--hide-reasoning'], ['--no-stream', '--hide-reasoning']]) {
    await withServer({ replies: [reply, 'Thought: done\nAnswer: 42'], chunkSize: 5 }, async (model) => {
      const { code, stdout } = await runCli(['run', 'q', '--model', model, ...flags], { env: env() });
      assert.equal(code, 0, stdout);
      const hidden = flags.includes('--hide-reasoning');
      assert.equal(stdout.includes(reasoning), !hidden, `${flags.join(' ')}\n${stdout}`);
      assert.equal(stdout.includes('Also in a think block.'), !hidden, `${flags.join(' ')}\n${stdout}`);
      assert.match(stdout, /Thought: check it\nAction: calculator\[6 \* 7\]/);
    });
  }
});
