/**
 * The options of `taoloop run` and `taoloop ask`: value parsers and their definitions. Every option shows
 * its default and, where it has one, its environment variable in `--help`; commander applies flags over
 * environment variables, and `config.ts` fills in the config file below both.
 *
 * @module
 */
import { type Command, InvalidArgumentError, Option } from 'commander';
import type { ModelPrice, PriceTable } from '../models/pricing.js';
import type { LabelLanguage } from '../react/labels.js';
import { CLI_TOOLS, type CliToolOptions } from './tools.js';

/** Options of `taoloop run` (and of `taoloop ask`, which has a subset), as parsed. */
export interface RunCommandOptions {
  model?: string;
  /** `run --continue <id|last>`: the recorded run this question follows up. */
  continue?: string;
  /** Model specs that take a call the model before them failed (`--fallback`, repeatable). */
  fallback?: string[];
  tools?: string;
  docs?: string;
  root?: string;
  wikiCorpus?: string;
  allowUnsandboxed: boolean;
  yes: boolean;
  allow: string[];
  mode: 'text' | 'native' | 'auto';
  maxSteps: number;
  /** USD. */
  maxCost?: number;
  /** `--price IN/OUT`: the price of the run's `--model`, USD per million input / output tokens. */
  price?: ModelPrice;
  /** The config file's `prices`: model name (or prefix, or full spec) → price, over the built-in table. */
  prices?: PriceTable;
  /** Milliseconds. */
  timeout?: number;
  /** Milliseconds per model call. */
  modelTimeout?: number;
  /** Tokens per model turn. */
  maxOutputTokens?: number;
  lang: LabelLanguage;
  system?: string;
  examples?: string;
  trace?: string;
  config?: string;
  json: boolean;
  stream: boolean;
  /** `--hide-reasoning`: leave the model's reasoning off the screen (it stays in the trace). */
  hideReasoning?: boolean;
  /** Where the tool options came from when not from their flags (set by `main`), for messages. */
  origins?: CliToolOptions['origins'];
}

/** Options of `taoloop worker`, as commander parses them. */
export interface WorkerCommandOptions
  extends Pick<
    RunCommandOptions,
    | 'model'
    | 'maxSteps'
    | 'lang'
    | 'tools'
    | 'docs'
    | 'root'
    | 'wikiCorpus'
    | 'allowUnsandboxed'
    | 'yes'
    | 'allow'
    | 'mode'
  > {
  restate: boolean;
  /** Milliseconds per attempt of a model call (`--model-timeout`, `TAOLOOP_MODEL_TIMEOUT`). */
  modelTimeout: number;
  /** Tokens per model turn (`--max-output-tokens`); the client-side cut of a turn follows it. */
  maxOutputTokens: number;
  port: number;
  host: string;
  replicas: number;
  name?: string;
  register?: string;
}

/** Collects a repeatable option into a list. */
export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** Parses a whole number ≥ 1 written in plain digits (`1e3`, `0x10`, `+5`, ` 5` and unsafe integers are refused). */
export function positiveInt(value: string): number {
  const n = Number(value);
  if (!/^[0-9]+$/.test(value) || !Number.isSafeInteger(n) || n < 1)
    throw new InvalidArgumentError(`expected a whole number ≥ 1, got "${value}".`);
  return n;
}

/** Parses a port number, 0 to 65535, written in plain digits. */
export function portNumber(value: string): number {
  const n = Number(value);
  if (!/^[0-9]+$/.test(value) || n > 65535)
    throw new InvalidArgumentError(`expected a port from 0 to 65535, got "${value}".`);
  return n;
}

/** The default of `--model-timeout`: two minutes. */
export const DEFAULT_MODEL_TIMEOUT_MS = 120_000;
/** The default of `--max-output-tokens`. */
export const DEFAULT_MAX_OUTPUT_TOKENS = 2048;

/** A rate from 0 to 1, such as `0.9` for `--min-pass`. */
export function rate(value: string): number {
  const n = Number(value.trim());
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1) {
    throw new InvalidArgumentError(`expected a rate from 0 to 1, such as 0.9; got "${value}".`);
  }
  return n;
}

/** Parses an amount of US dollars: `0.5`, `$2`. */
export function usd(value: string): number {
  const match = /^\s*\$?\s*(\d+(?:\.\d+)?|\.\d+)\s*$/.exec(value);
  const n = match ? Number(match[1]) : Number.NaN;
  if (!(n > 0))
    throw new InvalidArgumentError(`expected an amount in USD above 0 such as 0.50, got "${value}".`);
  return n;
}

const AMOUNT = String.raw`\$?\s*(\d+(?:\.\d+)?|\.\d+)`;
const PRICE_PAIR = new RegExp(String.raw`^\s*${AMOUNT}\s*/\s*${AMOUNT}\s*$`);

/**
 * Parses `--price IN/OUT`: USD per million input tokens, a slash, USD per million output tokens
 * (`0.15/0.60`, `$3/$15`, `0/0` for a free local server).
 */
export function pricePair(value: string): ModelPrice {
  const match = PRICE_PAIR.exec(value);
  if (!match)
    throw new InvalidArgumentError(
      `expected the input and output prices in USD per million tokens, as IN/OUT such as 0.15/0.60, got "${value}".`,
    );
  return { inputUsdPerMTok: Number(match[1]), outputUsdPerMTok: Number(match[2]) };
}

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * Parses a duration into milliseconds: `500ms`, `90s`, `2m`, `1.5h`, or a plain number of seconds (`90`).
 * Seconds are the default unit because that is what people type for a whole run.
 */
