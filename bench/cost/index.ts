/**
 * cost: USD per answered task, taoloop against what users would pick instead, each at its defaults AND at
 * its best (prompt caching on, as its docs recommend): the AI SDK's tool loop (`ToolLoopAgent`, ai 6; best:
 * a `prepareStep` that marks the last message as a cache breakpoint, the AI SDK's documented way) and
 * LangChain's current agent (`createAgent`, langchain 1.x; best: `anthropicPromptCachingMiddleware`, which
 * sends Anthropic's top-level `cache_control`). OpenAI caches by itself, so there a peer's default is its best.
 *
 * Workloads: 8, 32 and 64 steps (7, 31 and 63 searches, each a 400-token observation, then the answer). The
 * models are local servers that speak the Anthropic Messages API and OpenAI Chat Completions and bill as those
 * providers do (`billing.ts`: cache reads, writes, plain input and output at list prices: Claude Sonnet 4.5
 * $3 / $0.30 read / $3.75 write / $15 output, GPT-4.1 $2 / $0.50 cached / $8 output, per million tokens).
 * Each figure also gives taoloop's bill against the cache-optimal bill of its own requests (every input
 * token written once and read after: `cacheOptimalUsd`), the bound no client can beat.
 *
 * The replies depend only on how many searches a request already holds, so every client gets the same
 * script: text-protocol turns for taoloop (its default mode) and text plus a tool call for the peers
 * (theirs). Step limits are raised where a default would stop the task. Run: `npm run bench -- cost`.
 *
 * A conversation workload: 4 questions of 8 steps in one conversation, kept as each framework keeps one
 * (taoloop: `result.messages`; the AI SDK: `response.messages`; LangChain: the state's messages), on one billing
 * server, so a run can read what an earlier one cached. Not measured yet (issue 30): a context window.
 */

import { existsSync } from 'node:fs';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { tool as aiTool, type ModelMessage, stepCountIs, ToolLoopAgent } from 'ai';
import { z } from 'zod';
import { runAgent } from '../../src/agent/loop.js';
import type { AgentMessage } from '../../src/agent/types.js';
import { resolveModelSpec } from '../../src/models/spec.js';
import type { Tool } from '../../src/tools/types.js';
import { type AnthropicRequestBody, startFakeAnthropic } from '../../test/helpers/fake-anthropic-server.js';
import type { FakeReply, ParsedRequestBody } from '../../test/helpers/fake-openai-server.js';
import { startFakeOpenAI } from '../../test/helpers/fake-openai-server.js';
import { emitFigure, ratioOf } from '../lib/protocol.js';
import {
  anthropicBilling,
  anthropicPromptText,
  type Bill,
  cacheOptimalUsd,
  openAiBilling,
  openAiText,
  type Prices,
  tokens,
  usd,
} from './billing.js';

const COMMAND = 'npm run bench -- cost';
/** Steps per workload: searches, then the answer. */
const WORKLOADS = [8, 32, 64] as const;
/** Searches of the workload being measured (set before each run). */
let SEARCHES = 7;
/** Questions of the workload being measured: one, or several in one conversation (set before each run). */
let QUESTIONS = 1;
const question = (n = 1) =>
  `${n > 1 ? `Next, group ${n}: ` : ''}List the ${SEARCHES} parts of the Brightgrid plan, searching for each part in turn.`;
/**
 * The context window of the window workload (tokens), or none. Under it: taoloop's own compaction
 * (`prompt.contextWindowTokens`, its default marker compaction); LangChain's `contextEditingMiddleware` with a
 * `ClearToolUsesEdit` triggered at 80% of the window (its documented way, keeping the 3 newest results); the
 * AI SDK's `prepareStep` doing the same (it has no built-in, so as a user would write it). Peers run only at
 * their best here (with caching), since without context management a real model would refuse the call.
 */
