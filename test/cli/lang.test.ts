/**
 * `--lang` covers what the CLI itself says: statuses, the footer, why there is no answer, notes such as a
 * rejected tool call, the approval prompt, usage errors and the no-model message. Each language is run
 * against a local OpenAI-compatible server and its output is searched for English words; English itself
 * is run through the same check, which must find them (so the check can fail).
 *
 * What the model and the tools wrote (thought, action, answer and observation lines) is left out of the
 * search: it is not the CLI's words.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { languageOf } from '../../src/cli/i18n.js';
import { LABEL_SETS, type LabelLanguage } from '../../src/react/labels.js';
import { ROOT, runCli } from '../helpers/cli.js';
import { startFakeOpenAI } from '../helpers/fake-openai-server.js';
import { spawnPty } from '../helpers/pty.js';
import { cliEnv } from './support.js';

const BIN = fileURLToPath(new URL('../../bin/taoloop.js', import.meta.url));

/** English words of the CLI's statuses, footer, notes, prompts and errors. */
const ENGLISH = [
  'answered',
  'max_steps',
  'format_errors',
  'repeated_action',
  'budget',
  'aborted',
  'error',
  'paused',
  'steps',
  'tokens',
  'unknown',
  'in',
  'out',
  'cost',
  'price',
  'no answer',
  'the run',
  'trace',
  'rejected',
  'approved',
  'by the user',
  'no terminal',
  'rerun',
  'allow it',
  'wants to run',
  'effects',
  'please answer',
  'new input',
  'trying',
  'failed',
  'unusable',
  'dropped',
  'the question',
  'is empty',
  'example',
  'configure',
  'configured',
  'not available',
  'environment variable',
  'without',
  'would be chosen',
];

/** Words of the language itself that are spelled like an English word above. */
const OWN_WORDS: Partial<Record<LabelLanguage, string[]>> = {
  // Portuguese says "tokens"; French says "budget" and "trace".
  pt: ['tokens'],
  fr: ['budget', 'trace'],
};

const LANGS: LabelLanguage[] = ['pt', 'fr', 'id'];

/** The English words found in the CLI's own lines of `output` (paths and the model's and tools' lines left out). */
function englishIn(output: string, lang: LabelLanguage): string[] {
  const labels = LABEL_SETS[lang];
  const modelLines = [...labels.thought, ...labels.action, ...labels.answer, ...labels.observation];
  const own = new Set(OWN_WORDS[lang] ?? []);
  const found = new Set<string>();
  for (const raw of output.replace(/\r/g, '').split('\n')) {
    const line = raw.trim();
    if (modelLines.some((label) => line.startsWith(`${label}:`) || line.startsWith(`${label} :`))) continue;
    // Paths, URLs, flags, variables and model specs are the same in every language.
    const words = line
      .replace(/\S*[/\\]\S*/g, ' ')
      .replace(/--[a-z-]+|\b[A-Z][A-Z0-9_]{2,}\b/g, ' ')
      .toLowerCase();
    for (const word of ENGLISH)
      if (!own.has(word) && new RegExp(`(^|[^\\p{L}_])${word}($|[^\\p{L}_])`, 'u').test(words))
        found.add(`${word} (in: ${line})`);
  }
  return [...found];
}

let project: string;
before(async () => {
  project = await mkdtemp(join(tmpdir(), 'taoloop-lang-'));
  await writeFile(join(project, 'math.test.js'), "import test from 'node:test';\ntest('adds', () => {});\n");
});
after(() => rm(project, { recursive: true, force: true }));

/** Runs every situation once in `lang` against the local server and returns all that was printed. */
async function everything(lang: LabelLanguage): Promise<string> {
  const server = await startFakeOpenAI({
    // An action first (a tool with side effects when the run has run_tests), then the answer.
    replies: (request) => {
      const first = request.messages.length <= 2;
      if (!first) return 'Thought: 4.\nAnswer: 4';
      return JSON.stringify(request.messages[0]).includes('run_tests')
        ? 'Thought: 1.\nAction: run_tests[math.test.js]'
        : 'Thought: 2 + 2.\nAction: calculator[2 + 2]';
    },
    usage: { promptTokens: 1000, completionTokens: 100 },
  });
  try {
    const model = `openai-compatible:${server.baseURL}#m`;
    const base = ['--lang', lang, '--model', model];
    const outputs: string[] = [];
    const run = async (args: string[], expectedCode: number, env = cliEnv().env) => {
      const { code, stdout, stderr } = await runCli(args, { env });
      assert.equal(code, expectedCode, `${args.join(' ')}\n${stdout}${stderr}`);
      outputs.push(stdout, stderr);
      return stdout + stderr;
    };
    // Answered, streamed and not; cost unknown, then known.
    await run(['run', 'q', ...base], 0);
    await run(['run', 'q', ...base, '--no-stream', '--price', '10/10'], 0);
    // Out of budget: the reason and the status.
    const budget = await run(['run', 'q', ...base, '--price', '10/10', '--max-cost', '0.005'], 1);
    assert.doesNotMatch(budget, /^\S+: 4$/m, 'no answer');
    // A tool with side effects and no terminal to ask at: rejected, saying so.
    await run(['run', 'q', ...base, '--tools', 'run_tests', '--root', project], 0);
    // Usage errors: an empty question; no model configured (offline, no key, no Ollama).
    await run(['run', ' ', ...base], 2);
    const noModel = await run(['run', 'q', '--lang', lang], 2);
    // The library's reason (the download cannot be made) is quoted as it is; only the CLI's words count.
    outputs.pop();
    outputs.push(noModel.replace(/: Cannot download the local model: .*$/m, ':'));
    // The approval prompt at a terminal, answered "no" in the language.
    const pty = spawnPty(
      process.execPath,
      [BIN, 'run', 'q', ...base, '--tools', 'run_tests', '--root', project],
      {
        cwd: ROOT,
        env: cliEnv().env,
      },
    );
    await pty.waitFor(/\[e\]|\[m\]|\[u\]/);
    pty.type(`${lang === 'pt' ? 'não' : lang === 'fr' ? 'non' : lang === 'id' ? 'tidak' : 'no'}\r`);
    assert.equal(await pty.exited, 0, pty.output());
    outputs.push(pty.output());
    return outputs.join('\n');
  } finally {
    await server.close();
  }
}

test('the check finds English words in an English run (so it can fail)', async () => {
  const found = englishIn(await everything('en'), 'en');
  for (const word of ['answered', 'steps', 'tokens', 'cost', 'budget', 'rejected', 'allow it', 'configure'])
    assert.ok(
      found.some((f) => f.startsWith(`${word} (`)),
      `expected "${word}" among ${found.join('\n')}`,
    );
});

for (const lang of LANGS) {
  test(`--lang ${lang}: no English word in statuses, footer, notes, approval prompt or errors`, async () => {
    const output = await everything(lang);
    assert.deepEqual(englishIn(output, lang), [], output);
  });
}

test('messages printed before the options are read follow --lang or TAOLOOP_LANG', () => {
  assert.equal(languageOf(['node', 'taoloop', 'run', 'q', '--lang', 'fr'], {}), 'fr');
  assert.equal(languageOf(['node', 'taoloop', 'run', '--lang=id', 'q'], { TAOLOOP_LANG: 'pt' }), 'id');
  assert.equal(languageOf(['node', 'taoloop', 'run', 'q'], { TAOLOOP_LANG: 'pt' }), 'pt');
  assert.equal(languageOf(['node', 'taoloop', 'run', 'q', '--lang', 'xx'], {}), 'en');
});
