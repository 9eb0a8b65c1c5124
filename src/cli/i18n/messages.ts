/**
 * What the CLI says, as a type: every message, prompt and instruction one language must give
 * (`en.ts`, `pt.ts`, `fr.ts`, `id.ts`).
 *
 * @module
 */
import type { StopReason } from '../../agent/types.js';

/** Everything the CLI says, in one language. */
export interface CliMessages {
  /** Spinner text while the model works. */
  thinking: string;
  /** After the first Ctrl-C. */
  stopping: string;
  /** The footer's step count: `{count}` steps, in the singular or the plural form. */
  steps: { one: string; other: string };
  /** Whether a count takes the singular form (English: 1; French: 0 and 1; Indonesian has one form). */
  singular: (count: number) => boolean;
  tokens: string;
  tokensUnknown: string;
  costUnknown: string;
  /** Before the trace file's path. */
  trace: string;
  /** Why a run ended without an answer; `{detail}` is replaced by the result's error. */
  noAnswer: Record<Exclude<StopReason, 'answered'>, string>;
  /** The run's status in the footer, by stop reason. */
  status: Record<StopReason, string>;
  /** The footer's token counts: `{in}` input and `{out}` output tokens. */
  tokenCounts: string;
  /** `{detail}` of `noAnswer.budget` when the result says nothing more. */
  budgetDetail: string;
  /** `{detail}` of `noAnswer.budget` for the token budget: `{used}`, `{max}`, `{next}` tokens. */
  budgetTokens: string;
  /** `{detail}` of `noAnswer.budget` for `--max-cost`: `{spent}`, `{max}`, `{next}` in USD (`$0.01`). */
  budgetCost: string;
  /** `{detail}` of `noAnswer.budget` for `--timeout`: `{seconds}`. */
  budgetTime: string;
  /** `{detail}` of `noAnswer.error` when the result says nothing more. */
  failedDetail: string;
  /** A rejected tool call; `{reason}`. */
  rejected: string;
  /** `{reason}` of `rejected` when the person gave none. */
  byTheUser: string;
  /** A tool call approved with an edited input; `{input}`. */
  editedInput: string;
  /** A model that failed before a fallback took over; `{model}`, `{error}`. */
  modelFailed: string;
  /** The fallback taking over; `{what}` (the failure), `{model}` (the next model). */
  tryingNext: string;
  /** A retry of a model call; `{retry}`, `{max}` (the most retries), `{error}`, `{waited}` (`1.0 s`). */
  modelRetry: string;
  /** {@link CliMessages.modelRetry} when the most retries is unknown; `{retry}`, `{error}`, `{waited}`. */
  modelRetryOpen: string;
  /** Before the quoted text of a turn that could not be used. */
  unusableTurn: string;
  /** After a turn whose invented observation was thrown away. */
  droppedObservation: string;
  /** The approval prompt at the terminal. */
  approval: ApprovalMessages;
  /** The default trace location cannot be written; `{detail}`. */
  noTrace: string;
  /** `--trace FILE` cannot be written; `{file}`, `{detail}`. */
  cannotWriteTrace: string;
  /** A trace line could not be written (a full disk, a removed folder); `{detail}`: why, naming the file. */
  traceWriteFailed: string;
  /** The human tool's input ended: the reason the run stops (in the result and on screen). */
  inputEnded: string;
  /** Said when the run stops for `inputEnded`; `{reason}`. */
  stoppingBecause: string;
  /** An unexpected error ended the run; `{detail}`. */
  runFailed: string;
  /** After `runFailed`, unless `TAOLOOP_DEBUG` is set. */
  debugHint: string;
  /** An empty question; `{command}` is run or ask. */
  emptyQuestion: string;
  /** No model configured and the embedded one unavailable; `{detail}` says why, the setup help follows. */
  noModel: string;
  /** `{detail}` of `noModel` when the embedded model lacks node-llama-cpp; `{command}` installs it. */
  noLlamaCpp: string;
  /** The ways to configure a model (after `noModel`), as `describeModelSetup` says them in English. */
  modelSetup?: string;
  /** `taoloop trace`: a trace that ends with a crash; `{error}`. */
  traceCrashed: string;
  /** `taoloop trace`: a trace that simply stops. */
  traceStops: string;
  /** The human tool: shown before the requested action. */
  humanAsks: string;
  /** The human tool: the question the person answers. */
  humanObserved: string;
  /** The human tool's description, as the model reads it. */
  humanToolDescription: string;
  /** The human model: shown once, above the prompt the model would see. */
  humanModelIntro: string;
  /** The human model: shown before each turn the person types. */
  humanModelTurn: string;
  /** The format rules in this language, appended to the system prompt; absent for English. */
  instructions?: string;
  /** For `taoloop ask`: how to use the person, appended to the system prompt. */
  askInstructions: string;
  /** `taoloop chat`; `{id}` is the conversation id, `{command}` what was typed. */
  chat: ChatMessages;
  /** Commander's errors about the command line (unknown option, missing argument, ...). */
  usage: UsageMessages;
  /** taoloop's own usage errors (exit code 2), printed in the language of the command line. */
  errors: ErrorMessages;
}

