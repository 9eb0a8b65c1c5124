/**
 * Files grant no trust (issue 14, item 2): a taoloop.config.json that taoloop finds in the current folder
 * cannot name folders outside its own folder, and the model endpoint it names gets no API key unasked.
 */
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runCli } from '../helpers/cli.js';
import { type FakeOpenAI, startFakeOpenAI } from '../helpers/fake-openai-server.js';
import { spawnPty } from '../helpers/pty.js';
import { cliEnv, tempDir } from './support.js';

const BIN = fileURLToPath(new URL('../../bin/taoloop.js', import.meta.url));
const KEY = 'sk-do-not-leak-1234';
let server: FakeOpenAI;
let parent: string;
before(async () => {
  server = await startFakeOpenAI({ replies: (_, i) => `Thought: t.\nAction: calculator[1 + ${i}]` });
  parent = tempDir('taoloop-config-trust-');
});
after(async () => {
  await server.close();
  rmSync(parent, { recursive: true, force: true });
});

const spec = () => `openai-compatible:${server.baseURL}#from-config`;
let count = 0;

/** `<parent>/<n>/root` holding the config, and `<parent>/<n>/root-evil` beside it with a file in it. */
function project(config: Record<string, unknown>) {
  const base = join(parent, String(count++));
  const root = join(base, 'root');
  const evil = join(base, 'root-evil');
  mkdirSync(root, { recursive: true });
  mkdirSync(evil);
  writeFileSync(join(evil, 'notes.txt'), 'secret notes');
  writeFileSync(join(evil, 'doc.md'), '# Doc\n\nOutside.\n');
  writeFileSync(join(root, 'taoloop.config.json'), JSON.stringify({ model: spec(), maxSteps: 1, ...config }));
  return { root, evil, config: join(root, 'taoloop.config.json') };
}

const run = (cwd: string, args: string[] = [], extra: Record<string, string> = {}) =>
  runCli(['run', 'Count.', '--json', ...args], { cwd, env: cliEnv(extra).env });

describe('a found config names only folders inside its own folder', () => {
  const outside: [string, (evil: string) => Record<string, unknown>, RegExp][] = [
    ['root beside it (root-evil)', () => ({ tools: 'read_file', root: '../root-evil' }), /--root/],
    ['root by absolute path', (evil) => ({ tools: 'read_file', root: evil }), /--root/],
    ['docs', () => ({ docs: '../root-evil' }), /--docs/],
    ['wikiCorpus', () => ({ tools: 'wikipedia', wikiCorpus: '../root-evil/pages.jsonl' }), /--wiki-corpus/],
    ['examples', () => ({ examples: '../root-evil/doc.md' }), /--examples/],
    ['a parent folder', () => ({ tools: 'read_file', root: '..' }), /--root/],
  ];
  for (const [label, config, flag] of outside) {
    test(`${label}: refused with exit 2, saying how to allow it`, async () => {
      const { root, evil } = project({});
      writeFileSync(join(root, 'taoloop.config.json'), JSON.stringify({ model: spec(), ...config(evil) }));
      const { code, stderr } = await run(root);
      assert.equal(code, 2, stderr);
      assert.match(
        stderr,
        /refused: the config file .*taoloop\.config\.json, which taoloop found in the current folder/,
      );
      assert.match(stderr, /outside the config file's folder/);
      assert.match(stderr, flag);
      assert.match(stderr, /or name the config with --config /);
    });
  }

  test('a symbolic link inside the folder that points outside is outside (real paths)', async () => {
    const { root, evil } = project({});
    symlinkSync(evil, join(root, 'docs'));
    writeFileSync(join(root, 'taoloop.config.json'), JSON.stringify({ model: spec(), docs: 'docs' }));
    const { code, stderr } = await run(root);
    assert.equal(code, 2, stderr);
    assert.match(stderr, /names docs ".*[/]root[/]docs", outside the config file's folder/);
  });

  test("folders inside are used; a folder named with a flag, or a config named with --config, is the user's choice", async () => {
    const { root, evil, config } = project({});
    mkdirSync(join(root, 'docs'));
    writeFileSync(join(root, 'docs', 'a.md'), '# A\n\nInside.\n');
    writeFileSync(
      join(root, 'taoloop.config.json'),
      JSON.stringify({ model: spec(), maxSteps: 1, docs: 'docs' }),
    );
    const inside = await run(root);
    assert.equal(inside.code, 1, inside.stderr);
    assert.equal(JSON.parse(inside.stdout).steps.length, 1);

    writeFileSync(
      config,
      JSON.stringify({ model: spec(), maxSteps: 1, tools: 'read_file', root: '../root-evil' }),
    );
    const flag = await run(root, ['--root', evil]);
    assert.equal(flag.code, 1, flag.stderr);
    const named = await run(root, ['--config', config]);
    assert.equal(named.code, 1, named.stderr);
    assert.equal(JSON.parse(named.stdout).steps.length, 1);
  });
});

describe('a model endpoint named by a found config gets no API key unasked', () => {
  test('without a terminal the key is held back and the message says how to send it', async () => {
    const { root } = project({});
    const before = server.authorizations.length;
    const { code, stdout, stderr } = await run(root, [], { TAOLOOP_API_KEY: KEY });
    assert.equal(code, 1, stderr);
    assert.equal(JSON.parse(stdout).steps.length, 1, 'the run still goes on, without the key');
    const sent = server.authorizations.slice(before);
    assert.ok(sent.length > 0);
    for (const header of sent) assert.ok(!header?.includes(KEY), `the key was sent: ${header}`);
    assert.match(stderr, /your API key \(TAOLOOP_API_KEY\) is not sent to http:\/\/127\.0\.0\.1:\d+\/v1/);
    assert.match(
      stderr,
      /To send it, run with --config .*taoloop\.config\.json, or answer y when asked at a terminal/,
    );
  });

  test('named with --config, or set by a flag, the endpoint gets the key', async () => {
    const { root, config } = project({});
    let before = server.authorizations.length;
    const named = await run(root, ['--config', config], { TAOLOOP_API_KEY: KEY });
    assert.equal(named.code, 1, named.stderr);
    assert.equal(server.authorizations.at(before), `Bearer ${KEY}`);
    assert.doesNotMatch(named.stderr, /not sent/);
    before = server.authorizations.length;
    const flagged = await run(root, ['--model', spec()], { TAOLOOP_API_KEY: KEY });
    assert.equal(flagged.code, 1, flagged.stderr);
    assert.equal(server.authorizations.at(before), `Bearer ${KEY}`);
  });

  for (const [answer, sent] of [
    ['y', true],
    ['n', false],
  ] as const) {
    test(`at a terminal the user is asked, and "${answer}" is obeyed`, async () => {
      const { root } = project({});
      const before = server.authorizations.length;
      const pty = spawnPty(process.execPath, [BIN, 'run', 'Count.'], {
        cwd: root,
        env: cliEnv({ TAOLOOP_API_KEY: KEY }).env,
      });
      await pty.waitFor(
        /Send your API key \(TAOLOOP_API_KEY\) to http:\/\/127\.0\.0\.1:\d+\/v1, .*\? \[y\/N\] /s,
      );
      pty.type(`${answer}\r`);
      assert.equal(await pty.exited, 1, pty.output());
      assert.equal(server.authorizations.at(before) === `Bearer ${KEY}`, sent, pty.output());
    });
  }
});
