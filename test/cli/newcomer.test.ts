/**
 * The CLI a newcomer meets (issue 28, item 6 and 7): mistakes named where they were made, taoloop's own
 * errors in the `--lang` asked for, a refused local port said at once, plural forms, `--help` and the
 * CLI guide's option block (docs/guide/cli.md), `--lang` on every command, and the no-model message said once.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { streamAgent } from '../../src/agent/loop.js';
import type { RunResult } from '../../src/agent/types.js';
import { CLI_MESSAGES } from '../../src/cli/i18n.js';
import { footerLines } from '../../src/cli/render.js';
import { isLoopback } from '../../src/models/call-progress.js';
import { resolveModelSpec } from '../../src/models/spec.js';
import { readTrace } from '../../src/trace/trace.js';
import { cleanEnv, ROOT, runCli } from '../helpers/cli.js';
import { startFakeOpenAI } from '../helpers/fake-openai-server.js';
import { closedPort } from '../helpers/ports.js';
import { cliEnv, tempDir } from './support.js';

const HIDE_LLAMA_CPP = fileURLToPath(new URL('../models/fixtures/without-llama-cpp.mjs', import.meta.url));

/** How many times `part` occurs in `text`. */
const occurrences = (text: string, part: string) => text.split(part).length - 1;

test('a: a wrong tool in the config file names the file and its field; one in TAOLOOP_TOOLS names it', async () => {
  const project = tempDir('taoloop-config-tools-');
  const config = join(project, 'taoloop.config.json');
  await writeFile(config, JSON.stringify({ tools: ['calculator', 'calculater'], model: 'human' }));
  const fromFile = await runCli(['run', 'q'], { cwd: project, env: cliEnv().env });
  assert.equal(fromFile.code, 2, fromFile.stderr);
  assert.equal(
    fromFile.stderr,
    `taoloop: unknown tool "calculater" in the "tools" field of the config file ${config}. Available: calculator, search, wikipedia, read_file, run_tests, human.\n`,
  );
  assert.doesNotMatch(fromFile.stderr, /--tools/);
  const docs = join(project, 'docs.json');
  await writeFile(docs, JSON.stringify({ docs: '.', tools: 'calculator', model: 'human' }));
  const docsFromFile = await runCli(['run', 'q', '--config', docs], { cwd: project, env: cliEnv().env });
  assert.match(
    docsFromFile.stderr,
    /the "docs" field of the config file .*docs\.json is only used by the search/,
  );
  const fromEnv = await runCli(['run', 'q', '--model', 'human'], {
    env: cliEnv({ TAOLOOP_TOOLS: 'nope' }).env,
  });
  assert.equal(fromEnv.code, 2);
  assert.match(fromEnv.stderr, /^taoloop: unknown tool "nope" in TAOLOOP_TOOLS\. Available: /);
});

test("b: --lang pt puts taoloop's own errors in Portuguese", async () => {
  const project = tempDir('taoloop-config-pt-');
  await writeFile(join(project, 'taoloop.config.json'), JSON.stringify({ tools: 'nope' }));
  const human = ['--model', 'human', '--lang', 'pt'];
  // The command line, what it must say in Portuguese, and the English it must not say.
  const cases: [string[], RegExp, RegExp][] = [
    [
      ['run', 'q', '--tools', 'nope', ...human],
      /ferramenta desconhecida "nope" \(--tools\)\. Disponíveis:/,
      /unknown/,
    ],
    [
      ['run', 'q', ...human],
      /\(campo "tools" do arquivo de configuração .*taoloop\.config\.json\)/,
      /unknown|field/,
    ],
    [['run', 'q', '--tools', ',', ...human], /nenhuma ferramenta indicada \(--tools\)/, /names no tool/],
    [
      ['run', 'q', '--tools', 'calculator', '--docs', '.', ...human],
      /a pasta de documentos \(--docs\) só é usada/,
      /only used/,
    ],
    [
      ['run', 'q', '--allow', 'rm', ...human],
      /--allow "rm": não é uma ferramenta desta execução/,
      /not a tool/,
    ],
    [['run', 'q', '--max-cost', '1', ...human], /--max-cost precisa do preço de human/, /needs the price/],
    [
      ['run', 'q', '--config', 'missing.json', ...human],
      /configuração missing\.json não existe/,
      /does not exist/,
    ],
    [['run', 'q', '--trace', 'package.json/x.jsonl', ...human], /não é possível gravar o registro/, /cannot/],
    [['trace', 'nope', '--lang', 'pt'], /nenhum registro "nope": não é um arquivo/, /no trace/],
    [['replay', 'nope', '--lang', 'pt'], /nenhum registro "nope"/, /no trace/],
  ];
  for (const [argv, portuguese, english] of cases) {
    // The second case runs where the config file is; the others from the repository (package.json).
    const cwd = argv.length === human.length + 2 ? project : ROOT;
    const { code, stderr } = await runCli(argv, { cwd, env: cliEnv().env });
    assert.equal(code, 2, `${argv.join(' ')}: ${stderr}`);
    assert.match(stderr, portuguese, argv.join(' '));
    assert.doesNotMatch(stderr, english, argv.join(' '));
  }
  // TAOLOOP_LANG, for a command line without --lang.
  const fromEnv = await runCli(['run', 'q', '--tools', 'nope', '--model', 'human'], {
    env: cliEnv({ TAOLOOP_LANG: 'fr' }).env,
  });
  assert.match(fromEnv.stderr, /outil inconnu "nope" dans --tools\. Disponibles :/);
});

