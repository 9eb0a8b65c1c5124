/**
 * The contenders behind one small interface: taoloop's `runAgent` over its AI SDK adapter
 * (`fromLanguageModel`) in text and in native mode, the AI SDK's own `ToolLoopAgent` (ai 6), and
 * LangChain's `createAgent` (langchain 1.x, LangGraph underneath). Each runs an episode of `script.ts` with
 * a model that answers at once and a no-op tool whose body is the caller's `tool` function (which counts
 * calls and, in the memory test, holds the run).
 *
 * taoloop and `ToolLoopAgent` call the same model: the AI SDK's `MockLanguageModelV3` (`ai/test`), so the
 * AI SDK's own work per call (`generateText`: prompt validation and conversion, tool preparation, result
 * building) is in both. LangChain gets a `BaseChatModel` of its own kind (below).
 *
 * Two kinds of model per contender:
 * - `sequential` (timing): replays the episode's turns in order, one episode at a time; `run` starts it
 *   from the first turn again. Picking the turn costs nothing, whatever the transcript's length.
 * - `concurrent` (memory): one model shared by many runs in flight at once, so it cannot keep a position;
 *   it picks the turn by counting the tool's output in the prompt it is given (steps done so far).
 *
 * @module
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { LanguageModelV3CallOptions, LanguageModelV3GenerateResult } from '@ai-sdk/provider';
import { tool as aiTool, jsonSchema, stepCountIs, ToolLoopAgent } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import type { Model, ModelRequest, ModelResponse, ModelStreamPart } from '../../src/models/types.js';
import type { Tool } from '../../src/tools/types.js';
import { bundleSources } from '../lib/bundle.js';
import { benchDir } from '../lib/peer.js';
import {
  episode,
  type NativeTurn,
  stepsDone,
  TOOL_DESCRIPTION,
  TOOL_INPUT_SCHEMA,
  TOOL_NAME,
  TOOL_OUTPUT,
} from './script.js';

/** The no-op tool's body: gets the input the framework parsed, returns the observation. */
export type ToolFn = (input: string) => string | Promise<string>;

/** One agent set up for episodes of one length. */
export interface Contender {
  /** Name with version and mode, for reports and figures. */
  name: string;
  /** Runs one episode; resolves to the final answer, or undefined when the run ended without one. */
  run(): Promise<string | undefined>;
  /** What `run` resolves to when the episode went as scripted. */
  expected: string;
  /** Tool calls per episode when it went as scripted. */
  actions: number;
  /** Where the code came from. */
  from: string;
  /** Drops what the harness's model recorded (the AI SDK mock keeps every call's options). */
  forget(): void;
}

export type ModelKind = 'sequential' | 'concurrent';

/** Chunk size of the streamed contender, in characters (about one token). */
export const STREAM_CHUNK_CHARS = 4;

export interface ContenderOptions {
  steps: number;
  kind: ModelKind;
}

/** The contenders, by the key the memory child and the profiler take on their command line. */
export const CONTENDERS = {
  'taoloop-text': (tool: ToolFn, options: ContenderOptions) => taoloop(tool, { ...options, mode: 'text' }),
  'taoloop-native': (tool: ToolFn, options: ContenderOptions) =>
    taoloop(tool, { ...options, mode: 'native' }),
  'ai-sdk': aiSdkAgent,
  langchain: langchainAgent,
  'taoloop-text-own': (tool: ToolFn, options: ContenderOptions) =>
    taoloop(tool, { ...options, mode: 'text', own: true }),
  'taoloop-native-own': (tool: ToolFn, options: ContenderOptions) =>
    taoloop(tool, { ...options, mode: 'native', own: true }),
  'taoloop-text-own-streamed': (tool: ToolFn, options: ContenderOptions) =>
    taoloop(tool, { ...options, mode: 'text', own: true, streamed: true }),
} as const;
export type ContenderKey = keyof typeof CONTENDERS;
export const CONTENDER_KEYS = Object.keys(CONTENDERS) as ContenderKey[];

const rootDir = join(benchDir, '..');

function versionAt(packageDir: string): string {
  const manifest: unknown = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
  return String((manifest as { version?: unknown }).version);
}

