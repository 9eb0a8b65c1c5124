import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ROOT, runCli } from '../helpers/cli.js';
import { type FakeOpenAI, startFakeOpenAI } from '../helpers/fake-openai-server.js';
import { cliEnv, tempDir } from './support.js';

// Every call acts with a new input, so only the step limit stops the run: the step count shows the limit.
let server: FakeOpenAI;
before(async () => {
  server = await startFakeOpenAI({ replies: (_, i) => `Thought: more.\nAction: calculator[1 + ${i}]` });
});
after(() => server.close());

const spec = () => `openai-compatible:${server.baseURL}#from-config`;

function project(config: unknown): string {
  const cwd = tempDir('taoloop-config-');
  writeFileSync(
    join(cwd, 'taoloop.config.json'),
    typeof config === 'string' ? config : JSON.stringify(config),
  );
  return cwd;
}

async function steps(cwd: string, args: string[] = [], extraEnv: Record<string, string> = {}) {
  const { code, stdout, stderr } = await runCli(['run', 'Count.', '--json', ...args], {
    cwd,
    env: cliEnv(extraEnv).env,
  });
  assert.equal(code, 1, stderr);
  const result = JSON.parse(stdout);
  assert.equal(result.status, 'max_steps');
  return { steps: result.steps.length as number, model: result.model as string };
}

describe('precedence: flags over environment over the config file over defaults', () => {
  test('the config file in the current folder sets the model and the step limit', async () => {
    const cwd = project({ model: spec(), maxSteps: 1 });
    assert.deepEqual(await steps(cwd), { steps: 1, model: spec() });
  });

  test('an environment variable wins over the config file', async () => {
    const cwd = project({ model: spec(), maxSteps: 1 });
    assert.equal((await steps(cwd, [], { TAOLOOP_MAX_STEPS: '2' })).steps, 2);
  });

  test('a flag wins over both', async () => {
    const cwd = project({ model: spec(), maxSteps: 1 });
    assert.equal((await steps(cwd, ['--max-steps', '3'], { TAOLOOP_MAX_STEPS: '2' })).steps, 3);
  });

  test('TAOLOOP_MODEL wins over the config file model', async () => {
    const cwd = project({ model: 'openai:not-this-one', maxSteps: 1 });
    const env = `openai-compatible:${server.baseURL}#from-env`;
    assert.equal((await steps(cwd, [], { TAOLOOP_MODEL: env })).model, env);
  });

  test('--config FILE is read from anywhere, and its paths are relative to it', async () => {
    const dir = tempDir('taoloop-config-elsewhere-');
    mkdirSync(join(dir, 'docs'));
    writeFileSync(join(dir, 'docs', 'a.md'), '# A\n\nThe answer is 42.\n');
    writeFileSync(join(dir, 'my.json'), JSON.stringify({ model: spec(), maxSteps: 1, docs: 'docs' }));
    const { code, stdout } = await runCli(['run', 'q', '--json', '--config', join(dir, 'my.json')], {
      cwd: ROOT,
      env: cliEnv().env,
    });
    assert.equal(code, 1);
    assert.equal(JSON.parse(stdout).steps.length, 1);
    const system = server.requests.at(-1)?.messages[0]?.content ?? '';
    assert.match(system, /- search\[/, 'docs from the config file gave the search tool');
  });
});

describe('bad configuration is a clear error with exit code 2', () => {
  const cases: [string, unknown, RegExp][] = [
    [
      'a value out of range',
      { maxSteps: 0 },
      /bad config file .*taoloop\.config\.json:\n {2}"maxSteps": expected a whole number ≥ 1/,
    ],
    ['a bad duration', { timeout: 'soon' }, /"timeout": expected a duration such as 90s/],
    ['a bad language', { lang: 'de' }, /"lang": Invalid option: expected one of "en"\|"pt"\|"fr"\|"id"/],
    ['an approval', { yes: true }, /unknown key "yes" \(approvals are given on the command line only/],
    ['not JSON', '{ model: ', /cannot read the config file .*taoloop\.config\.json/],
  ];
  for (const [what, config, message] of cases) {
    test(what, async () => {
      const { code, stdout, stderr } = await runCli(['run', 'q'], {
        cwd: project(config),
        env: cliEnv().env,
      });
      assert.equal(code, 2, stderr);
      assert.equal(stdout, '');
      assert.match(stderr, message);
      assert.doesNotMatch(stderr, /\n\s+at /, 'no stack trace');
    });
  }

  test('a bad environment variable names the variable', async () => {
    const { code, stderr } = await runCli(['run', 'q'], { env: cliEnv({ TAOLOOP_MAX_STEPS: 'many' }).env });
    assert.equal(code, 2);
    assert.match(stderr, /value 'many' from env 'TAOLOOP_MAX_STEPS' is invalid/);
  });
});
