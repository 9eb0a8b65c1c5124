/**
 * The three agents behind one small interface: taoloop's `runAgent`, LangChain.js's `createReactAgent` +
 * `AgentExecutor`, and LlamaIndex.TS's `ReActAgent`. Each runs the episode of `script.ts` with a model that
 * answers at once and a no-op tool whose body is the caller's `tool` function (which counts calls and, in
 * the memory test, holds the run).
 *
 * Two kinds of model per framework:
 * - `sequential` (timing): replays the scripted turns in order, one episode at a time; each episode starts
 *   from the first turn again. This uses the test doubles each project ships where one fits.
 * - `concurrent` (memory): one model shared by 1,000 runs in flight at once, so it cannot keep a position;
 *   it picks the turn by counting the tool's output in the prompt it is given (steps done so far).
 *
 * @module
 */
import { pathToFileURL } from 'node:url';
import type { Model, ModelResponse } from '../../src/models/types.js';
import type { Tool } from '../../src/tools/types.js';
import { bundleSources } from '../lib/bundle.js';
import { importPeer, peerVersion } from '../lib/peer.js';
import {
  ACTIONS,
  ANSWER,
  LANGCHAIN_REACT_PROMPT,
  LANGCHAIN_TURNS,
  LLAMAINDEX_TURNS,
  QUESTION,
  stepsDone,
  TAOLOOP_TURNS,
  TOOL_DESCRIPTION,
  TOOL_NAME,
} from './script.js';

/** The no-op tool's body: gets the input the framework parsed, returns the observation. */
export type ToolFn = (input: string) => string | Promise<string>;

/** One agent set up for the episode. */
export interface Contender {
  /** Name with version and mode, for reports. */
  name: string;
  /** Runs one episode; resolves to the final answer, or undefined when the run ended without one. */
  run(): Promise<string | undefined>;
  /** What `run` resolves to when the episode went as scripted. */
  expected: string;
  /** Where the code came from: `bench/node_modules` for peers; for taoloop, see `bundleTaoloop`. */
  from: string;
}

export type ModelKind = 'sequential' | 'concurrent';

/** Chunk size of the streamed variants, in characters (about one token). */
export const STREAM_CHUNK_CHARS = 4;

function* chunks(text: string): Generator<string> {
  for (let i = 0; i < text.length; i += STREAM_CHUNK_CHARS) yield text.slice(i, i + STREAM_CHUNK_CHARS);
}

// ---------------------------------------------------------------------------------------------- taoloop

type TaoloopModule = Pick<typeof import('../../src/agent/loop.js'), 'runAgent'> &
  Pick<typeof import('../../src/testing/scripted-model.js'), 'scriptedModel'>;

/**
 * Bundles `runAgent` and `scriptedModel` from `src/` the way `tsup` builds `dist/` (see `lib/bundle.ts`:
 * measuring the sources through tsx would count its `keepNames` helper, 5-10% of the loop's time, and
 * source maps). On success, sets `LOOP_OVERHEAD_TAOLOOP_BUNDLE` so that this process and its children (the
 * memory test) load the bundle. Returns false when esbuild cannot be loaded.
 */
export async function bundleTaoloop(): Promise<boolean> {
  const outfile = await bundleSources(
    'loop-overhead-taoloop',
    "export { runAgent } from './src/agent/loop.ts';\n" +
      "export { scriptedModel } from './src/testing/scripted-model.ts';\n",
  );
  if (outfile === undefined) return false;
  process.env[BUNDLE_ENV] = outfile;
  return true;
}

const BUNDLE_ENV = 'LOOP_OVERHEAD_TAOLOOP_BUNDLE';

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
  const { scriptedModel } = await import('../../src/testing/scripted-model.js');
  return { module: { runAgent, scriptedModel }, from: 'src through tsx' };
}

/**
 * taoloop: `runAgent` in text mode. Sequential: `scriptedModel` from `taoloop/testing`, a new one per run
 * (it is a small closure; `runAgent` builds everything else per run too). Concurrent: a model that picks
 * the turn from the observations in its request and keeps nothing.
 */
export async function taoloop(
  tool: ToolFn,
  options: { streaming: boolean; kind: ModelKind },
): Promise<Contender> {
  const { module, from } = await loadTaoloop();
  const { runAgent, scriptedModel } = module;
  const noop: Tool = { name: TOOL_NAME, description: TOOL_DESCRIPTION, run: (input: string) => tool(input) };
  const shared: Model = {
    id: 'replay',
    async generate(request): Promise<ModelResponse> {
      let prompt = '';
      for (const message of request.messages) prompt += JSON.stringify(message);
      return {
        text: TAOLOOP_TURNS[stepsDone(prompt)] ?? 'Answer: off script',
        usage: {},
        finishReason: 'stop',
      };
    },
  };
  const makeModel = (): Model =>
    options.kind === 'concurrent'
      ? shared
      : scriptedModel(TAOLOOP_TURNS, options.streaming ? { streamChunkChars: STREAM_CHUNK_CHARS } : {});
  return {
    name: `taoloop runAgent${options.streaming ? ', streaming' : ''}`,
    expected: ANSWER,
    from,
    async run() {
      const result = await runAgent({
        model: makeModel(),
        tools: [noop],
        question: QUESTION,
        modelSettings: { streaming: options.streaming },
      });
      return result.status === 'answered' ? result.answer : undefined;
    },
  };
}

