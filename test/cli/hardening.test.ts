/**
 * The CLI against hostile or broken surroundings: a model server that never answers or never stops, model
 * text carrying terminal escape sequences, Ctrl-C at a prompt, a reader that goes away (`| head -1`), and
 * option values that would otherwise be accepted silently.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { readTrace } from '../../src/trace/trace.js';
import { ROOT, runCli } from '../helpers/cli.js';
import { type FakeOpenAIOptions, startFakeOpenAI } from '../helpers/fake-openai-server.js';
import { spawnPty } from '../helpers/pty.js';
import { BIN, cliEnv, plain, spawnCli, tempDir } from './support.js';

async function withServer<T>(options: FakeOpenAIOptions, fn: (model: string) => Promise<T>): Promise<T> {
  const server = await startFakeOpenAI(options);
  try {
    return await fn(`openai-compatible:${server.baseURL}#m`);
  } finally {
    await server.close();
  }
}

/** The only trace in a runs folder. */
function onlyTrace(runs: string) {
  const files = readdirSync(runs);
  assert.equal(files.length, 1, files.join(', '));
  return readTrace(join(runs, files[0] ?? ''));
}

function projectWithTest(): string {
  const project = tempDir('taoloop-hardening-');
  writeFileSync(join(project, 'a.test.js'), "import test from 'node:test';\ntest('ok', () => {});\n");
  return project;
}

// 1. Model calls have a time limit and a token cap.

const STUCK_SERVERS: [string, FakeOpenAIOptions, RegExp][] = [
  [
    'a server that never answers',
    { replies: ['Answer: late'], responseDelayMs: 20_000 },
    /no response headers within \d+\.\d s/,
  ],
  [
    'a server that streams forever',
    { replies: ['Thought: '], keepWriting: 'again and again ', chunkDelayMs: 5 },
    /no complete answer within \d+\.\d s: still receiving \(\d+ bytes so far\)/,
  ],
];
for (const [name, server, what] of STUCK_SERVERS) {
  test(`--model-timeout: ${name} fails the run quickly with exit 1 and says why`, async () => {
    await withServer(server, async (model) => {
      const started = performance.now();
      const { code, stdout, stderr } = await runCli(
        // Long enough for the first request's headers to arrive on a loaded machine (the CLI loads the provider first).
        ['run', 'What is 2 + 2?', '--model', model, '--model-timeout', '2s'],
        { env: cliEnv().env, timeoutMs: 15_000 },
      );
      assert.equal(code, 1, stderr);
      assert.ok(performance.now() - started < 10_000, 'well before the server gives up');
      assert.match(stdout, what);
      assert.match(stdout, /\(--model-timeout 2s\)/);
      assert.doesNotMatch(stdout, /modelTimeoutMs/);
      assert.match(stdout, /— error/);
    });
  });
}

test('--model-timeout and --max-output-tokens: defaults, flags, environment and config file', async () => {
  const replies = () => 'Thought: easy.\nAnswer: 4';
  const server = await startFakeOpenAI({ replies, responseDelayMs: 300 });
  try {
    const model = `openai-compatible:${server.baseURL}#m`;
    const run = async (args: string[], extraEnv: Record<string, string> = {}, cwd = ROOT) =>
      runCli(['run', 'What is 2 + 2?', '--model', model, ...args], { env: cliEnv(extraEnv).env, cwd });

    assert.equal((await run([])).code, 0, 'the 2m default leaves a slow server time to answer');
    assert.equal(server.requests.at(-1)?.max_tokens, 2048, 'default cap');
    assert.equal((await run(['--max-output-tokens', '64'])).code, 0);
    assert.equal(server.requests.at(-1)?.max_tokens, 64);

    const fromEnv = await run([], { TAOLOOP_MODEL_TIMEOUT: '100ms' });
    assert.equal(fromEnv.code, 1);
    // How far the call got depends on the machine's load (on a busy one the limit can pass before the
    // request is even sent): what counts here is that the variable's limit cut it, and is named.
    assert.match(
      fromEnv.stdout,
      /(no response headers|no complete answer) within .*\(--model-timeout 0.1s\)/,
    );
    // A short timeout may cancel the request before the server sees it: the cap is checked on a run that answers.
    assert.equal((await run([], { TAOLOOP_MODEL_TIMEOUT: '30s', TAOLOOP_MAX_OUTPUT_TOKENS: '99' })).code, 0);
    assert.equal(server.requests.at(-1)?.max_tokens, 99);

    const cwd = tempDir('taoloop-config-');
    writeFileSync(join(cwd, 'taoloop.config.json'), JSON.stringify({ modelTimeout: '150ms' }));
    const fromConfig = await run([], {}, cwd);
    assert.equal(fromConfig.code, 1);
    assert.match(
      fromConfig.stdout,
      /(no response headers|no complete answer) within .*\(--model-timeout 0.15s\)/,
    );
    writeFileSync(
      join(cwd, 'taoloop.config.json'),
      JSON.stringify({ modelTimeout: '30s', maxOutputTokens: 77 }),
    );
    assert.equal((await run([], {}, cwd)).code, 0);
    assert.equal(server.requests.at(-1)?.max_tokens, 77);

    for (const bad of [
      ['--model-timeout', 'soon'],
      ['--max-output-tokens', '1e3'],
    ]) {
      const { code, stderr } = await run(bad);
      assert.equal(code, 2, bad.join(' '));
      assert.match(stderr, new RegExp(bad[0] ?? ''));
    }
  } finally {
    await server.close();
  }
});