/** The `ai` package both taoloop's adapter and `ToolLoopAgent` run on (the repository's own). */
export const AI_VERSION = versionAt(join(rootDir, 'node_modules', 'ai'));

// ----------------------------------------------------------------------------------- the AI SDK mock

const USAGE = {
  inputTokens: { total: 20, noCache: 20, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 10, text: 10, reasoning: undefined },
};

/** A fresh result per call, as a provider parses one from its response. */
function textResult(text: string): LanguageModelV3GenerateResult {
  return {
    content: [{ type: 'text', text }],
    finishReason: { unified: 'stop', raw: 'stop' },
    usage: USAGE,
    warnings: [],
  };
}

function nativeResult(turn: NativeTurn): LanguageModelV3GenerateResult {
  if (!turn.toolCall) return textResult(turn.text);
  return {
    content: [
      { type: 'text', text: turn.text },
      { type: 'tool-call', toolCallId: turn.toolCall.id, toolName: TOOL_NAME, input: turn.toolCall.input },
    ],
    finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
    usage: USAGE,
    warnings: [],
  };
}

/**
 * `MockLanguageModelV3` replaying `turn(i)`: in order (`sequential`; `restart` goes back to the first), or
 * by the steps done that the prompt shows (`concurrent`).
 */
function aiSdkMock(
  kind: ModelKind,
  turns: number,
  turn: (i: number) => LanguageModelV3GenerateResult,
): { model: MockLanguageModelV3; restart(): void } {
  let position = 0;
  const offScript = () => textResult('Answer: off script');
  const pick =
    kind === 'sequential'
      ? () => position++
      : (options: LanguageModelV3CallOptions) => stepsDone(JSON.stringify(options.prompt));
  const model = new MockLanguageModelV3({
    doGenerate: async (options) => {
      const i = pick(options);
      return i < turns ? turn(i) : offScript();
    },
  });
  return {
    model,
    restart() {
      position = 0;
      // The mock records every call's options; over thousands of episodes that would be the biggest heap.
      model.doGenerateCalls.length = 0;
    },
  };
}

// ---------------------------------------------------------------------------------------------- taoloop

type TaoloopModule = Pick<typeof import('../../src/agent/loop.js'), 'runAgent'> &
  Pick<typeof import('../../src/models/ai-sdk.js'), 'fromLanguageModel'>;

const BUNDLE_ENV = 'LOOP_OVERHEAD_TAOLOOP_BUNDLE';

/**
 * Bundles `runAgent` and `fromLanguageModel` from `src/` the way `tsup` builds `dist/` (see `lib/bundle.ts`:
 * through tsx, every closure the loop creates would also pay a `__name(...)` call, and every `Error` its
 * stack's source maps). On success, sets `LOOP_OVERHEAD_TAOLOOP_BUNDLE` so that this process and its
 * children (the memory test) load the bundle. Returns false when esbuild cannot be loaded. The bundle
 * leaves packages external: its `import('ai')` resolves to the repository's `ai`, the same module instance
 * that `ToolLoopAgent` comes from here.
 */
export async function bundleTaoloop(): Promise<boolean> {
  const outfile = await bundleSources(
    'loop-overhead-taoloop',
    "export { runAgent } from './src/agent/loop.ts';\n" +
      "export { fromLanguageModel } from './src/models/ai-sdk.ts';\n",
  );
  if (outfile === undefined) return false;
  process.env[BUNDLE_ENV] = outfile;
  return true;
}

/** taoloop from the bundle {@link bundleTaoloop} made in this run, else from the sources (through tsx). */
async function loadTaoloop(): Promise<{ module: TaoloopModule; from: string }> {
  const bundle = process.env[BUNDLE_ENV];
  if (bundle) {
    return {
      module: (await import(pathToFileURL(bundle).href)) as TaoloopModule,
      from: 'src, bundled with esbuild like dist/',
    };
  }
  const { runAgent } = await import('../../src/agent/loop.js');
  const { fromLanguageModel } = await import('../../src/models/ai-sdk.js');
  return { module: { runAgent, fromLanguageModel }, from: 'src through tsx (slower than dist/)' };
}

/**
 * A taoloop {@link Model} of its own, without the AI SDK: `turn(i)` in order (`sequential`), or by the
 * steps done that the request shows (`concurrent`). What taoloop's own code costs, loop and request
 * building, apart from the adapter and `generateText`.
 */