test('c: a refused connection to this machine fails at once, with no retry; the message says why', async () => {
  const port = await closedPort();
  for (const host of ['127.0.0.1', 'localhost']) {
    const model = `openai-compatible:http://${host}:${port}/v1#m`;
    const { env } = cliEnv();
    const run = await runCli(['run', 'q', '--model', model, '--json'], { env });
    assert.equal(run.code, 1, run.stderr);
    const result = JSON.parse(run.stdout) as { error: string; trace: string };
    assert.match(
      result.error,
      /cannot connect: connection refused \(127\.0\.0\.1:\d+\): nothing listens on that port of this machine \(not retried; is the server running\?\)/,
    );
    assert.doesNotMatch(result.error, /after \d attempts/);
    const events = readTrace(result.trace).events.map((e) => e.type);
    assert.ok(!events.includes('model-retry'), events.join(', '));
  }
  for (const local of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost', 'api.localhost'])
    assert.equal(isLoopback(local), true, local);
  for (const remote of ['10.0.0.1', '192.168.1.20', 'example.com', '::ffff:10.0.0.1', '128.0.0.1'])
    assert.equal(isLoopback(remote), false, remote);
});

test('c: a refused connection to another address is still retried', async (t) => {
  const address = Object.values(networkInterfaces())
    .flat()
    .find((i) => i?.family === 'IPv4' && !i.internal)?.address;
  if (address === undefined) return t.skip('no non-loopback IPv4 address on this machine');
  const port = await closedPort(address);
  const model = await resolveModelSpec(
    `openai-compatible:http://${address}:${port}/v1#m`,
    {},
    { maxRetries: 1 },
  );
  const run = streamAgent({ model, question: 'q', tools: [], modelSettings: { streaming: false } });
  const events: string[] = [];
  let next = await run.next();
  while (!next.done) {
    events.push(next.value.type);
    next = await run.next();
  }
  assert.equal(next.value.status, 'error');
  assert.match(next.value.error ?? '', /connection refused .*after 2 attempts/);
  assert.ok(events.includes('model-retry'), events.join(', '));
});

test('d: the footer counts steps in the singular and the plural, in every language', () => {
  const result = (steps: number) =>
    ({
      status: 'answered',
      steps: Array.from({ length: steps }, () => ({})),
      usage: { inputTokens: 1, outputTokens: 1 },
      costUsd: 0,
      durationMs: 100,
    }) as unknown as RunResult;
  const expected = {
    en: ['0 steps', '1 step ', '2 steps'],
    pt: ['0 passos', '1 passo ', '2 passos'],
    fr: ['0 étape ', '1 étape ', '2 étapes'],
    id: ['0 langkah', '1 langkah', '2 langkah'],
  } as const;
  for (const [lang, forms] of Object.entries(expected)) {
    for (const [count, form] of forms.entries()) {
      const footer = footerLines(result(count), CLI_MESSAGES[lang as keyof typeof expected]).join('\n');
      assert.ok(footer.includes(` ${form}`), `${lang} ${count}: ${footer}`);
    }
  }
});

test('e: --help shows each default once, and the option block of docs/guide/cli.md has every option of run', async () => {
  const { stdout } = await runCli(['run', '--help'], { env: cliEnv().env });
  const options = stdout.split('Options:\n')[1] ?? '';
  const blocks = options.split(/\n(?= {2}-)/);
  for (const block of blocks) assert.ok(occurrences(block, '(default:') <= 1, block);
  assert.match(options.replace(/\s+/g, ' '), /--fallback <spec> .*tried in order \(default: none\)/);
  const guide = readFileSync(join(ROOT, 'docs', 'guide', 'cli.md'), 'utf8');
  const block = guide.split('Options of `run`')[1]?.split('```')[1] ?? '';
  const flags = [...options.matchAll(/^ {2}(?:-\w, )?(--[\w-]+)/gm)].map((m) => m[1]!);
  assert.ok(flags.length > 20, flags.join(' '));
  for (const flag of flags.filter((f) => f !== '--help'))
    assert.match(block, new RegExp(`${flag}(?![\\w-])`), `${flag} in docs/guide/cli.md's option block`);
});

test('f: every command takes --lang', async () => {
  const { env } = cliEnv();
  const server = await startFakeOpenAI({ replies: ['Thought: easy.\nAnswer: 4'] });
  try {
    const run = await runCli(['run', 'q', '--model', `openai-compatible:${server.baseURL}#m`, '--json'], {
      env,
    });
    assert.equal(run.code, 0, run.stderr);
    const { trace } = JSON.parse(run.stdout) as { trace: string };
    const shown = await runCli(['trace', trace, '--lang', 'pt'], { env });
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /— respondida · 1 passo ·/);
    assert.match(shown.stdout, /^Thought: easy\.$/m, 'the labels stay as the run wrote them');
    for (const args of [['runs'], ['models', '--json'], ['replay', trace]]) {
      const result = await runCli([...args, '--lang', 'fr'], { env });
      assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
    }
    for (const command of ['eval', 'serve']) {
      const help = await runCli([command, '--help'], { env });
      assert.match(help.stdout, /--lang <code>/, command);
    }
  } finally {
    await server.close();
  }
});

