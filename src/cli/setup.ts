/**
 * Turns the parsed options of `run` / `ask` into the loop's options: tools, model (including `human`),
 * labels, translated instructions, few-shot examples, limits, and the trace header's `meta` that
 * `taoloop replay` rebuilds the tools from. Every caller mistake becomes a {@link UsageError} here,
 * before anything runs or is written.
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import { z } from 'zod';
import type { AgentConfig, AgentInput } from '../agent/options.js';
import { chooseModel } from '../models/choose.js';
import { ModelConfigError } from '../models/errors.js';
import { DEFAULT_PRICES, findPrice, type PriceTable } from '../models/pricing.js';
import { describeModelSetup } from '../models/spec.js';
import type { Model } from '../models/types.js';
import { resolveModelSpec } from '../node/resolve-model.js';
import { type FewShotExample, parseExamples } from '../react/examples.js';
import { LABEL_SETS, type LabelLanguage } from '../react/labels.js';
import { errorMessage } from '../util/own.js';
import { UsageError, usageError } from './errors.js';
import { CLI_MESSAGES, type CliMessages, fill } from './i18n.js';
import type { RunCommandOptions } from './options.js';
import { safeText } from './safe-text.js';
import { buildCliTools, checkToolOptions, cliToolNames } from './tools.js';

/**
 * The tool options a trace keeps (absolute paths), so `taoloop replay` can rebuild the same tools. A replay
 * takes only the tool names, mode, language and step count from it: folders, approvals and the sandbox
 * opt-out are a record of what the run had, never permission for the replay.
 */
export interface RecordedCliOptions {
  tools: string[];
  docs?: string;
  root?: string;
  wikiCorpus?: string;
  allowUnsandboxed: boolean;
  lang: LabelLanguage;
  mode: 'text' | 'native' | 'auto';
  maxSteps: number;
  /** Tools that ran without asking (`--yes` is `'all'`): a record only, a replay never takes it. */
  allowTools: string[] | 'all';
}

/** The commands that run the agent. */
export type CliCommand = 'run' | 'ask' | 'chat';

/** What {@link prepareRun} and {@link prepareAgent} need besides the options. */
export interface PrepareContext {
  command: CliCommand;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Where `--fallback` models read their API keys. @default `env` */
  fallbackEnv?: NodeJS.ProcessEnv | undefined;
  config?: string | undefined;
  /** The model to use instead of the one `--model` names (`taoloop test` replays a recording). */
  model?: Model;
}

/** A run ready to start: the loop's options (no signal yet) and what the front end needs around them. */
export interface PreparedRun {
  agent: AgentConfig;
  messages: CliMessages;
  /** For the trace header. */
  meta: { cli: RecordedCliOptions; command: CliCommand; cwd: string; config?: string };
  /** True when a person types the model's turns (no spinner then: the prompt is on screen). */
  humanModel: boolean;
}

/**
 * Builds everything a run needs.
 *
 * @throws {UsageError} for an empty question, unknown tools, a bad model spec or no model, an unreadable
 * examples file.
 */
export async function prepareRun(
  question: string,
  options: RunCommandOptions,
  context: PrepareContext,
): Promise<PreparedRun & { input: AgentInput }> {
  if (!question.trim())
    throw new UsageError(fill(CLI_MESSAGES[options.lang].emptyQuestion, { command: context.command }));
  const prepared = await prepareAgent(options, context);
  return { ...prepared, input: { question } };
}

/**
 * Everything a run needs but the question: `taoloop chat` prepares once and asks each question in a session.
 *
 * @throws {UsageError} as {@link prepareRun}, but for the question.
 */
