/**
 * The `taoloop` command line. Commands load their dependencies lazily so `taoloop --help` stays fast:
 * this file imports only commander and the option definitions.
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { Command, CommanderError, Option } from 'commander';
import type { LabelLanguage } from '../react/labels.js';
import { registerEvalCommand } from './commands/eval.js';
import { registerServeCommand } from './commands/serve.js';
import { registerWorkerCommand } from './commands/worker.js';
import { EXIT, UsageError } from './errors.js';
import { inFlagNames } from './flag-names.js';
import { quitQuietlyWhenOutputCloses } from './interrupt.js';
import {
  addAgentOptions,
  addToolOptions,
  collect,
  messagesLangOption,
  positiveInt,
  type RunCommandOptions,
  rate,
} from './options.js';
import { safeText } from './safe-text.js';

/**
 * taoloop's version from its package.json: next to `dist/` when built, two folders up from `src/cli/`
 * when run from source. One small synchronous read, so `--help` stays fast.
 */
export function packageVersion(): string {
  for (const relative of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(relative, import.meta.url), 'utf8')) as {
        name?: unknown;
        version?: unknown;
      };
      if (pkg.name === 'taoloop' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // not this folder
    }
  }
  return 'unknown';
}

/** A command's options with the config file applied, and where its models read their API keys. */
interface ConfiguredOptions {
  options: RunCommandOptions;
  config: string | undefined;
  env: NodeJS.ProcessEnv;
  fallbackEnv: NodeJS.ProcessEnv;
}

/** Reads the config file into the command's options (below flags and environment). */
async function configured(
  command: Command,
  extra: Partial<RunCommandOptions> = {},
): Promise<ConfiguredOptions> {
  const [{ applyConfig }, { envForFoundConfigModel }] = await Promise.all([
    import('./config.js'),
    import('./config-trust.js'),
  ]);
  const config = applyConfig(command, process.cwd());
  const options = { ...command.opts<RunCommandOptions>(), ...extra, origins: origins(command, config?.file) };
  // A model endpoint named by a config file found in the current folder gets no API key unasked.
  const env =
    config?.found && options.model !== undefined && command.getOptionValueSource('model') === 'config'
      ? await envForFoundConfigModel(options.model, config.file, process.env)
      : process.env;
  // The same for fallback models named by a found config: any endpoint refused keeps the keys from all.
  let fallbackEnv = process.env;
  if (config?.found && command.getOptionValueSource('fallback') === 'config') {
    for (const spec of options.fallback ?? []) {
      const checked = await envForFoundConfigModel(spec, config.file, process.env);
      if (checked !== process.env) fallbackEnv = checked;
    }
  }
  return { options, config: config?.file, env, fallbackEnv };
}

/** Where the tool options came from when not from their flags: their variables, or the config file. */
function origins(command: Command, configFile: string | undefined): RunCommandOptions['origins'] {
  const found: NonNullable<RunCommandOptions['origins']> = {};
  for (const key of ['tools', 'docs', 'root', 'wikiCorpus'] as const) {
    const source = command.getOptionValueSource(key);
    const env = command.options.find((option) => option.attributeName() === key)?.envVar;
    if (source === 'config' && configFile !== undefined) found[key] = { configFile };
    else if (source === 'env' && env !== undefined) found[key] = { env };
  }
  return found;
}

/** Reads the config file into the command's options (below flags and environment), then runs. */
async function runWithConfig(
  command: Command,
  question: string,
  name: 'run' | 'ask',
  extra: Partial<RunCommandOptions> = {},
): Promise<number> {
  const [{ options, config, env, fallbackEnv }, { runCommand }] = await Promise.all([
    configured(command, extra),
    import('./commands/run.js'),
  ]);
  return runCommand(question, options, { command: name, config, env, fallbackEnv });
}

/**
 * The program. Commander's usage errors (code and English text) are not printed by commander but handed to
 * `onUsageError`, so `main` can print them in the command line's `--lang`; subcommands inherit this.
 */
