/**
 * `--lang` covers what the CLI itself says: statuses, the footer, why there is no answer, notes such as a
 * rejected tool call, the approval prompt, usage errors and the no-model message. Each language is run
 * against a local OpenAI-compatible server and its output is searched for English words; English itself
 * is run through the same check, which must find them (so the check can fail).
 *
 * What the model and the tools wrote (thought, action, answer and observation lines) is left out of the
 * search: it is not the CLI's words.
 *
 * Commander's own usage errors (unknown option or command, missing argument or value, invalid value or
 * choice, too many arguments) are run in each language too: no English word, the names and commander's
 * suggestion kept; in English byte for byte what commander printed before.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CLI_MESSAGES, languageOf } from '../../src/cli/i18n.js';
import { usageErrorText } from '../../src/cli/usage-errors.js';
import { LABEL_SETS, type LabelLanguage } from '../../src/react/labels.js';
import { cleanEnv, ROOT, runCli } from '../helpers/cli.js';
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

/** English words of commander's usage errors and the option parsers' reasons. */
const USAGE_ENGLISH = [
  ...ENGLISH,
  'option',
  'command',
  'argument',
  'arguments',
  'missing',
  'required',
  'did you mean',
  'one of',
  'too many',
  'expected',
  'got',
  'allowed choices',
  'invalid',
  'value',
  'from env',
  'whole number',
  'duration',
  'amount',
  'such as',
  'seconds',
  'per million',
  'port',
  'usage',
];

/** Usage-error words of the language itself that are spelled like an English word above. */
const OWN_USAGE_WORDS: Partial<Record<LabelLanguage, string[]>> = {
  fr: ['option', 'argument', 'arguments', 'port'],
  id: ['port'],
};