export async function prepareAgent(
  options: RunCommandOptions,
  context: PrepareContext,
): Promise<PreparedRun> {
  const messages = CLI_MESSAGES[options.lang];
  const abs = (p: string | undefined) => (p === undefined ? undefined : resolve(context.cwd, p));
  const cli: RecordedCliOptions = {
    tools: cliToolNames(options),
    ...optional('docs', abs(options.docs)),
    ...optional('root', abs(options.root)),
    ...optional('wikiCorpus', abs(options.wikiCorpus)),
    allowUnsandboxed: options.allowUnsandboxed,
    lang: options.lang,
    mode: options.mode,
    maxSteps: options.maxSteps,
    allowTools: options.yes ? 'all' : options.allow,
  };
  checkToolOptions(cli.tools, options);
  const tools = await buildCliTools({ ...cli, tools: cli.tools.join(',') });
  checkAllowed(options.allow, tools);
  const model = context.model ?? (await buildModel(options.model, context.env, messages));
  const humanModel = model.id === 'human';
  const fallbackModels = await Promise.all(
    (options.fallback ?? []).map((spec) => buildFallback(spec, context.fallbackEnv ?? context.env)),
  );
  const prices = runPrices(model.id, options);
  const examples = options.examples === undefined ? undefined : loadExamples(abs(options.examples)!);
  const instructions = [
    messages.instructions,
    context.command === 'ask' ? messages.askInstructions : undefined,
    examples?.preamble,
    options.system,
  ].filter((part): part is string => Boolean(part?.trim()));
  const agent: AgentConfig = {
    model,
    tools,
    maxSteps: options.maxSteps,
    ...(instructions.length > 0 && { instructions: instructions.join('\n\n') }),
    limits: {
      allowTools: cli.allowTools,
      ...optional('maxCostUsd', options.maxCost),
      ...optional('prices', prices),
      ...optional('timeoutMs', options.timeout),
      // A person typing a turn takes as long as it takes: no per-call limit for `--model human`.
      ...(!humanModel && optional('modelTimeoutMs', options.modelTimeout)),
    },
    modelSettings: {
      mode: options.mode,
      streaming: options.stream,
      ...(fallbackModels.length > 0 && { fallbackModels }),
      ...(!humanModel && optional('maxOutputTokens', options.maxOutputTokens)),
    },
    prompt: {
      labels: LABEL_SETS[options.lang],
      ...(examples && examples.examples.length > 0 && { examples: examples.examples }),
    },
  };
  return {
    agent,
    messages,
    meta: {
      cli,
      command: context.command,
      cwd: context.cwd,
      ...optional('config', context.config),
    },
    humanModel,
  };
}

/**
 * Every `--allow TOOL` must name one of the run's tools (as the model calls them).
 *
 * @throws {UsageError} naming the run's tools otherwise.
 */
export function checkAllowed(allow: readonly string[], tools: readonly { name: string }[]): void {
  const names = [...new Set(tools.map((t) => t.name))];
  const unknown = allow.filter((name) => !names.includes(name));
  if (unknown.length > 0) {
    throw usageError('allowNotATool', {
      names: unknown.map((n) => `"${n}"`).join(', '),
      tools: names.join(', '),
    });
  }
}

/**
 * The run's price table: the config file's `prices`, then `--price` for the run's model (its full id, the
 * longest key, so it wins); `undefined` when neither is given (the built-in table applies).
 *
 * @throws {UsageError} for `--max-cost` when no price is known for the model, saying how to give one.
 */
export function runPrices(modelId: string, options: Pick<RunCommandOptions, 'price' | 'prices' | 'maxCost'>) {
  const prices: PriceTable | undefined =
    options.price === undefined && options.prices === undefined
      ? undefined
      : { ...options.prices, ...(options.price && { [modelId]: options.price }) };
  if (options.maxCost !== undefined && findPrice(modelId, { ...DEFAULT_PRICES, ...prices }) === undefined) {
    throw usageError('maxCostNeedsPrice', { model: modelId });
  }
  return prices;
}

/** `{ [key]: value }` when the value is defined, else `{}` (optional properties are omitted, never undefined). */
function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

/** A `--fallback` model: any spec `--model` takes, except `human`. @throws {UsageError} for a bad spec. */
async function buildFallback(spec: string, env: NodeJS.ProcessEnv): Promise<Model> {
  if (spec.trim().toLowerCase() === 'human') {
    throw new UsageError(
      '--fallback human is not possible: a fallback takes over a failed model call; use --model human.',
    );
  }
  try {
    return await resolveModelSpec(spec, env);
  } catch (error) {
    if (error instanceof ModelConfigError) throw new UsageError(`--fallback ${spec}: ${error.message}`);
    throw error;
  }
}