let WINDOW: number | undefined;
const WINDOW_TOKENS = 12_000;
/** The conversation workload: questions of 8 steps each, in one conversation. */
const CONVERSATION = { questions: 4, steps: 8 } as const;
const OBSERVATION = 'Brightgrid Pro costs $20 per month per developer; volume discounts start at 50 seats. '
  .repeat(19)
  .slice(0, 1600);
const ANTHROPIC_MODEL = 'claude-sonnet-4-5';
const OPENAI_MODEL = 'gpt-4.1';
const PRICES: Record<'anthropic' | 'openai', Prices> = {
  anthropic: { input: 3, cacheRead: 0.3, cacheWrite: 3.75, output: 15 },
  openai: { input: 2, cacheRead: 0.5, cacheWrite: 0, output: 8 },
};

const observation = (query: string) => `Results for "${query}": ${OBSERVATION}`;

/** The scripted reply to a request that already holds `done` searches. */
function reply(done: number, nativeTools: boolean): FakeReply {
  if (done >= SEARCHES)
    return nativeTools
      ? `The ${SEARCHES} parts are listed above.`
      : `Thought: I have all parts.\nAnswer: the ${SEARCHES} parts`;
  const query = `part ${done + 1}`;
  const thought = `I need ${query}.`;
  if (nativeTools)
    return { text: thought, toolCalls: [{ name: 'search', arguments: JSON.stringify({ query }) }] };
  return `Thought: ${thought}\nAction: search[${query}]`;
}

/** Searches already done, read from a request: tool results, or `Observation:` lines of the text protocol. */
function searchesIn(messages: readonly unknown[]): number {
  // Only the searches for the current question: those after the last message that asks one.
  const last = messages.findLastIndex((m) => JSON.stringify(m).includes('parts of the Brightgrid plan'));
  const text = JSON.stringify(messages.slice(last + 1));
  return (text.match(/"tool_result"|"role":"tool"|Observation: /g) ?? []).length;
}

type Framework =
  | 'taoloop'
  | 'AI SDK ToolLoopAgent'
  | 'AI SDK ToolLoopAgent + cache breakpoint'
  | 'LangChain createAgent'
  | 'LangChain createAgent + anthropicPromptCachingMiddleware';
type Provider = 'anthropic' | 'openai';

async function runTaoloop(provider: Provider, baseURL: string): Promise<boolean> {
  const env =
    provider === 'anthropic'
      ? { ANTHROPIC_API_KEY: 'bench', ANTHROPIC_BASE_URL: baseURL }
      : { OPENAI_API_KEY: 'bench', OPENAI_BASE_URL: baseURL };
  const spec = provider === 'anthropic' ? `anthropic:${ANTHROPIC_MODEL}` : `openai:${OPENAI_MODEL}`;
  const search: Tool = {
    name: 'search',
    description: 'Searches the Brightgrid documents.',
    run: observation,
  };
  const model = await resolveModelSpec(spec, env);
  // A conversation as taoloop keeps one: each run's `messages` (questions and answers) go to the next.
  let messages: AgentMessage[] = [];
  let costUsd = 0;
  for (let n = 1; n <= QUESTIONS; n++) {
    const result = await runAgent({
      model,
      messages: [...messages, { role: 'user', content: question(n) }],
      tools: [search],
      maxSteps: SEARCHES + 1,
      ...(WINDOW !== undefined && { prompt: { contextWindowTokens: WINDOW } }),
    });
    if (result.status !== 'answered' || result.costUsd === undefined) return false;
    costUsd += result.costUsd;
    messages = result.messages;
  }
  taoloopReportedUsd = costUsd;
  return true;
}

/** The cost taoloop itself reported for its last run (from the usage the server sent and its price table). */
let taoloopReportedUsd: number | undefined;

