import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { modelCell } from '../../src/cli/commands/runs.js';
import { readTrace } from '../../src/trace/trace.js';
import { runCli } from '../helpers/cli.js';
import { startFakeOpenAI } from '../helpers/fake-openai-server.js';
import { cliEnv, spawnCli, tempDir, until } from './support.js';

const READ_SCRIPT = [
  'Thought: I should read the notes.\nAction: read_file[notes.txt]',
  'Thought: The notes say it.\nAnswer: blue',
];

/** Records one run that reads notes.txt under a temp root; returns the trace file and the root. */
async function recordReadRun(env: NodeJS.ProcessEnv) {
  const root = tempDir('taoloop-root-');
  writeFileSync(join(root, 'notes.txt'), 'The sky is blue.');
  const server = await startFakeOpenAI({ replies: READ_SCRIPT });
  try {
    const args = ['run', 'What colour is the sky?', '--tools', 'read_file', '--root', root, '--json'];
    const { code, stdout } = await runCli([...args, '--model', `openai-compatible:${server.baseURL}#m`], {
      env,
    });
    assert.equal(code, 0);
    const result = JSON.parse(stdout);
    return { file: result.trace as string, id: result.id as string, root };
  } finally {
    await server.close();
  }
}

test('every run is written to the runs folder; trace prints it back as the transcript', async () => {
  const { env, runs } = cliEnv();
  const { file } = await recordReadRun(env);
  assert.equal(join(file, '..'), runs);
  assert.match(file, /\/\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z-[0-9a-f]{6}\.jsonl$/);
  const trace = readTrace(file);
  assert.equal(trace.header.version, 2);
  assert.equal(trace.result?.status, 'answered');
  assert.equal(trace.result?.steps.length, 2);
  // Each model text once: the run-end line does not repeat the steps (read back from the step-end lines).
  const runEnd = JSON.parse(readFileSync(file, 'utf8').trim().split('\n').at(-1) ?? '{}');
  assert.equal(runEnd.type, 'run-end');
  assert.equal('steps' in runEnd.result, false);
  assert.deepEqual((trace.header.meta?.cli as { tools: string[] } | undefined)?.tools, ['read_file']);

  for (const ref of [file, 'last', file.slice(-12, -6)]) {
    const { code, stdout } = await runCli(['trace', ref], { env });
    assert.equal(code, 0, ref);
    const expected = [
      'Question: What colour is the sky?',
      'Thought: I should read the notes.',
      'Action: read_file[notes.txt]',
      '  Observation: The sky is blue.',
      'Thought: The notes say it.',
      'Answer: blue',
      '— answered · 2 steps',
    ];
    let at = 0;
    for (const line of expected) {
      const found = stdout.indexOf(line, at);
      assert.ok(found >= at, `missing or out of order: ${line}\n---\n${stdout}`);
      at = found + line.length;
    }
  }
});

test('replay: identical observations exit 0; a changed file is reported with both texts and exit 1', async () => {
  const { env } = cliEnv();
  const { file, root } = await recordReadRun(env);
  const same = await runCli(['replay', file, '--root', root], { env });
  assert.equal(same.code, 0, same.stdout + same.stderr);
  assert.match(same.stdout, /step 1 {2}read_file\[notes\.txt\] {2}same/);
  assert.match(same.stdout, /identical/);

  writeFileSync(join(root, 'notes.txt'), 'The sky is grey.');
  const changed = await runCli(['replay', file, '--root', root], { env });
  assert.equal(changed.code, 1);
  assert.match(
    changed.stdout,
    /step 1 {2}read_file\[notes\.txt\] {2}differs\n {2}recorded: The sky is blue\.\n {2}now: {6}The sky is grey\./,
  );
  assert.match(changed.stdout, /1 of 2 steps differ/);

  const json = await runCli(['replay', file, '--root', root, '--json'], { env });
  assert.equal(json.code, 1);
  const report = JSON.parse(json.stdout);
  assert.equal(report.identical, false);
  assert.deepEqual(report.differences, [
    { step: 1, action: 'read_file[notes.txt]', recorded: 'The sky is blue.', now: 'The sky is grey.' },
  ]);
});