// -------------------------------------------------------------------------------------------- LangChain

/** The members of LangChain.js that the bench uses. */
interface LangChainRunnable {
  readonly __runnable?: never;
}
interface LangChainExecutor {
  invoke(input: { input: string }): Promise<{ output?: unknown }>;
}
interface LangChainAgents {
  createReactAgent(fields: {
    llm: LangChainRunnable;
    tools: LangChainRunnable[];
    prompt: LangChainRunnable;
    streamRunnable?: boolean;
  }): Promise<LangChainRunnable>;
  AgentExecutor: new (fields: { agent: LangChainRunnable; tools: LangChainRunnable[] }) => LangChainExecutor;
}
interface LangChainLLM extends LangChainRunnable {
  responses?: string[] | undefined;
}
type LangChainLLMClass = new (fields: {
  responses?: string[];
  response?: string;
  sleep?: number;
}) => LangChainLLM;
interface LangChainTesting {
  FakeStreamingLLM: LangChainLLMClass;
  FakeLLM: LangChainLLMClass;
}
interface LangChainOutputs {
  GenerationChunk: new (fields: { text: string }) => unknown;
}

/**
 * LangChain.js: `createReactAgent` (langchain/agents) with the hwchase17/react prompt and `AgentExecutor`,
 * built once and invoked per run (`executor.invoke({ input })`). Tool: a `DynamicTool`.
 *
 * Sequential, not streaming: `FakeStreamingLLM` from `@langchain/core/utils/testing` (its `responses` list,
 * refilled before each run, is consumed one per call) with `streamRunnable: false`, so the agent calls
 * `llm.invoke` (`_call`). `FakeListChatModel` cannot be used: `createReactAgent` binds the stop sequence
 * `\nObservation:`, and `FakeListChatModel._generate` then answers the stop sequence itself instead of a
 * scripted turn. Sequential, streaming: the same class with `_streamResponseChunks` yielding 4-character
 * chunks at once (the original sleeps `sleep` ms per character) and `streamRunnable: true`, LangChain's
 * default. Concurrent: `FakeLLM` with `_call` picking the turn from the prompt.
 */
export async function langchain(
  tool: ToolFn,
  options: { streaming: boolean; kind: ModelKind },
): Promise<Contender> {
  process.env.LANGCHAIN_TRACING_V2 = 'false';
  process.env.LANGSMITH_TRACING = 'false';
  const agents = (await importPeer('langchain/agents')) as LangChainAgents;
  const { PromptTemplate } = (await importPeer('@langchain/core/prompts')) as {
    PromptTemplate: { fromTemplate(template: string): LangChainRunnable };
  };
  const { DynamicTool } = (await importPeer('@langchain/core/tools')) as {
    DynamicTool: new (fields: {
      name: string;
      description: string;
      func: (input: string) => Promise<string>;
    }) => LangChainRunnable;
  };
  const testing = (await importPeer('@langchain/core/utils/testing')) as LangChainTesting;
  const { GenerationChunk } = (await importPeer('@langchain/core/outputs')) as LangChainOutputs;

  class StreamingScriptLLM extends testing.FakeStreamingLLM {
    async *_streamResponseChunks(): AsyncGenerator<unknown> {
      const response = this.responses?.[0] ?? '';
      this.responses = this.responses?.slice(1);
      for (const text of chunks(response)) yield new GenerationChunk({ text });
    }
  }
  class ReplayLLM extends testing.FakeLLM {
    async _call(prompt: string): Promise<string> {
      return LANGCHAIN_TURNS[stepsDone(prompt)] ?? 'Final Answer: off script';
    }
  }

  let llm: LangChainLLM;
  if (options.kind === 'concurrent') llm = new ReplayLLM({});
  else if (options.streaming) llm = new StreamingScriptLLM({ responses: [] });
  else llm = new testing.FakeStreamingLLM({ responses: [] });
  const tools = [
    new DynamicTool({ name: TOOL_NAME, description: TOOL_DESCRIPTION, func: async (input) => tool(input) }),
  ];
  const agent = await agents.createReactAgent({
    llm,
    tools,
    prompt: PromptTemplate.fromTemplate(LANGCHAIN_REACT_PROMPT),
    streamRunnable: options.streaming,
  });
  const executor = new agents.AgentExecutor({ agent, tools });
  return {
    name: `LangChain.js ${peerVersion('langchain')} createReactAgent + AgentExecutor${options.streaming ? ', streaming' : ''}`,
    expected: ANSWER,
    from: 'bench/node_modules',
    async run() {
      if (options.kind === 'sequential') llm.responses = [...LANGCHAIN_TURNS];
      const { output } = await executor.invoke({ input: QUESTION });
      return typeof output === 'string' ? output : undefined;
    },
  };
}