test('the limits reach the loop, except the time limit for --model human (a person takes their time)', async () => {
  const { prepareRun } = await import('../../src/cli/setup.js');
  const options = (model: string) => ({
    model,
    allowUnsandboxed: false,
    yes: false,
    allow: [],
    mode: 'text' as const,
    maxSteps: 8,
    lang: 'en' as const,
    json: false,
    stream: true,
    modelTimeout: 1000,
    maxOutputTokens: 300,
  });
  const context = { command: 'run' as const, cwd: ROOT, env: {} };
  const server = await prepareRun('q', options('openai-compatible:http://127.0.0.1:9/v1#m'), context);
  assert.equal(server.agent.limits?.modelTimeoutMs, 1000);
  assert.equal(server.agent.modelSettings?.maxOutputTokens, 300);
  const human = await prepareRun('q', options('human'), context);
  assert.equal(human.agent.limits?.modelTimeoutMs, undefined);
  assert.equal(human.agent.modelSettings?.maxOutputTokens, undefined);
});

// 2. Text from a model or a tool never drives the terminal.

const HOSTILE_INPUT = 'a.test.js\x1b[2K\x1b[1GHARMLESS';
const HOSTILE_TURN = `Thought: fine\u202e\x9b\x07 ok\nAction: run_tests[${HOSTILE_INPUT}]`;
const ESCAPED_ACTION = 'run_tests[a.test.js\\x1b[2K\\x1b[1GHARMLESS]';

test('escape sequences from the model are shown escaped in the approval prompt', async () => {
  const project = projectWithTest();
  await withServer({ replies: [HOSTILE_TURN, 'Thought: done.\nAnswer: ok'] }, async (model) => {
    const args = ['run', 'Run the tests.', '--tools', 'run_tests', '--root', project, '--model', model];
    const pty = spawnPty(process.execPath, [BIN, ...args], { cwd: ROOT, env: cliEnv().env });
    await pty.waitFor(/Allow it\?/);
    const out = pty.output();
    assert.ok(out.includes(`The model wants to run ${ESCAPED_ACTION}`), out);
    assert.ok(!out.includes('\x1b[2K\x1b[1GHARMLESS'), 'no raw escape sequence reached the terminal');
    pty.type('n\r');
    assert.equal(await pty.exited, 0, pty.output());
  });
});

test('escape sequences, C1 controls and bidi overrides are escaped in run and trace output', async () => {
  const { env, runs } = cliEnv();
  await withServer(
    { replies: [HOSTILE_TURN, 'Thought: done.\nAnswer: all \x1b]0;pwned\x07 good'] },
    async (model) => {
      const args = ['run', 'Run the tests.', '--tools', 'run_tests', '--root', projectWithTest()];
      const { code, stdout } = await runCli([...args, '--model', model], { env });
      assert.equal(code, 0);
      for (const output of [stdout, (await runCli(['trace', 'last'], { env })).stdout]) {
        assert.ok(output.includes(`Action: ${ESCAPED_ACTION}`), output);
        assert.ok(output.includes('Thought: fine\\u202e\\x9b\\x07 ok'), output);
        assert.ok(output.includes('Answer: all \\x1b]0;pwned\\x07 good'), output);
        assert.doesNotMatch(output, /[\x1b\x07\x9b\u202e]/, 'no raw control character');
      }
      // The trace keeps the model's exact text; only the display is escaped.
      assert.equal(onlyTrace(runs).steps[0]?.modelText, HOSTILE_TURN);
    },
  );
});

