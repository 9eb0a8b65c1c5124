import assert from 'node:assert/strict';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { pricePair } from '../../src/cli/options.js';
import { runCli } from '../helpers/cli.js';
import { startFakeOpenAI } from '../helpers/fake-openai-server.js';
import { cliEnv, tempDir } from './support.js';

/** A server that bills every call as 1000 input and 100 output tokens and never answers on its own. */
async function billingServer(replies = 6) {
  return startFakeOpenAI({
    replies: [
      ...Array.from({ length: replies }, () => 'Thought: once more.\nAction: calculator[1 + 1]'),
      'Thought: done.\nAnswer: 2',
    ],
    usage: { promptTokens: 1000, completionTokens: 100 },
  });
}

test('--price takes IN/OUT in USD per million tokens; anything else is refused with what to write', () => {
  assert.deepEqual(pricePair('0.15/0.60'), { inputUsdPerMTok: 0.15, outputUsdPerMTok: 0.6 });
  assert.deepEqual(pricePair('$3 / $15'), { inputUsdPerMTok: 3, outputUsdPerMTok: 15 });
  assert.deepEqual(pricePair('0/0'), { inputUsdPerMTok: 0, outputUsdPerMTok: 0 });
  for (const bad of ['abc', '0.15', '0.15/', '/0.60', '-1/2', '1/2/3', '1e3/1', ''])
    assert.throws(() => pricePair(bad), /IN\/OUT such as 0\.15\/0\.60/, bad);
});

test('--price abc is a usage error that says what to write', async () => {
  const { code, stdout, stderr } = await runCli([
    'run',
    'q',
    '--price',
    'abc',
    '--model',
    'openai:gpt-4o-mini',
  ]);
  assert.equal(code, 2);
  assert.equal(stdout, '');
  assert.match(stderr, /--price <in\/out>' argument 'abc' is invalid.*USD per million tokens.*0\.15\/0\.60/);
});

test('--price gives the cost of a run on an OpenAI-compatible server', async (t) => {
  const server = await startFakeOpenAI({
    replies: ['Thought: easy.\nAnswer: 4', 'Thought: easy.\nAnswer: 4'],
    usage: { promptTokens: 1000, completionTokens: 100 },
  });
  t.after(() => server.close());
  const model = `openai-compatible:${server.baseURL}#m`;
  const { code, stdout } = await runCli(['run', 'q', '--model', model, '--price', '10/20', '--json'], {
    env: cliEnv().env,
  });
  assert.equal(code, 0);
  // 1000 * 10 / 1e6 + 100 * 20 / 1e6
  assert.equal(JSON.parse(stdout).costUsd, 0.012);

  const text = await runCli(['run', 'q', '--model', model, '--price', '10/20', '--no-stream'], {
    env: cliEnv().env,
  });
  assert.match(text.stdout, /· \$0\.0120 ·/);
  assert.doesNotMatch(text.stdout, /cost unknown/);
});

test('--price with --max-cost stops the run with status budget on an OpenAI-compatible server', async (t) => {
  const server = await billingServer();
  t.after(() => server.close());
  const args = ['run', 'q', '--model', `openai-compatible:${server.baseURL}#m`, '--json'];
  // Each call costs 1000 * 10 / 1e6 + 100 * 10 / 1e6 = $0.011: the budget of $0.03 allows no fourth.
  const { code, stdout, stderr } = await runCli([...args, '--price', '10/10', '--max-cost', '0.03'], {
    env: cliEnv().env,
  });
  assert.equal(code, 1, stderr);
  const result = JSON.parse(stdout);
  assert.equal(result.status, 'budget');
  assert.equal(result.answer, null);
  assert.ok(server.requests.length >= 1 && server.requests.length <= 3, `${server.requests.length} calls`);
  assert.ok(result.costUsd > 0 && result.costUsd <= 0.033, String(result.costUsd));
});

test("the config file's prices give a model its price, for the cost and --max-cost", async (t) => {
  const server = await billingServer();
  const dir = tempDir();
  t.after(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });
  const config = join(dir, 'my.config.json');
  await writeFile(config, JSON.stringify({ prices: { m: { inputUsdPerMTok: 10, outputUsdPerMTok: 10 } } }));
  const args = ['run', 'q', '--model', `openai-compatible:${server.baseURL}#m`, '--json', '--config', config];
  const { code, stdout } = await runCli([...args, '--max-cost', '0.03'], { env: cliEnv().env });
  assert.equal(code, 1);
  const result = JSON.parse(stdout);
  assert.equal(result.status, 'budget');
  assert.ok(result.costUsd > 0);

  await writeFile(
    config,
    JSON.stringify({ prices: { m: { inputUsdPerMTok: 'cheap', outputUsdPerMTok: 1 } } }),
  );
  const bad = await runCli(args, { env: cliEnv().env });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /"prices\.m\.inputUsdPerMTok": expected a price in USD per million tokens/);
});