test('runs lists recent runs newest first, tolerating broken files', async () => {
  const { env, runs } = cliEnv();
  await recordReadRun(env);
  const { file: newest, id: newestId } = await recordReadRun(env);
  writeFileSync(join(runs, '2000-01-01T00-00-00.000Z-broken.jsonl'), 'not json at all\n{"also": "bad"}\n');
  const { code, stdout } = await runCli(['runs'], { env });
  assert.equal(code, 0);
  const lines = stdout.trim().split('\n');
  assert.match(lines[0] ?? '', /^time +question +model +status +steps +tokens +cost +id$/);
  assert.equal(lines.length, 4);
  // The model id (openai-compatible:http://127.0.0.1:PORT/v1#m) is too long: the base URL is cut, not the name.
  assert.match(lines[1] ?? '', /What colour is the sky\? +openai-compatible:\S*…#m +answered +2 +\d+ +- +/);
  // One id form: the short id of `run --json` is the one `runs` shows.
  assert.equal(newestId, newest.slice(-12, -6));
  assert.match(lines[1] ?? '', new RegExp(` ${newestId}$`), 'newest first, with its short id');
  assert.match(lines[3] ?? '', /unreadable/);

  const limited = await runCli(['runs', '--limit', '1', '--json'], { env });
  const listed = JSON.parse(limited.stdout);
  assert.equal(listed.runs.length, 1);
  assert.equal(listed.runs[0].file, newest);
  assert.equal(listed.runs[0].shortId, newestId);
  assert.equal(listed.runs[0].status, 'answered');

  const traced = await runCli(['trace', newestId], { env });
  assert.equal(traced.code, 0, traced.stderr);
  assert.match(traced.stdout, /Answer: blue/);
});

test("a project's .taoloop/runs/ folder is used when it exists", async () => {
  const cwd = tempDir('taoloop-project-');
  mkdirSync(join(cwd, '.taoloop', 'runs'), { recursive: true });
  const { env, runs } = cliEnv();
  const server = await startFakeOpenAI({ replies: ['Thought: easy.\nAnswer: 4'] });
  try {
    const { code } = await runCli(['run', '2 + 2?', '--model', `openai-compatible:${server.baseURL}#m`], {
      env,
      cwd,
    });
    assert.equal(code, 0);
  } finally {
    await server.close();
  }
  assert.equal(readdirSync(join(cwd, '.taoloop', 'runs')).length, 1);
  assert.equal(existsSync(runs), false, 'nothing in the cache folder');
});

test('--trace FILE writes the trace there', async () => {
  const { env, runs } = cliEnv();
  const file = join(tempDir(), 'sub', 'my-run.jsonl');
  const server = await startFakeOpenAI({ replies: ['Thought: easy.\nAnswer: 4'] });
  try {
    const args = ['run', '2 + 2?', '--trace', file, '--model', `openai-compatible:${server.baseURL}#m`];
    const { code, stderr } = await runCli(args, { env });
    assert.equal(code, 0);
    assert.match(stderr, /trace: .*my-run\.jsonl/);
  } finally {
    await server.close();
  }
  assert.equal(readTrace(file).result?.answer, '4');
  assert.equal(existsSync(runs), false);
});

// SIGTERM (`kill`, `timeout`, `docker stop`) and SIGHUP (the terminal closed) stop a run as Ctrl-C does.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  test(`${signal} while the model streams ends the run as aborted, exit 1, the trace ending with run-end`, async () => {
    const { env } = cliEnv();
    const file = join(tempDir(), 'interrupted.jsonl');
    // 40 characters a second: the first turn takes about 2 s to arrive.
    const server = await startFakeOpenAI({ replies: READ_SCRIPT, chunkSize: 4, chunkDelayMs: 100 });
    try {
      const args = ['run', 'q', '--trace', file, '--model', `openai-compatible:${server.baseURL}#m`];
      const cli = spawnCli(args, { env });
      await until(() =>
        existsSync(file) && readFileSync(file, 'utf8').includes('"model-start"') ? true : undefined,
      );
      await new Promise((r) => setTimeout(r, 300)); // let some of the stream arrive
      cli.child.kill(signal);
      const { code } = await cli.exited;
      assert.equal(code, 1, cli.stderr());
      assert.match(cli.stderr(), /Stopping the run… \(press Ctrl-C again to quit at once\)/);
      assert.match(cli.stdout(), /No answer: the run was aborted\./);
      assert.doesNotMatch(cli.stderr(), /\n\s+at /);
    } finally {
      await server.close();
    }
    const lines = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    // What the model had written when the run stopped (if the signal came after its first words) is kept,
    // in one model-delta line before run-end.
    const types = lines.map((l) => l.type);
    const written = types.includes('model-delta');
    assert.deepEqual(types, [
      'trace-start',
      'run-start',
      'model-start',
      ...(written ? ['model-delta'] : []),
      'run-end',
    ]);
    if (written) assert.ok(READ_SCRIPT[0]!.startsWith(lines.at(-2).text), lines.at(-2).text);
    assert.equal(lines.at(-1).result.status, 'aborted');
    const trace = readTrace(file);
    assert.equal(trace.result?.status, 'aborted');
    assert.equal(trace.header.question, 'q');
  });
}

