/**
 * cost: tokens and USD per answered task, taoloop against what users would pick instead, each with its
 * default settings: the AI SDK's tool loop (`ToolLoopAgent`, ai 6) and LangChain's current agent
 * (`createAgent`, langchain 1.x). The task is scripted and the same for all: 15 searches, each returning
 * a 400-token observation, then the answer (16 model calls). The models are local servers that speak the
 * Anthropic Messages API and OpenAI Chat Completions and bill as those providers do (`billing.ts`: cache
 * reads, cache writes, plain input and output at list prices: Claude Sonnet 4.5 $3 / $0.30 read / $3.75
 * write / $15 output, GPT-4.1 $2 / $0.50 cached / $8 output, per million tokens).
 *
 * The replies depend only on how many searches a request already holds, so every client gets the same
 * script: the same thought and search each step, written as text-protocol turns for taoloop (its default
 * mode) and as text plus a tool call for the peers (theirs). Output tokens count tool calls' arguments. Step limits
 * are raised where a default would stop the task (taoloop `maxSteps: 16`, LangGraph `recursionLimit: 50`;
 * the AI SDK's default of 20 steps is enough); nothing else is changed. Run: `npm run bench -- cost`.
 */

import { existsSync } from 'node:fs';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { tool as aiTool, ToolLoopAgent } from 'ai';
import { z } from 'zod';
import { runAgent } from '../../src/agent/loop.js';
import { resolveModelSpec } from '../../src/models/spec.js';
import type { Tool } from '../../src/tools/types.js';
import { type AnthropicRequestBody, startFakeAnthropic } from '../../test/helpers/fake-anthropic-server.js';
import type { FakeReply, ParsedRequestBody } from '../../test/helpers/fake-openai-server.js';
import { startFakeOpenAI } from '../../test/helpers/fake-openai-server.js';
import { emitFigure, ratioOf } from '../lib/protocol.js';
import { anthropicBilling, type Bill, openAiBilling, type Prices, usd } from './billing.js';

const COMMAND = 'npm run bench -- cost';
const SEARCHES = 15;
const QUESTION = 'List the 15 parts of the Brightgrid plan, searching for each part in turn.';
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
      ? 'The 15 parts are listed above.'
      : 'Thought: I have all parts.\nAnswer: the 15 parts';
  const query = `part ${done + 1}`;
  const thought = `I need ${query}.`;
  if (nativeTools)
    return { text: thought, toolCalls: [{ name: 'search', arguments: JSON.stringify({ query }) }] };
  return `Thought: ${thought}\nAction: search[${query}]`;
}

/** Searches already done, read from a request: tool results, or `Observation:` lines of the text protocol. */
function searchesIn(messages: readonly unknown[]): number {
  const text = JSON.stringify(messages);
  return (text.match(/"tool_result"|"role":"tool"|Observation: /g) ?? []).length;
}

type Framework = 'taoloop' | 'AI SDK ToolLoopAgent' | 'LangChain createAgent';
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
  const result = await runAgent({
    model: await resolveModelSpec(spec, env),
    question: QUESTION,
    tools: [search],
    maxSteps: SEARCHES + 1,
  });
  taoloopReportedUsd = result.costUsd;
  return result.status === 'answered';
}

/** The cost taoloop itself reported for its last run (from the usage the server sent and its price table). */
let taoloopReportedUsd: number | undefined;

async function runAiSdk(provider: Provider, baseURL: string): Promise<boolean> {
  const model =
    provider === 'anthropic'
      ? createAnthropic({ apiKey: 'bench', baseURL })(ANTHROPIC_MODEL)
      : createOpenAI({ apiKey: 'bench', baseURL }).chat(OPENAI_MODEL);
  const agent = new ToolLoopAgent({
    model,
    tools: {
      search: aiTool({
        description: 'Searches the Brightgrid documents.',
        inputSchema: z.object({ query: z.string() }),
        execute: async ({ query }) => observation(query),
      }),
    },
  });
  const result = await agent.generate({ prompt: QUESTION });
  return result.text.includes('15 parts');
}