test('g: the no-model message says each thing once', async () => {
  const offline = await runCli(['run', 'q'], { env: cliEnv().env });
  assert.equal(offline.code, 2);
  assert.match(
    offline.stderr,
    /not available: Cannot download the local model: TAOLOOP_OFFLINE=1 is set\.\n/,
  );
  for (const part of ['--model local:./model.gguf', 'openai-compatible:http://127.0.0.1:8080/v1#my-model'])
    assert.equal(occurrences(offline.stderr, part), 1, `${part} once in:\n${offline.stderr}`);
});

test('g: without node-llama-cpp, the no-model message gives the exact install command, once', async () => {
  const { spawn } = await import('node:child_process');
  const bin = fileURLToPath(new URL('../../bin/taoloop.js', import.meta.url));
  for (const lang of ['en', 'pt'] as const) {
    const child = spawn(process.execPath, ['--import', HIDE_LLAMA_CPP, bin, 'run', 'q', '--lang', lang], {
      cwd: ROOT,
      env: cleanEnv({ TAOLOOP_CACHE_DIR: tempDir() }),
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const code = await new Promise((resolve) => child.on('close', resolve));
    assert.equal(code, 2, stderr);
    assert.equal(occurrences(stderr, 'npm install node-llama-cpp@3.21.1'), 1, stderr);
    assert.match(
      stderr,
      lang === 'en'
        ? /^taoloop: no model is configured, and the embedded local model is not available: it needs node-llama-cpp, which is not installed: run `npm install node-llama-cpp@3\.21\.1`\nConfigure a model/
        : /^taoloop: nenhum modelo está configurado, .*: ele precisa do node-llama-cpp, que não está instalado: execute `npm install node-llama-cpp@3\.21\.1`\nEscolha um modelo/,
    );
    assert.doesNotMatch(stderr, /Cannot download|taoloop models` lists them/);
  }
});

test('7: the README links nothing outside the repository', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const targets = [...readme.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
  for (const target of targets) assert.ok(!/^\.\.\/|^\//.test(target), target);
  assert.doesNotMatch(readme, /\.\.\/shared|shared\/design/);
});