function buildProgram(setExit: (code: number) => void, onUsageError: (printed: string) => void): Command {
  const program = new Command('taoloop')
    .description('ReAct agents: the model thinks and acts, taoloop runs the tools and reports what happened.')
    .version(packageVersion(), '-V, --version', 'print the version')
    .configureOutput({ outputError: onUsageError })
    .exitOverride();
  const run = program
    .command('run')
    .description('Answer a question with a ReAct agent, printing each Thought, Action and Observation.')
    .argument('<question>', 'the question or task')
    .option(
      '--continue <run>',
      'ask a follow-up to a recorded run (an id from `taoloop runs`, or last): its conversation goes to the model (default: none, a new conversation)',
    );
  addToolOptions(addAgentOptions(run)).action(async (question: string, _options, command: Command) => {
    setExit(await runWithConfig(command, question, 'run'));
  });

  const chat = program
    .command('chat')
    .description(
      'A conversation at the terminal: each question is a run with the earlier questions and answers as context, shown live like run. /new starts a new conversation, /exit or Ctrl-D leaves, Ctrl-C stops an answer. Each run is recorded, linked to the conversation (run --continue follows it up).',
    )
    .option(
      '--continue <run>',
      'go on with a recorded run or conversation (an id from `taoloop runs`, a conversation id, or last) (default: none, a new conversation)',
    );
  addToolOptions(addAgentOptions(chat)).action(async (_options, command: Command) => {
    const [{ options, config, env, fallbackEnv }, { chatCommand }] = await Promise.all([
      configured(command),
      import('./commands/chat.js'),
    ]);
    setExit(await chatCommand(options, { config, env, fallbackEnv }));
  });

  const ask = program
    .command('ask')
    .description(
      'Solve a problem together: the model reasons and asks you to do or check one thing at a time; you type what you observed (run --tools human).',
    )
    .argument('<question>', 'the problem, e.g. "Why is my laptop fan loud when it is idle?"');
  addAgentOptions(ask).action(async (question: string, _options, command: Command) => {
    const onlyHuman: Partial<RunCommandOptions> = {
      tools: 'human',
      allowUnsandboxed: false,
      yes: false,
      allow: [],
      mode: 'text',
    };
    setExit(await runWithConfig(command, question, 'ask', onlyHuman));
  });

  program
    .command('trace')
    .description('Print a recorded run as its transcript (Thought / Action / Observation / Answer).')
    .argument('<file>', 'a trace file, or a run id from `taoloop runs` (last: the newest run)')
    .addOption(messagesLangOption("the recorded run's"))
    .action(async (file: string, options: { lang?: LabelLanguage }) => {
      const { traceCommand } = await import('./commands/trace.js');
      setExit(traceCommand(file, options));
    });

  program
    .command('replay')
    .description(
      'Run the recorded model turns of a trace again against the real tools and report where the observations differ (exit 0 when identical, 1 when any differs). The trace is data: tools with side effects are asked about at the terminal (or allowed with --yes / --allow TOOL), and folders are given here.',
    )
    .argument('<file>', 'a trace file, or a run id from `taoloop runs` (last: the newest run)')
    .option(
      '-d, --docs <dir>',
      "the search tool's documents, when the trace used search (default: none; never the trace's folder)",
    )
    .option(
      '--root <dir>',
      "the folder for read_file and run_tests, when the trace used them (default: none; never the trace's folder)",
    )
    .option(
      '--wiki-corpus <file>',
      "the wikipedia corpus, when the trace used one (default: none; never the trace's file)",
    )
    .option('--allow-unsandboxed', 'let run_tests run without bubblewrap (never taken from the trace)', false)
    .option(
      '-y, --yes',
      'approve every tool call with side effects without asking (never taken from the trace)',
      false,
    )
    .option(
      '--allow <tool>',
      'approve this tool without asking, repeatable (never taken from the trace)',
      collect,
      [],
    )
    .option('--json', 'print one JSON report on stdout and nothing else', false)
    .addOption(messagesLangOption("the recorded run's"))
    .action(async (file: string, options) => {
      const { replayCommand } = await import('./commands/replay.js');
      setExit(await replayCommand(file, options));
    });

  const testing = program
    .command('test')
    .description(
      "Tests for your agent. Recorded runs (trace files or folders): replay each against today's tools, prompt and parser and show what diverged (exit 0 only when nothing did; --update accepts today's behaviour). A cases file (JSONL): run each case --repeats k times against --model and report pass^k, cost per task and latency (--min-pass makes it a CI gate).",
    )
    .argument('<paths...>', 'trace files, folders of traces, or cases files (JSONL)')
    .option('--update', "accept today's behaviour: rewrite each trace that diverged with today's run", false)
    .option(
      '--mask <tool=regex>',
      "ignore volatile output of a tool when comparing observations, e.g. 'clock=\\d\\d:\\d\\d' (* for every tool; repeatable)",
      collect,
      [],
    )
    .option(
      '--agent <module>',
      "a JavaScript module whose default export is your agent's options (tools, instructions, ...), or a function returning them; its `scorers` export names scorers for cases (default: the built-in tools, as taoloop run)",
    )
    .addOption(new Option('--repeats <k>', 'tries per case (k of pass^k)').default(1).argParser(positiveInt))
    .addOption(
      new Option('--concurrency <n>', 'tries run at the same time').default(4).argParser(positiveInt),
    )
    .option(
      '--out <dir>',
      'folder for results.jsonl, report.md, report.json, chart.svg, junit.xml and traces',
      'taoloop-test',
    )
    .addOption(
      new Option('--min-pass <rate>', 'exit 1 when pass^k is below this rate (0 to 1)').argParser(rate),
    )
    .option('--compare-model <spec>', 'run the cases against this model too and compare, paired per case')
    .option(
      '--compare <dir>',
      'compare with the results of an earlier run (another model or prompt), paired per case',
    )
    .option('--junit <file>', 'also write the JUnit XML report here');
  addToolOptions(addAgentOptions(testing)).action(async (paths: string[], _options, command: Command) => {
    const [{ options, config, env }, { testCommand }] = await Promise.all([
      configured(command),
      import('./commands/test.js'),
    ]);
    const given = new Set(
      command.options
        .map((option) => option.attributeName())
        .filter((key) => {
          const source = command.getOptionValueSource(key);
          return source !== undefined && source !== 'default';
        }),
    );
    const onCommandLine = new Set(
      command.options
        .map((option) => option.attributeName())
        .filter((key) => command.getOptionValueSource(key) === 'cli'),
    );
    setExit(
      await testCommand(paths, options as never, { cwd: process.cwd(), env, config, given, onCommandLine }),
    );
  });

  program
    .command('runs')
    .description('List recent runs, newest first: time, question, model, status, steps, tokens, cost, id.')
    .addHelpText(
      'after',
      '\nRuns are kept in .taoloop/runs/ when that folder exists in the current folder, else in\n$TAOLOOP_CACHE_DIR/runs, $XDG_CACHE_HOME/taoloop/runs or ~/.cache/taoloop/runs.',
    )
    .addOption(new Option('-n, --limit <n>', 'how many runs to list').default(20).argParser(positiveInt))
    .option('--json', 'print the list as JSON', false)
    .addOption(messagesLangOption())
    .action(async (options: { limit: number; json: boolean }) => {
      const { runsCommand } = await import('./commands/runs.js');
      setExit(runsCommand(options));
    });
  program
    .command('models')
    .description(
      'Show which model a run would use and why: --model, $TAOLOOP_MODEL, a provider API key, a local Ollama, the embedded model.',
    )
    .option('-m, --model <spec>', 'a model spec to check (as run --model)')
    .option('--json', 'print the candidates and the choice as JSON', false)
    .addOption(messagesLangOption())
    .action(async (options: { model?: string; json: boolean }) => {
      const { describeModelChoices, formatModelChoices } = await import('../models/choose.js');
      const description = await describeModelChoices({
        ...(options.model !== undefined && { flag: options.model }),
        env: process.env,
      });
      process.stdout.write(
        options.json ? `${JSON.stringify(description, null, 2)}\n` : `${formatModelChoices(description)}\n`,
      );
      setExit(0);
    });
  // Commands of other parts of taoloop (the playground, evaluations, the durable worker) register themselves.
  registerServeCommand(program, setExit);
  registerEvalCommand(program, setExit);
  registerWorkerCommand(program, setExit);
  return program;
}

