import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { startFakeOpenAI } from '../helpers/fake-openai-server.js';
import { cliEnv } from './support.js';

const QUESTION = 'How much does Brightgrid Pro cost per year for 7 developers?';
const SCRIPT = [
  'Thought: I need the price per developer.\nAction: search[Brightgrid Pro price per developer]',
  'Thought: Now the yearly total for 7 developers.\nAction: calculator[20 * 12 * 7]',
  'Thought: The calculator gave the total.\nAnswer: $1,680 per year',
];

for (const streaming of [true, false]) {
  describe(`taoloop run against a local OpenAI-compatible server (${streaming ? 'SSE streaming' : 'JSON'})`, () => {
    let server: Awaited<ReturnType<typeof startFakeOpenAI>>;
    before(async () => {
      server = await startFakeOpenAI({ replies: SCRIPT });
    });
    after(() => server.close());

    test('prints the three steps with real observations, then the answer, and exits 0', async () => {
      const args = [
        'run',
        QUESTION,
        '--docs',
        'examples/brightgrid',
        '--model',
        `openai-compatible:${server.baseURL}#test-model`,
      ];
      if (!streaming) args.push('--no-stream');
      const { code, stdout, stderr } = await runCli(args, { env: cliEnv().env });
      assert.equal(code, 0, stderr);
      const expected = [
        'Thought: I need the price per developer.',
        'Action: search[Brightgrid Pro price per developer]',
        '  Observation: Brightgrid Pro costs $20 per month per developer.',
        'Thought: Now the yearly total for 7 developers.',
        'Action: calculator[20 * 12 * 7]',
        '  Observation: 1680',
        'Thought: The calculator gave the total.',
        'Answer: $1,680 per year',
      ];
      let at = 0;
      for (const line of expected) {
        const found = stdout.indexOf(line, at);
        assert.ok(found >= at, `missing or out of order: ${line}\n---\n${stdout}`);
        at = found + line.length;
      }

      assert.equal(server.requests.length, 3);
      for (const request of server.requests) {
        assert.equal(request.stream === true, streaming);
        assert.equal(request.temperature, 0);
        const stop = ([] as string[]).concat(request.stop ?? []);
        assert.ok(
          stop.some((s) => s.includes('Observation:')),
          `stop sequences: ${JSON.stringify(stop)}`,
        );
      }
      const transcript = (i: number) => JSON.stringify(server.requests[i]!.messages);
      assert.match(transcript(1), /Observation: Brightgrid Pro costs \$20 per month per developer\./);
      assert.match(transcript(2), /Observation: 1680/);
    });
  });
}

test('--json prints one JSON result and nothing else', async () => {
  const server = await startFakeOpenAI({ replies: SCRIPT });
  try {
    const { env, runs } = cliEnv();
    const { code, stdout, stderr } = await runCli(
      [
        'run',
        QUESTION,
        '--json',
        '--docs',
        'examples/brightgrid',
        '--model',
        `openai-compatible:${server.baseURL}#m`,
      ],
      { env },
    );
    assert.equal(code, 0);
    assert.equal(stderr, '', 'no spinner, no notes: nothing but the JSON');
    const result = JSON.parse(stdout);
    assert.equal(result.status, 'answered');
    assert.equal(result.answer, '$1,680 per year');
    assert.equal(result.steps.length, 3);
    assert.ok(result.trace.startsWith(runs), `the trace is in the runs folder: ${result.trace}`);
    assert.ok(readFileSync(result.trace, 'utf8').includes('"type":"run-end"'));
  } finally {
    await server.close();
  }
});

test('a run that ends without an answer exits 1 and says why', async () => {
  const server = await startFakeOpenAI({ replies: ['I think it is about $1,600.', 'Roughly $1,600.'] });
  try {
    const { code, stdout } = await runCli(
      ['run', QUESTION, '--model', `openai-compatible:${server.baseURL}#m`],
      {
        env: cliEnv().env,
      },
    );
    assert.equal(code, 1);
    assert.match(stdout, /Format error/);
    assert.match(stdout, /No answer: the model kept writing turns that do not follow/);
    assert.doesNotMatch(stdout, /^Answer:/m);
  } finally {
    await server.close();
  }
});