test('the human tool shows what the model asks escaped', async () => {
  const turn = 'Thought: ask.\nAction: human[Check\x1b[2J\x1b[H the fan]';
  await withServer({ replies: [turn, 'Thought: ok.\nAnswer: fine'] }, async (model) => {
    const pty = spawnPty(process.execPath, [BIN, 'ask', 'Why is it loud?', '--model', model], {
      cwd: ROOT,
      env: cliEnv().env,
    });
    await pty.waitFor(/What did you observe\? /);
    assert.ok(pty.output().includes('The agent asks you to: Check\\x1b[2J\\x1b[H the fan'), pty.output());
    assert.ok(!pty.output().includes('\x1b[2J'));
    pty.type('quiet\r');
    assert.equal(await pty.exited, 0, pty.output());
  });
});

// 3. Ctrl-C at a prompt stops the run.

/** Waits for the prompt, types Ctrl-C, and checks the run ended `aborted` with a complete trace, exit 1. */
async function ctrlCAt(args: string[], prompt: RegExp, model?: string) {
  const { env, runs } = cliEnv();
  const pty = spawnPty(process.execPath, [BIN, ...args, ...(model ? ['--model', model] : [])], {
    cwd: ROOT,
    env,
  });
  await pty.waitFor(prompt);
  pty.type('\x03');
  const code = await Promise.race([
    pty.exited,
    new Promise<string>((resolve) => setTimeout(() => resolve('still running'), 10_000)),
  ]);
  if (code === 'still running') pty.kill('SIGKILL');
  const out = plain(pty.output());
  assert.equal(code, 1, out);
  assert.match(out, /Stopping the run/);
  assert.match(out, /— aborted/);
  const trace = onlyTrace(runs);
  assert.equal(trace.result?.status, 'aborted');
  assert.equal(trace.error, undefined, 'ended by the loop, not by a crash');
  return out;
}

test('Ctrl-C at the approval prompt aborts the run (it is not a "no")', async () => {
  const project = projectWithTest();
  await withServer({ replies: ['Thought: t.\nAction: run_tests[a.test.js]', 'Answer: x'] }, async (model) => {
    const args = ['run', 'Run the tests.', '--tools', 'run_tests', '--root', project];
    const out = await ctrlCAt(args, /Allow it\?/, model);
    assert.doesNotMatch(out, /exit code 0/, 'the tool did not run');
  });
});

test('Ctrl-C at the human tool prompt aborts the run', async () => {
  await withServer({ replies: ['Thought: t.\nAction: human[Check the fan]', 'Answer: x'] }, (model) =>
    ctrlCAt(['ask', 'Why is it loud?'], /What did you observe\? /, model),
  );
});

test('Ctrl-C while typing a turn for --model human aborts the run', async () => {
  await ctrlCAt(['run', 'What is 1 + 1?', '--model', 'human'], /an empty line ends the turn\.[\s\S]*> /);
});

// 4. A reader that goes away.

test('stdout closed early (taoloop run … | head -1): a quiet exit, no EPIPE stack trace', async () => {
  const replies = Array.from({ length: 6 }, (_, i) => `Thought: step ${i}.\nAction: calculator[${i} + 1]`);
  await withServer({ replies: [...replies, 'Answer: done'], responseDelayMs: 50 }, async (model) => {
    const { env } = cliEnv();
    const cli = spawnCli(['run', 'Count.', '--model', model, '--max-steps', '10'], { env });
    cli.child.stdout?.once('data', () => cli.child.stdout?.destroy());
    const timer = setTimeout(() => cli.child.kill('SIGKILL'), 20_000);
    const { code, signal } = await cli.exited;
    clearTimeout(timer);
    assert.equal(signal, null);
    assert.ok(code === 0 || code === 1, `exit code ${code}\n${cli.stderr()}`);
    assert.doesNotMatch(cli.stderr(), /EPIPE|\n\s+at |Unhandled|the run failed/);
  });
});

// 5, 6. Values that used to be accepted silently.

