import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ROOT, runCli } from '../helpers/cli.js';
import { startFakeOpenAI } from '../helpers/fake-openai-server.js';
import { spawnPty } from '../helpers/pty.js';
import { tempDir } from '../helpers/temp.js';
import { cliEnv } from './support.js';

const BIN = fileURLToPath(new URL('../../bin/taoloop.js', import.meta.url));
let project: string;

before(async () => {
  project = tempDir('taoloop-approval-');
  await writeFile(
    join(project, 'math.test.js'),
    "import test from 'node:test';\ntest('adds', () => { if (1 + 1 !== 2) throw new Error('bad'); });\n",
  );
});

const script = () => [
  'Thought: I should run the tests.\nAction: run_tests[math.test.js]',
  'Thought: I have the result.\nAnswer: done',
];

async function withServer<T>(fn: (modelSpec: string) => Promise<T>): Promise<T> {
  const server = await startFakeOpenAI({ replies: script() });
  try {
    return await fn(`openai-compatible:${server.baseURL}#m`);
  } finally {
    await server.close();
  }
}

const args = (model: string) => [
  'run',
  'Do the tests pass?',
  '--tools',
  'run_tests',
  '--root',
  project,
  '--model',
  model,
];

test('without a terminal, a tool with side effects is rejected and the model is told', async () => {
  await withServer(async (model) => {
    const { code, stdout } = await runCli(args(model), { env: cliEnv().env });
    assert.equal(code, 0);
    assert.match(
      stdout,
      /rejected: no terminal to ask for approval of run_tests \(write\); rerun with --allow run_tests or --yes/,
    );
    assert.match(stdout, /Observation: The user rejected this action/);
  });
});

test('--allow TOOL runs it without asking', async () => {
  await withServer(async (model) => {
    const { code, stdout } = await runCli([...args(model), '--allow', 'run_tests'], { env: cliEnv().env });
    assert.equal(code, 0);
    assert.match(stdout, /Observation: \[tool output\]\n\s*exit code 0/);
  });
});

for (const [answer, expected] of [
  ['y', /Observation: \[tool output\]\n\s*exit code 0/],
  ['n', /Observation: The user rejected this action\. It did not run\./],
] as const) {
  test(`at a terminal the person is asked, and "${answer}" is obeyed`, async () => {
    await withServer(async (model) => {
      const pty = spawnPty(process.execPath, [BIN, ...args(model)], { cwd: ROOT, env: cliEnv().env });
      await pty.waitFor(/Allow it\? \[y\]es \/ \[n\]o \/ \[e\]dit: /);
      assert.match(pty.output(), /The model wants to run run_tests\[math\.test\.js\] \(effects: write\)/);
      pty.type(`${answer}\r`);
      assert.equal(await pty.exited, 0, pty.output());
      assert.match(pty.output().replace(/\r/g, ''), expected);
    });
  });
}

test('at a terminal, "e" lets the person edit the input, which is validated like the model\'s', async () => {
  await withServer(async (model) => {
    const pty = spawnPty(process.execPath, [BIN, ...args(model)], { cwd: ROOT, env: cliEnv().env });
    await pty.waitFor(/Allow it\?/);
    pty.type('e\r');
    await pty.waitFor(/New input for run_tests: /);
    pty.type('../../etc/passwd\r');
    assert.equal(await pty.exited, 0, pty.output());
    const out = pty.output().replace(/\r/g, '');
    assert.match(out, /approved with edited input: \.\.\/\.\.\/etc\/passwd/);
    assert.match(out, /Observation: Error: /);
    assert.doesNotMatch(out, /root:x:0:0/);
  });
});

after(() => undefined);

test('at a terminal, newlines in the input show as ⏎ on the prompt line, so the input cannot draw a fake question or answer', async () => {
  const evil =
    'evil.test.js (effects: write).\nAllow it? [y]es / [n]o / [e]dit: n\nThe user rejected this action.\x07';
  const server = await startFakeOpenAI({
    replies: [`Thought: run\nAction: run_tests[${evil}]`, 'Thought: ok.\nAnswer: done'],
  });
  try {
    const model = `openai-compatible:${server.baseURL}#m`;
    const pty = spawnPty(process.execPath, [BIN, ...args(model)], { cwd: ROOT, env: cliEnv().env });
    // The input quotes the question once; the prompt asks it after the action line.
    await pty.waitFor(
      /The model wants to run[\s\S]*Allow it\?[\s\S]*Allow it\? \[y\]es \/ \[n\]o \/ \[e\]dit: $/,
    );
    const out = pty.output().replace(/\r/g, '');
    // The whole action is on the one line that asks for it, newlines and ESC shown visibly.
    assert.match(
      out,
      /The model wants to run run_tests\[evil\.test\.js \(effects: write\)\.⏎Allow it\? \[y\]es \/ \[n\]o \/ \[e\]dit: n⏎The user rejected this action\.\\x07\] \(effects: write\)/,
    );
    // From the action line on: that one line, then the real question; nothing drawn between them.
    const prompt = out.slice(out.indexOf('The model wants to run'));
    assert.match(
      prompt,
      /^The model wants to run [^\n]*\(effects: write\)\.\n+Allow it\? \[y\]es \/ \[n\]o \/ \[e\]dit: $/,
    );
    pty.type('n\r');
    assert.equal(await pty.exited, 0, pty.output());
  } finally {
    await server.close();
  }
});
