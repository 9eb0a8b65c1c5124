/**
 * The `taoloop` command line. Commands load their dependencies lazily so `taoloop --help` stays fast.
 *
 * @module
 */
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import type { LabelLanguage } from '../react/labels.js';
import { EXIT, UsageError } from './errors.js';
import { CLI_TOOLS } from './tools.js';

/** Collects a repeatable option into a list. */
function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** Parses a positive integer option value. */
function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new InvalidArgumentError(`expected a whole number ≥ 1, got "${value}".`);
  return n;
}

/** Options of `taoloop run`, as commander parses them. */
export interface RunCommandOptions {
  model?: string;
  tools?: string;
  docs?: string;
  root?: string;
  wikiCorpus?: string;
  allowUnsandboxed: boolean;
  yes: boolean;
  allow: string[];
  mode: 'text' | 'native' | 'auto';
  maxSteps: number;
  json: boolean;
  stream: boolean;
  lang: LabelLanguage;
}

function buildProgram(setExit: (code: number) => void): Command {
  const program = new Command('taoloop')
    .description('ReAct agents: the model thinks and acts, taoloop runs the tools and reports what happened.')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  program
    .command('run')
    .description('Answer a question with a ReAct agent, printing each Thought, Action and Observation.')
    .argument('<question>', 'the question or task')
    .option(
      '-m, --model <spec>',
      'model: openai-compatible:<base-url>#<model>, openai:<model>, anthropic:<model>, google:<model>, ollama:<model> (default: $TAOLOOP_MODEL, then the first provider whose API key is set)',
    )
    .option(
      '-t, --tools <list>',
      `comma-separated tools: ${Object.keys(CLI_TOOLS).join(', ')} (default: calculator, plus search when --docs is given)`,
    )
    .option('-d, --docs <dir>', 'folder of .md/.txt/.json/.jsonl documents for the search tool')
    .option('--root <dir>', 'folder that read_file and run_tests work in (they refuse anything outside it)')
    .option(
      '--wiki-corpus <file>',
      'JSONL of {title, text} pages for the wikipedia tool, instead of the live API',
    )
    .option('--allow-unsandboxed', 'let run_tests run without bubblewrap (not recommended)', false)
    .option('-y, --yes', 'approve every tool call with side effects without asking', false)
    .option('--allow <tool>', 'approve this tool without asking (repeatable)', collect, [])
    .addOption(
      new Option(
        '--mode <mode>',
        'text: the ReAct text protocol; native: provider tool calling; auto: native where supported',
      )
        .choices(['text', 'native', 'auto'])
        .default('text'),
    )
    .addOption(
      new Option('--max-steps <n>', 'steps before the run stops without an answer')
        .default(8)
        .argParser(positiveInt),
    )
    .addOption(
      new Option(
        '--lang <code>',
        'protocol labels: en (Thought/Action/Observation/Answer), pt, fr or id; English labels are always accepted',
      )
        .choices(['en', 'pt', 'fr', 'id'])
        .default('en'),
    )
    .option('--json', 'print one JSON result on stdout and nothing else', false)
    .option('--no-stream', 'wait for each complete model turn instead of streaming it')
    .action(async (question: string, options: RunCommandOptions) => {
      const { runCommand } = await import('./run.js');
      setExit(await runCommand(question, options));
    });
  return program;
}

/**
 * Runs the CLI on `argv` (as in `process.argv`) and returns the exit code: 0 answered, 1 the run ended
 * without an answer, 2 bad usage or no model configured.
 */
export async function main(argv: readonly string[]): Promise<number> {
  let code: number = EXIT.answered;
  const program = buildProgram((c) => {
    code = c;
  });
  try {
    await program.parseAsync([...argv]);
    return code;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version exit 0; commander has already printed the message.
      return error.exitCode === 0 ? 0 : EXIT.usage;
    }
    if (error instanceof UsageError) {
      process.stderr.write(`taoloop: ${error.message}\n`);
      return EXIT.usage;
    }
    throw error;
  }
}