async function runAiSdk(provider: Provider, baseURL: string, cached = false): Promise<boolean> {
  const model =
    provider === 'anthropic'
      ? createAnthropic({ apiKey: 'bench', baseURL })(ANTHROPIC_MODEL)
      : createOpenAI({ apiKey: 'bench', baseURL }).chat(OPENAI_MODEL);
  const agent = new ToolLoopAgent({
    model,
    stopWhen: stepCountIs(SEARCHES + 2),
    // At its best (the AI SDK's documented cache control): the last message of each step is a breakpoint.
    ...((cached || WINDOW !== undefined) && {
      prepareStep: ({ messages }: { messages: ModelMessage[] }) => ({
        messages: (WINDOW === undefined ? messages : clearToolUses(messages, WINDOW)).map((message, i) =>
          cached && i === messages.length - 1
            ? { ...message, providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } } }
            : message,
        ),
      }),
    }),
    tools: {
      search: aiTool({
        description: 'Searches the Brightgrid documents.',
        inputSchema: z.object({ query: z.string() }),
        execute: async ({ query }) => observation(query),
      }),
    },
  });
  // A conversation as the AI SDK keeps one: the response messages (tool calls and results) go to the next call.
  let history: ModelMessage[] = [];
  for (let n = 1; n <= QUESTIONS; n++) {
    const asked: ModelMessage = { role: 'user', content: question(n) };
    const result = await agent.generate({ messages: [...history, asked] });
    if (!result.text.includes(`${SEARCHES} parts`)) return false;
    history = [...history, asked, ...result.response.messages];
  }
  return true;
}

/**
 * What LangChain's `ClearToolUsesEdit` does, for the AI SDK (which has no built-in): once the messages pass
 * 80% of the window (characters / 4), every tool result but the 3 newest becomes `[cleared]`.
 */
function clearToolUses(messages: ModelMessage[], window: number): ModelMessage[] {
  if (JSON.stringify(messages).length / 4 < 0.8 * window) return messages;
  const results = messages.flatMap((m, i) => (m.role === 'tool' ? [i] : []));
  const cleared = new Set(results.slice(0, -3));
  return messages.map((m, i) =>
    cleared.has(i) && m.role === 'tool'
      ? {
          ...m,
          content: m.content.map((part) =>
            part.type === 'tool-result'
              ? { ...part, output: { type: 'text' as const, value: '[cleared]' } }
              : part,
          ),
        }
      : m,
  );
}

/** The few members of LangChain 1.x used here (its types live in bench/cost/node_modules, outside the type check). */
interface LangChain {
  createAgent(options: { model: unknown; tools: unknown[]; middleware?: unknown[] }): {
    invoke(input: unknown, config: { recursionLimit: number }): Promise<{ messages: { content: unknown }[] }>;
  };
  tool(run: (input: { query: string }) => Promise<string>, options: Record<string, unknown>): unknown;
  anthropicPromptCachingMiddleware(options?: Record<string, unknown>): unknown;
  contextEditingMiddleware(options: { edits: unknown[] }): unknown;
  ClearToolUsesEdit: new (options: Record<string, unknown>) => unknown;
}
type ChatModelClass = new (options: Record<string, unknown>) => unknown;

/**
 * Imports a LangChain package from bench/cost/node_modules (a plain string specifier, so the root type
 * check does not resolve it). `npm run bench` installs them.
 */
async function importLangChain(specifier: string): Promise<unknown> {
  if (!existsSync(new URL('./node_modules', import.meta.url))) {
    throw new Error(
      'bench/cost dependencies are not installed: run `npm ci --prefix bench/cost` (npm run bench does it)',
    );
  }
  return import(specifier);
}