test('the runs table keeps the model name of a long model id and cuts the provider and base URL', () => {
  const long = 'openai-compatible:http://127.0.0.1:8080/v1#qwen2.5-7b-instruct';
  assert.equal(modelCell(long), 'openai-compatible:h…#qwen2.5-7b-instruct');
  assert.equal(modelCell('openai:gpt-4o-mini'), 'openai:gpt-4o-mini');
  // A name too long by itself is shown alone, cut at its end.
  const name = 'a-model-name-far-longer-than-the-whole-column-is';
  assert.equal(modelCell(`openai-compatible:http://h/v1#${name}`), `${name.slice(0, 39)}…`);
});

const E = '\x1b';
const HEADER = {
  type: 'trace-start',
  format: 'taoloop-trace',
  version: 2,
  startedAt: 'x',
  question: 'q',
  modelId: 'm',
  meta: { cli: { tools: ['read_file'], lang: 'en', mode: 'text', yes: true, allowTools: 'all' } },
};

/** A trace file of these lines (the header first, unless given), in a temp folder. */
function craftedTrace(lines: unknown[]): string {
  const file = join(tempDir('taoloop-crafted-'), 'run.jsonl');
  writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
  return file;
}

test('trace prints no raw escape sequence from any field of a crafted trace: retries, hook names and footer counts included', async () => {
  const file = craftedTrace([
    HEADER,
    { type: 'run-start', question: 'q', modelId: 'm', tools: ['read_file'] },
    {
      type: 'model-retry',
      retry: `${E}]0;PWNED${E}\\${E}[2J`,
      maxRetries: `${E}[31mRED`,
      error: 'e',
      delayMs: 1,
    },
    { type: 'hook-error', hook: `${E}]52;c;cm0gLXJmIH4=${E}\\`, error: 'x' },
    {
      type: 'run-end',
      result: {
        status: 'answered',
        usage: { inputTokens: `${E}[2Jfake-screen`, outputTokens: 1 },
        durationMs: 5,
        steps: { length: `${E}[5m` },
        costUsd: 0,
        answer: 'a',
      },
    },
  ]);
  const { code, stdout } = await runCli(['trace', file], { env: cliEnv().env });
  assert.equal(code, 0, stdout);
  assert.doesNotMatch(stdout, /\x1b/, 'no raw ESC');
  assert.match(stdout, /retry \? of \? after e/);
  assert.ok(stdout.includes('(\\x1b]52;c;cm0gLXJmIH4=\\x1b\\ failed: x; the run goes on)'), stdout);
  assert.match(stdout, /answered · \? steps · \? in \/ 1 out tokens/);
});