test('option values that would be ignored or misread are usage errors (exit 2)', async () => {
  const dir = tempDir('taoloop-corpus-');
  const notJsonl = join(dir, 'pages.jsonl');
  writeFileSync(notJsonl, 'title,text\nA,B\n');
  const empty = join(dir, 'empty.jsonl');
  writeFileSync(empty, '\n\n');
  const cases: [string[], RegExp][] = [
    [['run', 'q', '--tools', ','], /--tools names no tool/],
    [['run', 'q', '--tools', ''], /--tools names no tool/],
    [
      ['run', 'q', '--allow', 'run_tests'],
      /--allow "run_tests": not a tool of this run\. Its tools: calculator\./,
    ],
    [
      ['run', 'q', '--tools', 'calculator', '--docs', 'examples/brightgrid'],
      /--docs is only used by the search tool; add search to --tools/,
    ],
    [
      ['run', 'q', '--tools', 'calculator', '--root', '.'],
      /--root is only used by the read_file and run_tests/,
    ],
    [
      ['run', 'q', '--tools', 'calculator', '--wiki-corpus', notJsonl],
      /--wiki-corpus is only used by the wikipedia tool/,
    ],
    [['run', 'q', '--tools', 'wikipedia', '--wiki-corpus', join(dir, 'missing.jsonl')], /does not exist/],
    [['run', 'q', '--tools', 'wikipedia', '--wiki-corpus', dir], /is not a file/],
    [['run', 'q', '--tools', 'wikipedia', '--wiki-corpus', notJsonl], /is not JSONL of pages/],
    [['run', 'q', '--tools', 'wikipedia', '--wiki-corpus', empty], /has no pages/],
    [['run', 'q', '--max-steps', '1e3'], /--max-steps/],
    [['run', 'q', '--max-steps', '0x10'], /--max-steps/],
    [['run', 'q', '--max-steps', '99999999999999999999'], /--max-steps/],
    [['run', 'q', '--max-steps', ' 5'], /--max-steps/],
    [['runs', '--limit', '1e1'], /--limit/],
    [['eval', '--limit', '1e3'], /--limit/],
    [['eval', '--concurrency', '0x10'], /--concurrency/],
    [['eval', '--samples', '99999999999999999999'], /--samples/],
    [['serve', '--port', '0x10'], /--port/],
  ];
  if (process.getuid?.() !== 0) {
    const unreadable = join(dir, 'secret.jsonl');
    writeFileSync(unreadable, '{"title":"A","text":"B"}\n', { mode: 0o000 });
    cases.push([
      ['run', 'q', '--tools', 'wikipedia', '--wiki-corpus', unreadable],
      /cannot read the wikipedia corpus/,
    ]);
  }
  for (const [args, message] of cases) {
    const { code, stderr } = await runCli([...args, ...(args[0] === 'run' ? ['--model', 'human'] : [])], {
      env: cliEnv().env,
    });
    assert.equal(code, 2, `${args.join(' ')}: ${stderr}`);
    assert.match(stderr, message, args.join(' '));
    assert.doesNotMatch(stderr, /\n\s+at /, `no stack trace for ${args.join(' ')}`);
  }
});

test('a valid --wiki-corpus, --allow of a tool of the run and --docs with search are accepted', async () => {
  const dir = tempDir('taoloop-corpus-');
  const corpus = join(dir, 'pages.jsonl');
  writeFileSync(corpus, '{"title":"Fan","text":"Fans move air."}\n');
  await withServer({ replies: () => 'Thought: easy.\nAnswer: 4' }, async (model) => {
    for (const args of [
      ['--tools', 'wikipedia', '--wiki-corpus', corpus, '--allow', 'lookup'],
      ['--tools', 'calculator,search', '--docs', 'examples/brightgrid', '--allow', 'calculator'],
    ]) {
      const { code, stderr } = await runCli(['run', 'q', '--model', model, ...args], { env: cliEnv().env });
      assert.equal(code, 0, `${args.join(' ')}: ${stderr}`);
    }
  });
});

// 7. The version.

test('taoloop --version prints the package version', async () => {
  const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
  for (const flag of ['--version', '-V']) {
    const { code, stdout } = await runCli([flag], { env: cliEnv().env });
    assert.equal(code, 0);
    assert.equal(stdout, `${version}\n`);
  }
});