async function runLangChain(provider: Provider, baseURL: string, cached = false): Promise<boolean> {
  const {
    createAgent,
    tool: langchainTool,
    anthropicPromptCachingMiddleware,
    contextEditingMiddleware,
    ClearToolUsesEdit,
  } = (await importLangChain('langchain')) as LangChain;
  const model =
    provider === 'anthropic'
      ? new (
          (await importLangChain('@langchain/anthropic')) as { ChatAnthropic: ChatModelClass }
        ).ChatAnthropic({
          model: ANTHROPIC_MODEL,
          apiKey: 'bench',
          anthropicApiUrl: baseURL.replace(/\/v1$/, ''),
        })
      : new ((await importLangChain('@langchain/openai')) as { ChatOpenAI: ChatModelClass }).ChatOpenAI({
          model: OPENAI_MODEL,
          apiKey: 'bench',
          configuration: { baseURL },
        });
  const search = langchainTool(async ({ query }) => observation(query), {
    name: 'search',
    description: 'Searches the Brightgrid documents.',
    schema: z.object({ query: z.string() }),
  });
  // At its best: LangChain's prompt caching middleware (Anthropic's top-level `cache_control`).
  const middleware = [
    ...(cached ? [anthropicPromptCachingMiddleware()] : []),
    ...(WINDOW !== undefined
      ? [
          contextEditingMiddleware({
            edits: [new ClearToolUsesEdit({ trigger: { tokens: 0.8 * WINDOW }, keep: { messages: 3 } })],
          }),
        ]
      : []),
  ];
  const agent = createAgent({ model, tools: [search], middleware });
  // A conversation as LangChain keeps one: the state's messages go to the next invocation.
  let messages: unknown[] = [];
  for (let n = 1; n <= QUESTIONS; n++) {
    const state = await agent.invoke(
      { messages: [...messages, { role: 'user', content: question(n) }] },
      { recursionLimit: 2 * SEARCHES + 10 },
    );
    if (!String(state.messages.at(-1)?.content ?? '').includes(`${SEARCHES} parts`)) return false;
    messages = state.messages;
  }
  return true;
}

const RUNNERS: Record<Framework, (provider: Provider, baseURL: string) => Promise<boolean>> = {
  taoloop: runTaoloop,
  'AI SDK ToolLoopAgent': (provider, baseURL) => runAiSdk(provider, baseURL),
  'AI SDK ToolLoopAgent + cache breakpoint': (provider, baseURL) => runAiSdk(provider, baseURL, true),
  'LangChain createAgent': (provider, baseURL) => runLangChain(provider, baseURL),
  'LangChain createAgent + anthropicPromptCachingMiddleware': (provider, baseURL) =>
    runLangChain(provider, baseURL, true),
};

/** The peers' caching options are Anthropic's; OpenAI caches by itself (a peer's default is its best there). */
const frameworksFor = (provider: Provider): Framework[] =>
  (Object.keys(RUNNERS) as Framework[]).filter((f) => {
    if (provider === 'openai') return !/cach/i.test(f);
    // Under a window the peers run at their best only (see WINDOW).
    return WINDOW === undefined || f === 'taoloop' || /cach/i.test(f);
  });

/** The prompts of the last measured run, in order, with their output tokens (for the cache-optimal bill). */
let prompts: { text: string; output: number }[] = [];

/** Runs one framework against a fresh billing server; returns its bills (one per model call). */
async function measure(framework: Framework, provider: Provider): Promise<Bill[]> {
  prompts = [];
  if (provider === 'anthropic') {
    const billing = anthropicBilling();
    const server = await startFakeAnthropic({
      replies: (body: AnthropicRequestBody) =>
        reply(searchesIn(body.messages), (body.tools ?? []).length > 0),
      usage: (body, text) => {
        prompts.push({ text: anthropicPromptText(body), output: tokens(text) });
        return billing.usage(body, text);
      },
    });
    try {
      if (!(await RUNNERS[framework](provider, server.baseURL)))
        throw new Error(`${framework} did not answer`);
    } finally {
      await server.close();
    }
    return billing.bills;
  }
  const billing = openAiBilling();
  const server = await startFakeOpenAI({
    replies: (body: ParsedRequestBody) =>
      reply(searchesIn(body.messages), Array.isArray(body.tools) && body.tools.length > 0),
    usage: (body, text) => {
      prompts.push({ text: openAiText(body), output: tokens(text) });
      return billing.usage(body, text);
    },
  });
  try {
    if (!(await RUNNERS[framework](provider, server.baseURL))) throw new Error(`${framework} did not answer`);
  } finally {
    await server.close();
  }
  return billing.bills;
}