/**
 * The model for a spec: `human` is handled here (a person types the turns; `resolveModelSpec` does not
 * know it), anything else goes to `resolveModelSpec`. Without a spec, the default chain of
 * {@link chooseModel}: TAOLOOP_MODEL, a provider's API key, a local Ollama, the embedded model.
 *
 * @throws {UsageError} when no model is configured or the spec is bad.
 */
export async function buildModel(
  spec: string | undefined,
  env: NodeJS.ProcessEnv,
  messages: CliMessages,
): Promise<Model> {
  const choice = await chooseModel({ ...(spec !== undefined && { flag: spec }), env });
  const chosen = choice.spec;
  if (chosen.trim().toLowerCase() === 'human') {
    const { humanModel } = await import('../models/human.js');
    return showSafely(
      humanModel({ messages: { intro: messages.humanModelIntro, turn: messages.humanModelTurn } }),
    );
  }
  try {
    return await resolveModelSpec(chosen, env);
  } catch (error) {
    if (!(error instanceof ModelConfigError)) throw error;
    // Only the last resort (the embedded model) failing means that no model is configured at all.
    if (choice.source === 'embedded') {
      const setup = messages.modelSetup ?? describeModelSetup();
      const detail = await embeddedUnavailable(error, messages);
      throw new UsageError(`${fill(messages.noModel, { detail })}\n${setup}`);
    }
    throw new UsageError(error.message);
  }
}

/**
 * Why the embedded model cannot run, said once: the missing node-llama-cpp with its install command (in the
 * run's language), or the library's reason without the advice it ends with, which the setup help after it
 * gives in full.
 */
async function embeddedUnavailable(error: ModelConfigError, messages: CliMessages): Promise<string> {
  const [{ LLAMA_CPP_INSTALL, llamaCppInstalled }, { LOCAL_MODEL_ADVICE }] = await Promise.all([
    import('../models/local-engine.js'),
    import('../models/local-download.js'),
  ]);
  if (!llamaCppInstalled()) return fill(messages.noLlamaCpp, { command: LLAMA_CPP_INSTALL });
  return error.message.replace(` ${LOCAL_MODEL_ADVICE}`, '');
}

/**
 * The human model shows the person every message it receives (the prompt, observations): pass them
 * through {@link safeText} so a tool's output cannot drive the terminal. The messages only serve display
 * there; what the person types is returned unchanged.
 */
function showSafely(model: Model): Model {
  return {
    ...model,
    generate: (request) =>
      model.generate({
        ...request,
        messages: request.messages.map((message) => ({ ...message, content: safeText(message.content) })),
      }),
  };
}

const ExampleSchema = z.object({
  question: z.string(),
  steps: z.array(
    z.object({
      thought: z.string().optional(),
      action: z.object({ tool: z.string(), input: z.string() }).optional(),
      observation: z.string().optional(),
      answer: z.string().optional(),
    }),
  ),
});
const ExamplesFileSchema = z.union([z.array(ExampleSchema), z.object({ examples: z.array(ExampleSchema) })]);

/**
 * Reads `--examples FILE`: JSON (`FewShotExample[]` or `{ examples: [...] }`) when the file ends in
 * `.json`, else text in the ReAct paper's format. Text before the first example becomes instructions.
 *
 * @throws {UsageError} for a file that cannot be read, bad JSON, or no example in it.
 */
export function loadExamples(file: string): { preamble: string; examples: FewShotExample[] } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read the examples file ${file}: ${errorMessage(error)}`);
  }
  if (extname(file).toLowerCase() === '.json') {
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (error) {
      throw new UsageError(`the examples file ${file} is not valid JSON: ${errorMessage(error)}`);
    }
    const parsed = ExamplesFileSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new UsageError(
        `the examples file ${file} is not a list of {question, steps: [{thought, action: {tool, input}, observation, answer}]}: ${issue ? `${issue.path.join('.') || 'the file'}: ${issue.message}` : ''}`,
      );
    }
    const examples = (Array.isArray(parsed.data) ? parsed.data : parsed.data.examples) as FewShotExample[];
    return { preamble: '', examples };
  }
  const parsed = parseExamples(text);
  if (parsed.examples.length === 0) {
    throw new UsageError(
      `no example found in ${file}: expected "Question:" (or "Claim:") lines followed by Thought / Action / Observation lines, or a .json file.`,
    );
  }
  return parsed;
}
