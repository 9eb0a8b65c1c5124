/**
 * prompt-prefix: how much of the prompt text a run sends is the previous request's prompt, over a 16-step
 * run with 400-token observations: what a provider's prompt cache can reuse (Anthropic's breakpoints,
 * OpenAI's automatic prefix cache, the KV cache of llama.cpp server and vLLM). Measured on the requests a
 * real `runAgent` sends, in text and native mode, with no context limit and with windows of 8,192 and
 * 4,096 tokens (llama.cpp's common sizes), which the transcript overflows once and several times. Baseline, same steps: the requests rebuilt with the oldest observations shortened
 * one at a time, only as far as each request needs (taoloop before cache-stable shortening).
 *
 * Share = Σ common prefix of requests n-1 and n / Σ length of request n, over requests 2..16 (so a long
 * request weighs as much as the tokens it bills). Run: `npm run bench -- prompt-prefix`.
 */
import { estimateTokens } from '../../src/agent/context.js';
import { runAgent } from '../../src/agent/loop.js';
import { renderNativeMessages } from '../../src/agent/native.js';
import type { Step } from '../../src/agent/types.js';
import type { Model, ModelMessage, ModelRequest } from '../../src/models/types.js';
import { renderMessages, type TranscriptEntry } from '../../src/react/prompt.js';
import type { Tool } from '../../src/tools/types.js';
import { emitFigure, type Figure, ratioOf } from '../lib/protocol.js';
import { OBSERVATION, prefixShare, requestText, STEPS } from './shared.js';

const COMMAND = 'npm run bench -- prompt-prefix';
const GOAL = 0.85;
const QUESTION = 'What are the 15 parts?';
/** The CLI's default cap on one model turn. */
const MAX_OUTPUT_TOKENS = 2048;

const search: Tool = {
  name: 'search',
  description: 'Searches the documents.',
  run: (q) => `${q}: ${OBSERVATION}`,
};

/** A model that calls `search` 15 times (as text or as native tool calls), then answers; keeps its requests. */
function benchModel(mode: 'text' | 'native', requests: ModelRequest[]): Model {
  return {
    id: 'bench',
    supportsToolCalls: mode === 'native',
    async generate(request) {
      requests.push(request);
      const n = requests.length;
      if (n >= STEPS)
        return {
          text: mode === 'text' ? 'Thought: Done.\nAnswer: 42' : '42',
          usage: {},
          finishReason: 'stop',
        };
      if (mode === 'text') {
        return {
          text: `Thought: I need part ${n}.\nAction: search[part ${n}]`,
          usage: {},
          finishReason: 'stop',
        };
      }
      const call = { id: `call_${n}`, name: 'search', input: JSON.stringify({ input: `part ${n}` }) };
      return { text: `I need part ${n}.`, toolCalls: [call], usage: {}, finishReason: 'tool-calls' };
    },
  };
}

async function run(mode: 'text' | 'native', contextWindowTokens: number | undefined) {
  const requests: ModelRequest[] = [];
  const result = await runAgent({
    model: benchModel(mode, requests),
    question: QUESTION,
    tools: [search],
    maxSteps: STEPS,
    ...(contextWindowTokens !== undefined && { prompt: { contextWindowTokens } }),
    modelSettings: { mode, maxOutputTokens: MAX_OUTPUT_TOKENS },
  });
  if (result.status !== 'answered') throw new Error(`bench run ended ${result.status}`);
  return { requests, steps: result.steps };
}

/** taoloop's shortening before this benchmark: the oldest observations, one at a time, only as far as needed. */
function shortenOneAtATime(entries: readonly TranscriptEntry[], budgetTokens: number): TranscriptEntry[] {
  const cost = (e: TranscriptEntry) =>
    estimateTokens(e.modelText) + (e.observation === undefined ? 0 : estimateTokens(e.observation)) + 8;
  let total = entries.reduce((sum, e) => sum + cost(e), 0);
  const fitted = entries.map((e) => ({ ...e }));
  for (let i = 0; i < fitted.length - 1 && total > budgetTokens; i++) {
    const entry = fitted[i]!;
    if (entry.observation === undefined) continue;
    const before = cost(entry);
    entry.observation = `[observation shortened to fit the context window: ${entry.observation.length} characters]`;
    total -= before - cost(entry);
  }
  return fitted;
}