test('with no model configured, run exits 2 and names the ways to configure one', async () => {
  // No keys, no Ollama answering, no network (TAOLOOP_OFFLINE=1 stands in for it: no download is tried).
  const started = performance.now();
  const { code, stdout, stderr } = await runCli(['run', 'What is 2 + 2?'], { env: cliEnv().env });
  assert.ok(performance.now() - started < 10_000, 'fails within 10 seconds');
  assert.equal(code, 2);
  assert.equal(stdout, '');
  assert.match(stderr, /no model is configured, and the embedded local model is not available/);
  assert.match(stderr, /--model local:\.\/model\.gguf/);
  assert.match(stderr, /TAOLOOP_MODEL/);
  assert.match(stderr, /OPENAI_API_KEY/);
  assert.match(stderr, /Ollama/);
  assert.doesNotMatch(stderr, /\n\s+at /, 'no stack trace');
});

test('bad usage exits 2 with a clear message and no stack trace', async () => {
  const cases: [string[], RegExp][] = [
    [['run', 'q', '--max-steps', '0'], /--max-steps/],
    [['run', 'q', '--bogus'], /unknown option '--bogus'/],
    [['run', 'q', '--tools', 'calculator,rm'], /unknown tool "rm"/],
    [['run', 'q', '--tools', 'search'], /needs a folder of documents/],
    [['run', 'q', '--docs', 'no/such/folder'], /no\/such\/folder/],
    [['run', 'q', '--model', 'nonsense'], /model/i],
    [['run'], /missing required argument/],
    [['launch'], /unknown command/],
    [['run', 'q', '--max-cost', 'abc'], /--max-cost <usd>' argument 'abc' is invalid.*USD/],
    [['run', 'q', '--timeout', '5x'], /expected a duration such as 90s, 2m, 500ms/],
    [['run', 'q', '--lang', 'de'], /Allowed choices are en, pt, fr, id/],
    [['run', 'q', '--model', 'human', '--examples', 'no/such/examples.txt'], /cannot read the examples file/],
    [['run', 'q', '--model', 'human', '--examples', 'package.json'], /not a list of \{question, steps/],
    [
      ['run', 'q', '--config', 'no/such/config.json'],
      /the config file no\/such\/config\.json does not exist/,
    ],
    [['ask', '  ', '--model', 'human'], /the question is empty/],
    [
      ['run', 'q', '--model', 'human', '--trace', 'package.json/x.jsonl'],
      /cannot write the trace to package\.json\/x\.jsonl/,
    ],
    [['runs', '--limit', '0'], /--limit/],
    [['trace', 'no/such/trace.jsonl'], /no trace "no\/such\/trace\.jsonl"/],
    [['replay', 'package.json'], /cannot read the trace .*package\.json/],
  ];
  for (const [args, message] of cases) {
    const { code, stderr } = await runCli(args, { env: cliEnv().env });
    assert.equal(code, 2, `${args.join(' ')}: ${stderr}`);
    assert.match(stderr, message, args.join(' '));
    assert.doesNotMatch(stderr, /\n\s+at /, `no stack trace for ${args.join(' ')}`);
  }
});

test('--help on every command lists every option with its default', async () => {
  for (const command of ['run', 'ask', 'chat', 'trace', 'replay', 'runs']) {
    const { code, stdout } = await runCli([command, '--help'], { env: cliEnv().env });
    assert.equal(code, 0);
    const options = stdout.split('Options:\n')[1] ?? '';
    // One block per option: its first line starts with "  -", continuation lines are indented further.
    const blocks = options.split(/\n(?= {2}-)/).filter((b) => !/^\s*-h, --help/.test(b));
    for (const block of blocks) assert.match(block.replace(/\s+/g, ' '), /default: /, `${command}: ${block}`);
  }
});