/** The few members of LangChain 1.x used here (its types live in bench/cost/node_modules, outside the type check). */
interface LangChain {
  createAgent(options: { model: unknown; tools: unknown[] }): {
    invoke(input: unknown, config: { recursionLimit: number }): Promise<{ messages: { content: unknown }[] }>;
  };
  tool(run: (input: { query: string }) => Promise<string>, options: Record<string, unknown>): unknown;
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

async function runLangChain(provider: Provider, baseURL: string): Promise<boolean> {
  const { createAgent, tool: langchainTool } = (await importLangChain('langchain')) as LangChain;
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
  const agent = createAgent({ model, tools: [search] });
  const state = await agent.invoke(
    { messages: [{ role: 'user', content: QUESTION }] },
    { recursionLimit: 50 },
  );
  const last = state.messages.at(-1);
  return String(last?.content ?? '').includes('15 parts');
}

const RUNNERS: Record<Framework, (provider: Provider, baseURL: string) => Promise<boolean>> = {
  taoloop: runTaoloop,
  'AI SDK ToolLoopAgent': runAiSdk,
  'LangChain createAgent': runLangChain,
};

/** Runs one framework against a fresh billing server; returns its bills (one per model call). */
async function measure(framework: Framework, provider: Provider): Promise<Bill[]> {
  if (provider === 'anthropic') {
    const billing = anthropicBilling();
    const server = await startFakeAnthropic({
      replies: (body: AnthropicRequestBody) =>
        reply(searchesIn(body.messages), (body.tools ?? []).length > 0),
      usage: (body, text) => billing.usage(body, text),
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
    usage: (body, text) => billing.usage(body, text),
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

for (const provider of ['anthropic', 'openai'] as const) {
  const results = new Map<Framework, { usd: number; tokens: number; calls: number }>();
  for (const framework of Object.keys(RUNNERS) as Framework[]) {
    const bills = await measure(framework, provider);
    const cost = usd(bills, PRICES[provider]);
    results.set(framework, { usd: cost, tokens: totalTokens(bills), calls: bills.length });
    if (framework === 'taoloop' && Math.abs((taoloopReportedUsd ?? Number.NaN) - cost) > 1e-9) {
      throw new Error(`taoloop reported $${taoloopReportedUsd} but the server billed $${cost}`);
    }
    const read = bills.reduce((s, b) => s + b.cacheRead, 0);
    const written = bills.reduce((s, b) => s + b.cacheWrite, 0);
    process.stderr.write(
      `cost ${provider}: ${framework}: ${bills.length} calls, ${totalTokens(bills)} tokens (${read} cache read, ${written} cache write), $${cost.toFixed(4)}\n`,
    );
  }
  const ours = results.get('taoloop')!;
  const peers = [...results.entries()].filter(([name]) => name !== 'taoloop');
  const cheapest = Math.min(...peers.map(([, r]) => r.usd));
  const bill =
    provider === 'anthropic' ? 'Anthropic bill (Claude Sonnet 4.5 prices)' : 'OpenAI bill (GPT-4.1 prices)';
  for (const [name, peer] of peers) {
    const goal =
      provider === 'anthropic'
        ? { goal: '<= 0.5x the cheaper peer (issue 21)', met: ours.usd <= 0.5 * cheapest }
        : { goal: '<= 1x the cheaper peer (issue 21)', met: ours.usd <= cheapest };
    emitFigure({
      figure: `USD per answered 16-step task, ${bill} (taoloop)`,
      value: Number(ours.usd.toFixed(6)),
      unit: 'USD',
      baseline: `${name}, same task and server (${peer.tokens} tokens)`,
      baselineValue: Number(peer.usd.toFixed(6)),
      ratio: ratioOf(ours.usd, peer.usd),
      command: COMMAND,
      ...(peer.usd === cheapest ? goal : {}),
    });
  }
  emitFigure({
    figure: `tokens per answered 16-step task, ${bill} (taoloop)`,
    value: ours.tokens,
    unit: 'tokens',
    baseline: `the cheaper peer (${peers.find(([, r]) => r.usd === cheapest)![0]})`,
    baselineValue: peers.find(([, r]) => r.usd === cheapest)![1].tokens,
    ratio: ratioOf(ours.tokens, peers.find(([, r]) => r.usd === cheapest)![1].tokens),
    command: COMMAND,
  });
}