const totalTokens = (bills: readonly Bill[]) =>
  bills.reduce((sum, b) => sum + b.uncachedInput + b.cacheRead + b.cacheWrite + b.output, 0);

const workloads = [
  ...WORKLOADS.map((steps) => ({ steps, questions: 1, name: `${steps}-step task` })),
  {
    steps: 64,
    questions: 1,
    name: `64-step task under a ${WINDOW_TOKENS.toLocaleString('en')}-token context window`,
    window: WINDOW_TOKENS,
  },
  {
    steps: CONVERSATION.steps,
    questions: CONVERSATION.questions,
    name: `conversation of ${CONVERSATION.questions} questions of ${CONVERSATION.steps} steps`,
  },
];
for (const { steps, questions, name: workload, window } of workloads as {
  steps: number;
  questions: number;
  name: string;
  window?: number;
}[]) {
  SEARCHES = steps - 1;
  QUESTIONS = questions;
  WINDOW = window;
  for (const provider of ['anthropic', 'openai'] as const) {
    const results = new Map<Framework, { usd: number; tokens: number; calls: number }>();
    let optimalUsd = 0;
    for (const framework of frameworksFor(provider)) {
      const bills = await measure(framework, provider);
      const cost = usd(bills, PRICES[provider]);
      results.set(framework, { usd: cost, tokens: totalTokens(bills), calls: bills.length });
      if (framework === 'taoloop') {
        optimalUsd = cacheOptimalUsd(prompts, PRICES[provider]);
        if (Math.abs((taoloopReportedUsd ?? Number.NaN) - cost) > 1e-9)
          throw new Error(`taoloop reported $${taoloopReportedUsd} but the server billed $${cost}`);
      }
      const read = bills.reduce((s, b) => s + b.cacheRead, 0);
      const written = bills.reduce((s, b) => s + b.cacheWrite, 0);
      process.stderr.write(
        `cost ${workload}, ${provider}: ${framework}: ${bills.length} calls, ${totalTokens(bills)} tokens (${read} cache read, ${written} cache write), $${cost.toFixed(4)}\n`,
      );
    }
    const ours = results.get('taoloop')!;
    const peers = [...results.entries()].filter(([name]) => name !== 'taoloop');
    const [bestName, best] = peers.reduce((a, b) => (b[1].usd < a[1].usd ? b : a));
    const bill =
      provider === 'anthropic' ? 'Anthropic bill (Claude Sonnet 4.5 prices)' : 'OpenAI bill (GPT-4.1 prices)';
    const figure = `USD per answered ${workload}, ${bill} (taoloop)`;
    for (const [name, peer] of peers) {
      emitFigure({
        figure,
        value: Number(ours.usd.toFixed(6)),
        unit: 'USD',
        against: 'peer',
        baseline: `${name}, same task and server (${peer.tokens} tokens)`,
        baselineValue: Number(peer.usd.toFixed(6)),
        ratio: ratioOf(ours.usd, peer.usd),
        command: COMMAND,
        ...(name === bestName && {
          goal: '< 1.0x the best-configured peer (issue 30)',
          met: ours.usd < best.usd,
        }),
      });
    }
    emitFigure({
      figure,
      value: Number(ours.usd.toFixed(6)),
      unit: 'USD',
      against: 'ideal',
      baseline: "the cache-optimal bill of taoloop's own requests (each token written once, read after)",
      baselineValue: Number(optimalUsd.toFixed(6)),
      ratio: ratioOf(ours.usd, optimalUsd),
      command: COMMAND,
      goal: '<= 1.05x the cache-optimal bill (issue 30)',
      met: ours.usd <= 1.05 * optimalUsd,
    });
  }
}