export function durationMs(value: string): number {
  const match = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*(ms|s|m|h)?\s*$/.exec(value);
  const ms = match ? Number(match[1]) * (UNIT_MS[match[2] ?? 's'] ?? 1000) : Number.NaN;
  if (!(ms >= 1))
    throw new InvalidArgumentError(
      `expected a duration such as 90s, 2m, 500ms or a number of seconds, got "${value}".`,
    );
  return Math.round(ms);
}

/** The `--lang` codes. */
export const LANG_CODES: readonly LabelLanguage[] = ['en', 'pt', 'fr', 'id'];

/**
 * `--lang` for the commands that write no prompt (`trace`, `replay`, `runs`, `models`, `eval`, `serve`):
 * the language of taoloop's own messages, unset unless given (or `TAOLOOP_LANG`); `byDefault` says what
 * the command does without it.
 */
export function messagesLangOption(byDefault = 'English'): Option {
  return new Option(
    '--lang <code>',
    `language of taoloop's messages and errors: en, pt, fr or id (default: ${byDefault})`,
  )
    .choices(LANG_CODES)
    .env('TAOLOOP_LANG');
}

/** Options `run` and `ask` share: the model, limits, language, prompt, trace and output. */
export function addAgentOptions(command: Command): Command {
  return command
    .addOption(
      new Option(
        '-m, --model <spec>',
        'model: openai-compatible:<base-url>#<model>, openai:<model>, anthropic:<model>, google:<model>, ollama:<model>, local:<file.gguf>, or human (you write each Thought and Action) (default: $TAOLOOP_MODEL, then the first provider whose API key is set, then a local Ollama, then the embedded model; see taoloop models)',
      ).env('TAOLOOP_MODEL'),
    )
    .addOption(
      new Option(
        '--fallback <spec>',
        'a model that takes a call when the model before it fails after its retries (HTTP 5xx, overload, context length, --model-timeout); repeat for more, tried in order',
      )
        .argParser(collect)
        .default([], 'none'),
    )
    .addOption(
      new Option('--max-steps <n>', 'steps before the run stops without an answer')
        .default(8)
        .argParser(positiveInt)
        .env('TAOLOOP_MAX_STEPS'),
    )
    .addOption(
      new Option(
        '--max-cost <usd>',
        'stop before a model call that would take the run over this cost (default: none)',
      )
        .argParser(usd)
        .env('TAOLOOP_MAX_COST'),
    )
    .addOption(
      new Option(
        '--price <in/out>',
        "the model's price in USD per million input/output tokens, e.g. 0.15/0.60, for the cost and --max-cost with any server (default: the built-in prices of known hosted models, 0 for local: and ollama:, else the config file's prices)",
      )
        .argParser(pricePair)
        .env('TAOLOOP_PRICE'),
    )
    .addOption(
      new Option(
        '--timeout <duration>',
        'stop the run after this long: 90s, 2m, 500ms, or a number of seconds (default: none)',
      )
        .argParser(durationMs)
        .env('TAOLOOP_TIMEOUT'),
    )
    .addOption(
      new Option(
        '--model-timeout <duration>',
        'fail the run when one model call gets no complete answer within this long: 90s, 2m, 500ms, or a number of seconds (not applied to --model human)',
      )
        .default(DEFAULT_MODEL_TIMEOUT_MS, '2m')
        .argParser(durationMs)
        .env('TAOLOOP_MODEL_TIMEOUT'),
    )
    .addOption(
      new Option(
        '--max-output-tokens <n>',
        'cap on the tokens of one model turn, so a model that keeps repeating itself stops',
      )
        .default(DEFAULT_MAX_OUTPUT_TOKENS)
        .argParser(positiveInt)
        .env('TAOLOOP_MAX_OUTPUT_TOKENS'),
    )
    .addOption(
      new Option(
        '--lang <code>',
        'language of the labels, the prompt and the messages: en, pt, fr or id; English labels are always accepted',
      )
        .choices(LANG_CODES)
        .default('en')
        .env('TAOLOOP_LANG'),
    )
    .option('--system <text>', 'extra instructions appended to the system prompt (default: none)')
    .option(
      '--examples <file>',
      "few-shot examples: a text file in the ReAct paper's format (Question/Thought/Action/Observation) or a JSON array of {question, steps} (default: none)",
    )
    .option(
      '--trace <file>',
      'write the JSONL trace to this file instead of the runs folder (default: .taoloop/runs/ if it exists, else the cache folder)',
    )
    .addOption(
      new Option(
        '--config <file>',
        'config file (default: taoloop.config.json in the current folder, if any)',
      ).env('TAOLOOP_CONFIG'),
    )
    .option('--json', 'print one JSON result on stdout and nothing else', false)
    .option('--no-stream', 'wait for each complete model turn instead of streaming it (default: stream)')
    .option('--hide-reasoning', "don't print the model's reasoning (it stays in the trace)", false);
}

/** Options only `run` has: the tools and their approval. */
export function addToolOptions(command: Command): Command {
  return command
    .addOption(
      new Option(
        '-t, --tools <list>',
        `comma-separated tools: ${Object.keys(CLI_TOOLS).join(', ')} (default: calculator, plus search when --docs is given)`,
      ).env('TAOLOOP_TOOLS'),
    )
    .addOption(
      new Option(
        '-d, --docs <dir>',
        'folder of .md/.txt/.json/.jsonl documents for the search tool (default: none)',
      ).env('TAOLOOP_DOCS'),
    )
    .addOption(
      new Option(
        '--root <dir>',
        'folder that read_file and run_tests work in; they refuse anything outside it (default: none)',
      ).env('TAOLOOP_ROOT'),
    )
    .option(
      '--wiki-corpus <file>',
      'JSONL of {title, text} pages for the wikipedia tool, instead of the live API (default: the live API)',
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
        .default('text')
        .env('TAOLOOP_MODE'),
    );
}