/** The requests of a finished run rebuilt with one-at-a-time shortening (the baseline). */
function oneAtATime(
  mode: 'text' | 'native',
  first: ModelRequest,
  steps: readonly Step[],
  budgetTokens: number,
) {
  const systemPrompt = first.messages[0]!.content;
  const questionLine = first.messages[1]!.content;
  const prompts: ModelMessage[][] = [];
  for (let n = 0; n < steps.length; n++) {
    const done = steps.slice(0, n);
    const entries = done.map((s) => ({ modelText: s.transcriptText, observation: s.observation?.text }));
    const fitted = shortenOneAtATime(entries, budgetTokens);
    if (mode === 'text') {
      prompts.push(renderMessages({ systemPrompt, question: QUESTION, entries: fitted }));
    } else {
      const shortened = done.map((s, i) =>
        s.observation ? { ...s, observation: { ...s.observation, text: fitted[i]!.observation! } } : s,
      );
      prompts.push(renderNativeMessages(systemPrompt, questionLine, shortened));
    }
  }
  return prompts.map(requestText);
}

/** Context windows of llama.cpp's common sizes: the 16-step transcript overflows 8k once and 4k often. */
const WINDOWS = [8192, 4096] as const;

for (const mode of ['text', 'native'] as const) {
  const unlimited = await run(mode, undefined);
  const first = unlimited.requests[0]!;
  const fixed = estimateTokens(first.messages[0]!.content + QUESTION) + MAX_OUTPUT_TOKENS;
  const scenarios: [string, Awaited<ReturnType<typeof run>>, string[] | undefined][] = [
    ['no context limit', unlimited, undefined],
  ];
  for (const window of WINDOWS) {
    const overflowing = await run(mode, window);
    const baseline = oneAtATime(mode, first, overflowing.steps, window - fixed);
    scenarios.push([`${window}-token context window`, overflowing, baseline]);
  }
  for (const [scenario, measured, baseline] of scenarios) {
    const share = prefixShare(measured.requests.map((r) => requestText(r.messages)));
    const baselineShare = baseline ? prefixShare(baseline) : share;
    process.stderr.write(
      `prompt-prefix ${mode} mode, ${scenario}: ${(share * 100).toFixed(1)}% shared (baseline ${(baselineShare * 100).toFixed(1)}%)\n`,
    );
    emitFigure({
      figure: `prompt shared with the previous request, 16 steps, ${mode} mode, ${scenario} (taoloop)`,
      value: Math.round(share * 1000) / 1000,
      unit: 'share',
      against: 'self',
      baseline: baseline
        ? 'same steps, oldest observations shortened one at a time (taoloop before)'
        : 'nothing shortened (the same)',
      baselineValue: Math.round(baselineShare * 1000) / 1000,
      ratio: ratioOf(share, baselineShare),
      command: COMMAND,
      ...goalOf(measured.requests),
    });
  }
}

/**
 * The goal holds where it can: when each new step is over 15% of the request, no shortening can share 0.85
 * (the new step alone is more than the rest), so such a window gets its bound as context instead.
 */
function goalOf(requests: readonly ModelRequest[]): Pick<Figure, 'goal' | 'met'> {
  const texts = requests.map((r) => requestText(r.messages));
  const longest = Math.max(...texts.map((t) => t.length));
  const step = OBSERVATION.length + 60;
  const bound = 1 - step / longest;
  if (bound < GOAL)
    return {
      goal: `none: a new step is ${Math.round((step / longest) * 100)}% of the longest request, so at most ${bound.toFixed(2)} can be shared`,
    };
  return { goal: `>= ${GOAL} (issue 21)`, met: texts.length > 1 && prefixShare(texts) >= GOAL };
}