function ownModel(
  kind: ModelKind,
  turns: number,
  turn: (i: number) => ModelResponse,
  streamed = false,
): { model: Model; restart(): void } {
  let position = 0;
  const respond = (request: ModelRequest): ModelResponse => {
    const i = kind === 'sequential' ? position++ : stepsDone(JSON.stringify(request.messages));
    return i < turns ? turn(i) : { text: 'Answer: off script', usage: {}, finishReason: 'stop' };
  };
  const model: Model = {
    id: 'replay',
    supportsToolCalls: true,
    async generate(request) {
      return respond(request);
    },
  };
  // Streamed (text only): the turn in 4-character deltas (about a token each), then the finish.
  if (streamed) {
    model.stream = async function* (request): AsyncGenerator<ModelStreamPart> {
      const { text, usage, finishReason } = respond(request);
      for (let i = 0; i < text.length; i += STREAM_CHUNK_CHARS) {
        yield { type: 'text-delta', text: text.slice(i, i + STREAM_CHUNK_CHARS) };
      }
      yield { type: 'finish', usage, finishReason };
    };
  }
  return {
    model,
    restart() {
      position = 0;
    },
  };
}

/**
 * taoloop: `runAgent({ model: fromLanguageModel(mock), tools: [noop], question, maxSteps, modelSettings: {
 * mode, streaming: false } })`, the model adapted once and a run per episode (`runAgent` builds everything
 * else per run). Text mode: the mock answers `Thought: ...\nAction: noop[step i]`; native mode: a thought
 * and a tool call, as for the peers. Not streamed (`streaming` defaults to true when the model can stream):
 * `ToolLoopAgent.generate` does not stream either.
 *
 * `own`: the same runs on {@link ownModel} instead of the adapter and the AI SDK mock: taoloop's own cost
 * (what the ceiling of issue 17 is about); `streamed` (text mode, `own` only): that model streams its
 * turns and the run reads them streamed (`streaming: true`).
 */
async function taoloop(
  tool: ToolFn,
  options: ContenderOptions & { mode: 'text' | 'native'; own?: boolean; streamed?: boolean },
): Promise<Contender> {
  const { module, from } = await loadTaoloop();
  const { runAgent, fromLanguageModel } = module;
  const ep = episode(options.steps);
  let model: Model;
  let restart: () => void;
  if (options.own) {
    const own =
      options.mode === 'text'
        ? ownModel(
            options.kind,
            ep.steps,
            (i) => ({ text: ep.textTurns[i]!, usage: {}, finishReason: 'stop' }),
            options.streamed,
          )
        : ownModel(options.kind, ep.steps, (i) => {
            const turn = ep.nativeTurns[i]!;
            if (!turn.toolCall) return { text: turn.text, usage: {}, finishReason: 'stop' };
            const { id, input } = turn.toolCall;
            return {
              text: turn.text,
              toolCalls: [{ id, name: TOOL_NAME, input }],
              usage: {},
              finishReason: 'tool-calls',
            };
          });
    model = own.model;
    restart = own.restart;
  } else {
    const mock =
      options.mode === 'text'
        ? aiSdkMock(options.kind, ep.steps, (i) => textResult(ep.textTurns[i]!))
        : aiSdkMock(options.kind, ep.steps, (i) => nativeResult(ep.nativeTurns[i]!));
    model = fromLanguageModel(mock.model);
    restart = mock.restart;
  }
  const noop: Tool = { name: TOOL_NAME, description: TOOL_DESCRIPTION, run: (input: string) => tool(input) };
  const streaming = options.streamed === true;
  const modelSettings = { mode: options.mode, streaming };
  return {
    name:
      `taoloop runAgent, ${options.mode} mode` +
      `${options.own ? ', own Model (no AI SDK)' : ''}${streaming ? ', streamed' : ''}`,
    expected: ep.answer,
    actions: ep.actions,
    from: options.own
      ? `${from}; a taoloop Model answering at once`
      : `${from}; ai ${AI_VERSION} MockLanguageModelV3 through fromLanguageModel`,
    forget: restart,
    async run() {
      if (options.kind === 'sequential') restart();
      const result = await runAgent({
        model,
        tools: [noop],
        question: ep.question,
        maxSteps: ep.steps,
        modelSettings,
      });
      return result.status === 'answered' ? result.answer : undefined;
    },
  };
}