/**
 * taoloop's own usage errors (`UsageError`s made with `usageError(key, values)`): what the options, the config
 * file and the arguments got wrong. `{where}` is a flag, an environment variable or {@link inConfig}.
 */
export interface ErrorMessages {
  /** `{where}` holds a field of the config file: `{field}` and `{file}`. */
  inConfig: string;
  /** `{names}` (quoted, comma-separated) are no tools; `{available}` lists the tools. */
  unknownTool: string;
  /** `{where}` names no tool: `{given}` is what it held, in parentheses, or empty. */
  noTool: string;
  /** `{where}` gives documents but the run has no search tool. */
  docsNeedsSearch: string;
  /** `{where}` gives a folder but the run has neither read_file nor run_tests. */
  rootNeedsTool: string;
  /** `{where}` gives a Wikipedia corpus but the run has no wikipedia tool. */
  wikiCorpusNeedsWikipedia: string;
  /** The search tool without documents. */
  searchNeedsDocs: string;
  /** read_file without a folder. */
  readFileNeedsRoot: string;
  /** run_tests without a folder. */
  runTestsNeedsRoot: string;
  /** `--allow {names}` names no tool of the run; `{tools}` are its tools. */
  allowNotATool: string;
  /** `--max-cost` for `{model}`, whose price is unknown. */
  maxCostNeedsPrice: string;
  /** `--config {file}` does not exist. */
  configMissing: string;
  /** The config file `{file}` is unusable; `{problems}`: one per line, as the checks word them (English). */
  badConfig: string;
  /** `taoloop trace` / `replay {ref}`: no such file or run id in `{folder}`. */
  traceNotFound: string;
}

/** The approval prompt: `{action}`, `{effects}` and `{tool}` are filled in. */
export interface ApprovalMessages {
  /** Above the prompt. */
  wants: string;
  /** The question. */
  ask: string;
  /** Asking for the edited input. */
  newInput: string;
  /** After an answer that is none of the accepted words. */
  again: string;
  /** Accepted answers, lower case; English `y`/`yes`, `n`/`no`, `e`/`edit` are always accepted too. */
  yes: readonly string[];
  no: readonly string[];
  edit: readonly string[];
  /** The rejection when there is no terminal to ask at (the model reads it too). */
  noTerminal: string;
}

/**
 * Commander's errors about the command line, by error code (`src/cli/usage-errors.ts` reads the names out
 * of commander's English message). `{option}` is the option's flags as the help shows them
 * (`--max-steps <n>`), `{command}` and `{argument}` names, `{value}` what was given, `{detail}` why it
 * is refused (`choices` or one of the option parsers' reasons). English is printed as commander writes it;
 * the English entries say the same and are the patterns the parsers' reasons are recognised by.
 */
export interface UsageMessages {
  /** The word before each message, as commander's `error:`. */
  error: string;
  /** `commander.unknownOption`. */
  unknownOption: string;
  /** `commander.unknownCommand`. */
  unknownCommand: string;
  /** `commander.missingArgument`. */
  missingArgument: string;
  /** `commander.optionMissingArgument`: a flag given without its value. */
  optionMissingArgument: string;
  /** `commander.invalidArgument` for a flag's value. */
  invalidOptionValue: string;
  /** `commander.invalidArgument` for a value from an environment variable `{env}`. */
  invalidEnvValue: string;
  /** `commander.invalidArgument` for a command's argument. */
  invalidArgumentValue: string;
  /** `commander.excessArguments`: `{expected}` and `{got}` are counts. */
  excessArguments: string;
  /** Commander's suggestion for an unknown option or command: one `{name}`. */
  didYouMean: string;
  /** Commander's suggestion: several `{names}`, comma-separated. */
  didYouMeanOneOf: string;
  /** `{detail}` of a value that is none of the `{choices}`. */
  choices: string;
  /** `{detail}`s of the option parsers in `src/cli/options.ts`; `{value}`. */
  wholeNumber: string;
  port: string;
  usd: string;
  price: string;
  duration: string;
  /** After the message. */
  helpHint: string;
}

/** What `taoloop chat` says. */
export interface ChatMessages {
  /** When a conversation starts. */
  intro: string;
  /** After `/new`. */
  newConversation: string;
  /** After a line starting with `/` that is no command. */
  unknownCommand: string;
  /** After Ctrl-C at the prompt (no run to stop). */
  howToLeave: string;
  /** When the person leaves a conversation that has questions in it. */
  followUp: string;
}