/** The English words found in the CLI's own lines of `output` (paths and the model's and tools' lines left out). */
function englishIn(output: string, lang: LabelLanguage, english: readonly string[] = ENGLISH): string[] {
  const labels = LABEL_SETS[lang];
  const modelLines = [...labels.thought, ...labels.action, ...labels.answer, ...labels.observation];
  const own = new Set([
    ...(OWN_WORDS[lang] ?? []),
    ...(english === ENGLISH ? [] : (OWN_USAGE_WORDS[lang] ?? [])),
  ]);
  const found = new Set<string>();
  for (const raw of output.replace(/\r/g, '').split('\n')) {
    const line = raw.trim();
    if (modelLines.some((label) => line.startsWith(`${label}:`) || line.startsWith(`${label} :`))) continue;
    // Paths, URLs, flags and their <placeholders>, variables and model specs are the same in every language.
    const words = line
      .replace(/<[\w-]+>/g, ' ')
      .replace(/\S*[/\\]\S*/g, ' ')
      .replace(/--[a-z-]+|\b[A-Z][A-Z0-9_]{2,}\b/g, ' ')
      .toLowerCase();
    for (const word of english)
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

/**
 * Commander's usage errors: `args` (run with `--lang` added, or `TAOLOOP_LANG` where the command has no
 * `--lang`), the English output exactly as commander printed it before, and the names each language must
 * keep (option, suggestion, value, counts).
 */
const USAGE_CASES: {
  args: string[];
  env?: Record<string, string>;
  viaEnv?: boolean;
  english: string;
  keep: string[];
}[] = [
  {
    args: ['run', 'q', '--nope'],
    english: "error: unknown option '--nope'\n(Did you mean --mode?)\n(run with --help for usage)\n",
    keep: ["'--nope'", '--mode'],
  },
  {
    args: ['run', 'q', '--modle', 'x'],
    english:
      "error: unknown option '--modle'\n(Did you mean one of --mode, --model?)\n(run with --help for usage)\n",
    keep: ["'--modle'", '--mode, --model'],
  },
  {
    args: ['run', 'q', '-z'],
    english: "error: unknown option '-z'\n(run with --help for usage)\n",
    keep: ["'-z'"],
  },
  {
    args: ['run'],
    english: "error: missing required argument 'question'\n(run with --help for usage)\n",
    keep: ["'question'"],
  },
  {
    args: ['run', 'q', '--max-steps'],
    english: "error: option '--max-steps <n>' argument missing\n(run with --help for usage)\n",
    keep: ["'--max-steps <n>'"],
  },
  {
    args: ['run', 'q', '--mode', 'bogus'],
    english:
      "error: option '--mode <mode>' argument 'bogus' is invalid. Allowed choices are text, native, auto.\n(run with --help for usage)\n",
    keep: ["'--mode <mode>'", "'bogus'", 'text, native, auto'],
  },
  {
    args: ['run', 'q', '--max-steps', '0'],
    english:
      "error: option '--max-steps <n>' argument '0' is invalid. expected a whole number ≥ 1, got \"0\".\n(run with --help for usage)\n",
    keep: ["'--max-steps <n>'", '≥ 1', '"0"'],
  },
  {
    args: ['run', 'q', '--timeout', 'soon'],
    english:
      "error: option '--timeout <duration>' argument 'soon' is invalid. expected a duration such as 90s, 2m, 500ms or a number of seconds, got \"soon\".\n(run with --help for usage)\n",
    keep: ['90s, 2m, 500ms', '"soon"'],
  },
  {
    args: ['run', 'q', '--price', 'cheap', '--max-cost', '1'],
    english:
      "error: option '--price <in/out>' argument 'cheap' is invalid. expected the input and output prices in USD per million tokens, as IN/OUT such as 0.15/0.60, got \"cheap\".\n(run with --help for usage)\n",
    keep: ['0.15/0.60', '"cheap"'],
  },
  {
    args: ['run', 'q', '--max-cost', 'free'],
    english:
      "error: option '--max-cost <usd>' argument 'free' is invalid. expected an amount in USD above 0 such as 0.50, got \"free\".\n(run with --help for usage)\n",
    keep: ['0.50', '"free"'],
  },
  {
    args: ['run', 'q'],
    env: { TAOLOOP_MODE: 'bogus' },
    english:
      "error: option '--mode <mode>' value 'bogus' from env 'TAOLOOP_MODE' is invalid. Allowed choices are text, native, auto.\n(run with --help for usage)\n",
    keep: ["'bogus'", 'TAOLOOP_MODE'],
  },
  {
    args: ['run', 'q', 'r'],
    english:
      "error: too many arguments for 'run'. Expected 1 argument but got 2.\n(run with --help for usage)\n",
    keep: ["'run'", '1', '2'],
  },
  {
    args: ['runs', 'extra'],
    viaEnv: true,
    english:
      "error: too many arguments for 'runs'. Expected 0 arguments but got 1.\n(run with --help for usage)\n",
    keep: ["'runs'", '0', '1'],
  },
  {
    args: ['serve', '--port', 'x'],
    viaEnv: true,
    english:
      "error: option '-p, --port <n>' argument 'x' is invalid. expected a port from 0 to 65535, got \"x\".\n(run with --help for usage)\n",
    keep: ['65535', '"x"'],
  },
  {
    args: ['rnu'],
    viaEnv: true,
    english: "error: unknown command 'rnu'\n(Did you mean run?)\n(run with --help for usage)\n",
    keep: ["'rnu'", ' run'],
  },
  {
    // --lang is an option of the commands, not of taoloop itself: still the language asked for.
    args: ['--lang', 'LANG', 'run'],
    english: "error: unknown option '--lang'\n(run with --help for usage)\n",
    keep: ["'--lang'"],
  },
];

/** Runs every usage case in `lang` (English: without --lang or TAOLOOP_LANG); each must exit 2. */
async function usageErrors(
  lang: LabelLanguage,
): Promise<{ args: string[]; stdout: string; stderr: string }[]> {
  return Promise.all(
    USAGE_CASES.map(async ({ args, env, viaEnv }) => {
      const argv = args.includes('LANG')
        ? args.map((a) => (a === 'LANG' ? lang : a))
        : lang === 'en' || viaEnv
          ? args
          : [...args, '--lang', lang];
      const extra = { ...env, ...(lang !== 'en' && viaEnv && { TAOLOOP_LANG: lang }) };
      const { code, stdout, stderr } = await runCli(argv, { env: cleanEnv(extra) });
      assert.equal(code, 2, `${argv.join(' ')}\n${stdout}${stderr}`);
      return { args: argv, stdout, stderr };
    }),
  );
}

test("commander's usage errors in English are exactly as before (and the check finds their words)", async () => {
  const results = await usageErrors('en');
  for (const [i, { args, stdout, stderr }] of results.entries()) {
    assert.equal(stderr, USAGE_CASES[i]!.english, args.join(' '));
    assert.equal(stdout, '');
  }
  const found = englishIn(results.map((r) => r.stderr).join('\n'), 'en', USAGE_ENGLISH);
  for (const word of ['unknown', 'option', 'did you mean', 'missing', 'invalid', 'too many', 'usage'])
    assert.ok(
      found.some((f) => f.startsWith(`${word} (`)),
      `expected "${word}" among ${found.join('\n')}`,
    );
});

for (const lang of LANGS) {
  test(`--lang ${lang}: commander's usage errors in the language, with the names and suggestions kept`, async () => {
    const results = await usageErrors(lang);
    for (const [i, { args, stdout, stderr }] of results.entries()) {
      assert.equal(stdout, '');
      assert.deepEqual(englishIn(stderr, lang, USAGE_ENGLISH), [], `${args.join(' ')}\n${stderr}`);
      for (const name of USAGE_CASES[i]!.keep) assert.ok(stderr.includes(name), `${name} in ${stderr}`);
      assert.equal(stderr.split('\n').length, USAGE_CASES[i]!.english.split('\n').length, stderr);
    }
  });
}

test('a commander error of another shape is printed as commander wrote it, with the hint in the language', () => {
  const { pt, en } = CLI_MESSAGES;
  assert.equal(
    usageErrorText(
      pt,
      en,
      'commander.conflictingOption',
      "error: option '--a' cannot be used with option '--b'\n",
    ),
    "error: option '--a' cannot be used with option '--b'\n(use --help para ver como usar)\n",
  );
  // A command's argument refused by its parser (no taoloop command has one yet).
  assert.equal(
    usageErrorText(
      pt,
      en,
      'commander.invalidArgument',
      "error: command-argument value 'x' is invalid for argument 'n'. expected a whole number ≥ 1, got \"x\".\n",
    ),
    "erro: o valor 'x' do argumento 'n' não é válido. esperava um número inteiro ≥ 1, recebeu \"x\".\n(use --help para ver como usar)\n",
  );
  // Names from the command line are printed with their control characters escaped.
  assert.match(
    usageErrorText(pt, en, 'commander.unknownOption', "error: unknown option '--\x1b[2Jx'\n"),
    /'--\\x1b\[2Jx'/,
  );
});

test('every language has the same usage-error keys', () => {
  const keys = Object.keys(CLI_MESSAGES.en.usage).sort();
  for (const lang of LANGS) assert.deepEqual(Object.keys(CLI_MESSAGES[lang].usage).sort(), keys, lang);
});