test('a config file found in the current folder cannot make a model with a built-in price cheaper', async (t) => {
  const server = await billingServer();
  const dir = tempDir();
  t.after(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });
  await writeFile(
    join(dir, 'taoloop.config.json'),
    JSON.stringify({ prices: { 'gpt-4o-mini': { inputUsdPerMTok: 0, outputUsdPerMTok: 0 } } }),
  );
  const model = `openai-compatible:${server.baseURL}#gpt-4o-mini`;
  const { code, stderr } = await runCli(['run', 'q', '--model', model, '--max-cost', '0.01'], {
    env: cliEnv().env,
    cwd: dir,
  });
  assert.equal(code, 2);
  assert.match(stderr, /lowers the price of gpt-4o-mini below the built-in 0\.15\/0\.6 USD per million/);
  assert.equal(server.requests.length, 0);
});

test('--max-cost without any known price says how to give one', async (t) => {
  const server = await billingServer();
  t.after(() => server.close());
  const model = `openai-compatible:${server.baseURL}#m`;
  const { code, stderr } = await runCli(['run', 'q', '--model', model, '--max-cost', '0.01'], {
    env: cliEnv().env,
  });
  assert.equal(code, 2);
  assert.match(stderr, /--max-cost needs the price of .*#m.*--price IN\/OUT.*"prices"/);
  assert.equal(server.requests.length, 0);
});

test('a budget that stops the run before its first call: 0 tokens, $0.0000, one full stop, in every --lang', async (t) => {
  const server = await billingServer();
  t.after(() => server.close());
  const args = ['run', 'q', '--model', `openai-compatible:${server.baseURL}#m`, '--price', '1/2'];
  const json = await runCli([...args, '--max-cost', '0.0000001', '--json'], { env: cliEnv().env });
  assert.equal(json.code, 1, json.stderr);
  assert.equal(JSON.parse(json.stdout).status, 'budget');
  assert.equal(JSON.parse(json.stdout).costUsd, 0);
  for (const lang of ['en', 'pt', 'fr', 'id']) {
    const { code, stdout, stderr } = await runCli(
      [...args, '--max-cost', '0.0000001', '--no-stream', '--lang', lang],
      {
        env: cliEnv().env,
      },
    );
    const out = stdout + stderr;
    assert.equal(code, 1, out);
    assert.match(out, /· 0 [^·]*\/ 0 [^·]*· \$0\.0000 ·/, `${lang}: ${out}`);
    assert.doesNotMatch(out, /--price|unknown|inconnu|desconhecid|tidak diketahui/i, `${lang}: ${out}`);
    assert.match(out, /\$[\d.]*\d\)\.\n/, `${lang}: ${out}`);
    assert.doesNotMatch(out, /\.\)\./, `${lang}: ${out}`);
  }
  assert.equal(server.requests.length, 0);
});