// ------------------------------------------------------------------------------- AI SDK ToolLoopAgent

/**
 * The AI SDK's agent: `new ToolLoopAgent({ model, tools: { noop }, stopWhen: stepCountIs(steps) })`, built
 * once, `agent.generate({ prompt })` per episode (the default `stopWhen` is 20 steps). The tool: `tool({
 * description, inputSchema: jsonSchema(...), execute })`, the same JSON schema taoloop's adapter sends
 * (`jsonSchema` without a validator, so no validation library runs on the input). No instructions.
 */
async function aiSdkAgent(tool: ToolFn, options: ContenderOptions): Promise<Contender> {
  const ep = episode(options.steps);
  const mock = aiSdkMock(options.kind, ep.steps, (i) => nativeResult(ep.nativeTurns[i]!));
  const agent = new ToolLoopAgent({
    model: mock.model,
    tools: {
      [TOOL_NAME]: aiTool({
        description: TOOL_DESCRIPTION,
        inputSchema: jsonSchema<{ input: string }>(TOOL_INPUT_SCHEMA),
        execute: async ({ input }) => tool(input),
      }),
    },
    stopWhen: stepCountIs(ep.steps),
  });
  return {
    name: `AI SDK ${AI_VERSION} ToolLoopAgent`,
    expected: ep.answer,
    actions: ep.actions,
    from: `node_modules (ai ${AI_VERSION}); MockLanguageModelV3`,
    forget: mock.restart,
    async run() {
      if (options.kind === 'sequential') mock.restart();
      const result = await agent.generate({ prompt: ep.question });
      return result.text;
    },
  };
}

// ----------------------------------------------------------------------------- LangChain createAgent

/** bench/cost: LangChain 1.x lives there (it cannot share one `@langchain/core` with bench/'s 0.3 line). */
const costDir = join(benchDir, 'cost');

/**
 * `npm ci --prefix bench/cost` when its node_modules is missing or older than its lockfile, as
 * `bench/run.ts` does for the folders it is asked to run (`npm run bench -- loop-overhead` does not name
 * `cost`).
 */
export function ensureLangChain(log: (line: string) => void): void {
  const installed = join(costDir, 'node_modules', '.package-lock.json');
  const lock = join(costDir, 'package-lock.json');
  if (existsSync(installed) && statSync(installed).mtimeMs >= statSync(lock).mtimeMs) return;
  log('loop-overhead: installing LangChain 1.x (npm ci --prefix bench/cost)');
  const result = spawnSync('npm', ['ci', '--prefix', costDir, '--no-audit', '--no-fund'], {
    stdio: ['ignore', 2, 2],
  });
  if (result.status !== 0) throw new Error('npm ci --prefix bench/cost failed');
}

/** The members of LangChain 1.x used here (its types are in bench/cost/node_modules, outside the type check). */
interface LangChainMessage {
  content: unknown;
}
interface LangChainToolCall {
  name: string;
  args: Record<string, unknown>;
  id: string;
  type: 'tool_call';
}
interface LangChainChatModelBase {
  bindTools?(tools: unknown[], kwargs?: unknown): unknown;
}
interface LangChain {
  createAgent(options: { model: unknown; tools: unknown[] }): {
    invoke(
      input: { messages: { role: string; content: string }[] },
      config: { recursionLimit: number },
    ): Promise<{ messages: LangChainMessage[] }>;
  };
  tool(run: (input: { input: string }) => Promise<string>, options: Record<string, unknown>): unknown;
  AIMessage: new (fields: { content: string; tool_calls?: LangChainToolCall[] }) => LangChainMessage;
  BaseChatModel: new (fields: Record<string, unknown>) => LangChainChatModelBase;
  z: {
    object(shape: Record<string, unknown>): unknown;
    string(): { describe(text: string): unknown };
  };
}

let langChain: Promise<LangChain> | undefined;

/**
 * LangChain 1.x from bench/cost/node_modules. A plain `import('langchain')` from here would resolve to
 * bench/node_modules (the 0.3 line), so a small module that re-exports what is used is written to
 * `bench/cost/node_modules/.cache/` (ignored; Node resolves its imports from bench/cost/node_modules) and
 * imported: one module graph, one `@langchain/core`.
 */