test('trace: fields of the wrong type print as ?; an event it cannot read is "FILE is not a valid taoloop trace: line N", exit 2', async () => {
  const { env } = cliEnv();
  const trace = async (lines: unknown[]) => {
    const file = craftedTrace(lines);
    return { file, ...(await runCli(['trace', file], { env })) };
  };
  const wrongTypes = await trace([
    { ...HEADER, question: { a: 1 }, startedAt: ['x'] },
    { type: 'model-fallback', error: 42, fromModelId: 'a', toModelId: 'b' },
    {
      type: 'model-end',
      step: 1,
      text: 'x',
      turn: { type: 'action', tool: 't', input: 'i', thought: { toString: 1 } },
    },
    { type: 'run-end', result: { status: 'answered', usage: {}, durationMs: 'soon', steps: [] } },
  ]);
  assert.equal(wrongTypes.code, 0, wrongTypes.stderr);
  assert.match(wrongTypes.stdout, /^\? · m · /);
  assert.match(wrongTypes.stdout, /Question: \?\n/);
  assert.match(wrongTypes.stdout, /\(a failed: 42; trying b\)/);
  assert.match(wrongTypes.stdout, /Thought: \?\nAction: t\[i\]/);
  assert.match(wrongTypes.stdout, /answered · 0 steps · tokens unknown · .* · \? s/);
  assert.doesNotMatch(wrongTypes.stdout, /object Object|NaN/);

  const status = await trace([
    HEADER,
    { type: 'run-end', result: { status: '__proto__', usage: {}, durationMs: 1, steps: [] } },
  ]);
  assert.equal(status.code, 0, status.stderr);
  assert.match(status.stdout, /No answer: .*\n— __proto__ · 0 steps/);

  for (const [event, what] of [
    [{ type: 'run-end', result: null }, /the run-end event's "result" is not an object/],
    [{ type: 'step-end', step: null }, /the step-end event's "step" is not an object/],
    [{ type: 'model-end', step: 1, text: 'x', turn: null }, /the model-end event's "turn" is not an object/],
    [{ type: 'agent-event', path: 'x', event: { type: 'run-start' } }, /"path" is not a list of names/],
    [{ type: 'agent-event', path: ['a'], event: null }, /"event" is not an object/],
  ] as const) {
    const bad = await trace([HEADER, { type: 'run-start', question: 'q', modelId: 'm', tools: [] }, event]);
    assert.equal(bad.code, 2, bad.stderr);
    assert.ok(bad.stderr.includes(`${bad.file} is not a valid taoloop trace: line 3: `), bad.stderr);
    assert.match(bad.stderr, what);
    assert.doesNotMatch(bad.stderr, /the run failed|Cannot read/);
  }
  const notAnEvent = await trace([HEADER, 5]);
  assert.equal(notAnEvent.code, 2);
  assert.match(notAnEvent.stderr, /:2 is not an event/);
});

test('runs lists a trace with fields of the wrong type, with ? for them', async () => {
  const { env, runs } = cliEnv();
  mkdirSync(runs, { recursive: true });
  writeFileSync(
    join(runs, 'odd.jsonl'),
    `${[
      { ...HEADER, question: { a: 1 }, startedAt: ['x'], modelId: 5 },
      {
        type: 'run-end',
        result: { status: 7, usage: { inputTokens: 'x', outputTokens: 2 }, steps: 'x', costUsd: 'y' },
      },
    ]
      .map((line) => JSON.stringify(line))
      .join('\n')}\n`,
  );
  const { code, stdout, stderr } = await runCli(['runs'], { env });
  assert.equal(code, 0, stderr);
  assert.match(stdout, /\n\?\s+\?\s+\?\s+\?\s+0\s+2\s+-\s+odd\n/);
});