/**
 * Runs the CLI on `argv` (as in `process.argv`) and returns the exit code: 0 answered (or done), 1 the
 * run ended without an answer or failed, 2 bad usage or no model configured. Never throws: an unexpected
 * error is reported in one line (the stack with `TAOLOOP_DEBUG=1`).
 */
export async function main(argv: readonly string[]): Promise<number> {
  let code: number = EXIT.answered;
  // `taoloop … | head -1`: the reader leaving is no error worth a stack trace.
  quitQuietlyWhenOutputCloses();
  // What commander would have printed for a usage error (unknown option, missing argument, ...).
  let usageError: string | undefined;
  const program = buildProgram(
    (c) => {
      code = c;
    },
    (printed) => {
      usageError = printed;
    },
  );
  try {
    await program.parseAsync([...argv]);
    return code;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (usageError !== undefined) {
        // In the --lang of the command line (or TAOLOOP_LANG); English exactly as commander says it.
        const [{ CLI_MESSAGES, languageOf }, { usageErrorText }] = await Promise.all([
          import('./i18n.js'),
          import('./usage-errors.js'),
        ]);
        const messages = CLI_MESSAGES[languageOf(argv)];
        process.stderr.write(usageErrorText(messages, CLI_MESSAGES.en, error.code, usageError));
      }
      // --help and --version exit 0; commander has printed the help (to stderr when it is an error).
      return error.exitCode === 0 ? 0 : EXIT.usage;
    }
    if (error instanceof UsageError) {
      // In the --lang of the command line (or TAOLOOP_LANG) when the message has a translation.
      const { CLI_MESSAGES, languageOf, localize } = await import('./i18n.js');
      const text =
        error.localized === undefined
          ? error.message
          : localize(CLI_MESSAGES[languageOf(argv)].errors, error.localized);
      process.stderr.write(`taoloop: ${safeText(error.literal ? text : inFlagNames(text))}\n`);
      return EXIT.usage;
    }
    const debug = Boolean(process.env.TAOLOOP_DEBUG);
    const detail = inFlagNames(
      error instanceof Error ? (debug ? (error.stack ?? error.message) : error.message) : String(error),
    );
    // In the --lang of the command line (or TAOLOOP_LANG).
    const { CLI_MESSAGES, fill, languageOf } = await import('./i18n.js');
    const messages = CLI_MESSAGES[languageOf(argv)];
    // The message may quote a model server or a tool.
    process.stderr.write(
      `taoloop: ${fill(messages.runFailed, { detail: safeText(detail) })}\n${debug ? '' : `${messages.debugHint}\n`}`,
    );
    return EXIT.noAnswer;
  }
}