// ------------------------------------------------------------------------------------------- LlamaIndex

interface LlamaMessage {
  role: string;
  content: unknown;
}
interface LlamaChatParams {
  messages: LlamaMessage[];
  stream?: boolean;
}
interface LlamaChatResponse {
  message: { role: 'assistant'; content: string };
  raw: null;
}
interface LlamaChunk {
  delta: string;
  raw: null;
}
/** The LLM interface members `ReActAgent` uses. */
interface LlamaLLM {
  metadata: Record<string, unknown>;
  supportToolCall: boolean;
  chat(params: LlamaChatParams): Promise<LlamaChatResponse | AsyncIterable<LlamaChunk>>;
  complete(params: unknown): Promise<never>;
}
interface LlamaEngineResponse {
  message: { content: unknown };
  delta?: string;
}
interface LlamaAgent {
  chat(params: {
    message: string;
    chatHistory: LlamaMessage[];
    stream?: boolean;
  }): Promise<LlamaEngineResponse | AsyncIterable<LlamaEngineResponse>>;
}

/**
 * LlamaIndex.TS: `ReActAgent` from `llamaindex/agent` (the text ReAct agent; an `AgentRunner` with
 * `ReACTAgentWorker`), built once and called per run as `agent.chat({ message, chatHistory: [] })` (an
 * empty history each time: the agent otherwise keeps every earlier run's messages). Tool:
 * `FunctionTool.from` with a one-string-argument JSON schema. LlamaIndex ships no list-replaying fake LLM
 * (`MockLLM` answers one fixed text, streamed with a 20 ms timer per character), so the model is an object
 * implementing its `LLM` interface: `chat` returns the next scripted turn (streaming: an async iterable of
 * 4-character deltas).
 */
export async function llamaindex(
  tool: ToolFn,
  options: { streaming: boolean; kind: ModelKind },
): Promise<Contender> {
  const { ReActAgent } = (await importPeer('llamaindex/agent')) as {
    ReActAgent: new (params: { llm: LlamaLLM; tools: unknown[]; verbose?: boolean }) => LlamaAgent;
  };
  const { FunctionTool } = (await importPeer('llamaindex/tools')) as {
    FunctionTool: {
      from(
        fn: (args: { input: string }) => Promise<string>,
        metadata: { name: string; description: string; parameters: Record<string, unknown> },
      ): unknown;
    };
  };
  let position = 0;
  const nextTurn = (messages: LlamaMessage[]): string => {
    if (options.kind === 'sequential') return LLAMAINDEX_TURNS[position++] ?? 'Answer: off script';
    let prompt = '';
    for (const message of messages) prompt += typeof message.content === 'string' ? message.content : '';
    return LLAMAINDEX_TURNS[stepsDone(prompt)] ?? 'Answer: off script';
  };
  const llm: LlamaLLM = {
    metadata: {
      model: 'scripted',
      temperature: 0,
      topP: 1,
      contextWindow: 100_000,
      tokenizer: undefined,
      structuredOutput: false,
    },
    supportToolCall: false,
    async chat(params) {
      const text = nextTurn(params.messages);
      if (!params.stream) return { message: { role: 'assistant', content: text }, raw: null };
      return (async function* () {
        for (const delta of chunks(text)) yield { delta, raw: null };
      })();
    },
    async complete() {
      throw new Error('ReActAgent calls chat, not complete');
    },
  };
  const noop = FunctionTool.from(async ({ input }) => tool(input), {
    name: TOOL_NAME,
    description: TOOL_DESCRIPTION,
    parameters: {
      type: 'object',
      properties: { input: { type: 'string', description: 'anything' } },
      required: ['input'],
    },
  });
  const agent = new ReActAgent({ llm, tools: [noop], verbose: false });
  return {
    name: `LlamaIndex.TS ${peerVersion('llamaindex')} ReActAgent${options.streaming ? ', streaming' : ''}`,
    // The agent answers with its model's whole last turn, `Thought:` included, not the text after `Answer:`.
    expected: LLAMAINDEX_TURNS[ACTIONS] ?? '',
    from: 'bench/node_modules',
    async run() {
      position = 0;
      const response = await agent.chat({ message: QUESTION, chatHistory: [], stream: options.streaming });
      if (!(Symbol.asyncIterator in response)) {
        const content = response.message.content;
        return typeof content === 'string' ? content : undefined;
      }
      let text = '';
      for await (const chunk of response) text += chunk.delta ?? '';
      return text;
    },
  };
}