function loadLangChain(): Promise<LangChain> {
  langChain ??= (async () => {
    if (!existsSync(join(costDir, 'node_modules', 'langchain'))) {
      throw new Error('bench/cost dependencies are not installed: run `npm ci --prefix bench/cost`');
    }
    const cache = join(costDir, 'node_modules', '.cache');
    mkdirSync(cache, { recursive: true });
    const file = join(cache, 'loop-overhead-langchain.mjs');
    writeFileSync(
      file,
      "export { createAgent, tool, AIMessage } from 'langchain';\n" +
        "export { BaseChatModel } from '@langchain/core/language_models/chat_models';\n" +
        "export { z } from 'zod';\n",
    );
    return (await import(pathToFileURL(file).href)) as LangChain;
  })();
  return langChain;
}

const costVersion = (name: string) => versionAt(join(costDir, 'node_modules', name));

/**
 * LangChain's current agent: `createAgent({ model, tools: [noop] })` (a LangGraph graph), built once,
 * `agent.invoke({ messages: [{ role: 'user', content: question }] }, { recursionLimit })` per episode
 * (each step is two graph steps, the model node and the tool node; the default limit of 25 would stop the
 * longer episodes). Tracing off. The tool: `tool(fn, { name, description, schema: z.object(...) })`, zod
 * being LangChain's documented way.
 *
 * The model: LangChain's fakes do not fit (`FakeStreamingChatModel` answers one fixed set of tool calls;
 * `fakeModel()` from `@langchain/core/testing` keeps a queue that only grows and records every call), so a
 * minimal `BaseChatModel` subclass returns the scripted `AIMessage` (content: the thought, `tool_calls`: the
 * call) and binds tools by returning itself: the least a chat model can do (a real provider's `bindTools`
 * also converts the tools to its own format and returns a new binding, every step).
 */
async function langchainAgent(tool: ToolFn, options: ContenderOptions): Promise<Contender> {
  process.env.LANGCHAIN_TRACING_V2 = 'false';
  process.env.LANGSMITH_TRACING = 'false';
  const lc = await loadLangChain();
  const ep = episode(options.steps);
  let position = 0;
  const pick =
    options.kind === 'sequential'
      ? () => position++
      : (messages: readonly LangChainMessage[]) => messages.filter((m) => m.content === TOOL_OUTPUT).length;
  const message = (i: number): LangChainMessage => {
    const turn = ep.nativeTurns[i];
    if (!turn) return new lc.AIMessage({ content: 'off script' });
    if (!turn.toolCall) return new lc.AIMessage({ content: turn.text });
    return new lc.AIMessage({
      content: turn.text,
      tool_calls: [
        {
          name: TOOL_NAME,
          args: JSON.parse(turn.toolCall.input) as Record<string, unknown>,
          id: turn.toolCall.id,
          type: 'tool_call',
        },
      ],
    });
  };
  class ScriptedChatModel extends lc.BaseChatModel {
    _llmType() {
      return 'scripted';
    }
    async _generate(messages: LangChainMessage[]) {
      return { generations: [{ text: '', message: message(pick(messages)) }] };
    }
    override bindTools() {
      return this;
    }
  }
  const noop = lc.tool(async ({ input }) => tool(input), {
    name: TOOL_NAME,
    description: TOOL_DESCRIPTION,
    schema: lc.z.object({ input: lc.z.string().describe('anything') }),
  });
  const agent = lc.createAgent({ model: new ScriptedChatModel({}), tools: [noop] });
  const recursionLimit = 2 * ep.steps + 10;
  return {
    name: `LangChain ${costVersion('langchain')} createAgent (@langchain/core ${costVersion('@langchain/core')})`,
    expected: ep.answer,
    actions: ep.actions,
    from: 'bench/cost/node_modules',
    forget() {},
    async run() {
      position = 0;
      const state = await agent.invoke(
        { messages: [{ role: 'user', content: ep.question }] },
        { recursionLimit },
      );
      const last = state.messages.at(-1)?.content;
      return typeof last === 'string' ? last : undefined;
    },
  };
}
