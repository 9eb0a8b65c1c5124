import assert from 'node:assert/strict';
import { test } from 'node:test';
import { markerCompaction, summaryCompaction } from '../../src/agent/compaction.js';
import { runAgent, streamAgent } from '../../src/agent/loop.js';
import type { AgentOptions, PromptOptions } from '../../src/agent/options.js';
import type { AgentEvent, RunResult } from '../../src/agent/types.js';
import { scriptedModel } from '../../src/testing/scripted-model.js';
import type { Tool } from '../../src/tools/types.js';

/** Each page is about 2,000 tokens (4 characters a token), with a line that names it. */
const page: Tool = {
  name: 'page',
  description: 'Reads a page by number.',
  maxOutputChars: 9000,
  run: (input: string) => `PAGE-${input.trim()} says the code is ${input.trim()}42.\n${'x'.repeat(8000)}`,
};
const read = (n: number) => `Thought: read page ${n}.\nAction: page[${n}]`;
const ANSWER = 'Thought: done.\nAnswer: 542';
/**
 * Room for the system prompt and about 5,000 tokens of transcript: the third page no longer fits. With more
 * `prompt` options (the compaction strategy).
 */
const windowed = (prompt: PromptOptions = {}) =>
  ({ prompt: { contextWindowTokens: 6000, ...prompt }, modelSettings: { maxOutputTokens: 100 } }) as const;

async function run(options: AgentOptions): Promise<{ result: RunResult; events: AgentEvent[] }> {
  const events: AgentEvent[] = [];
  const stream = streamAgent(options);
  let next = await stream.next();
  while (!next.done) {
    events.push(next.value);
    next = await stream.next();
  }
  return { result: next.value, events };
}

test('summaryCompaction replaces old observations with a summary from a second model, and reuses it', async () => {
  const main = scriptedModel([read(1), read(2), read(3), read(4), read(5), ANSWER], {
    id: 'main-model',
    usage: { inputTokens: 10, outputTokens: 5 },
  });
  const summarizer = scriptedModel(
    ['Pages 1 and 2 give the codes 142 and 242.', 'Pages 1-4 give the codes 142, 242, 342 and 442.'],
    { id: 'cheap-model', usage: { inputTokens: 1000, outputTokens: 50 } },
  );
  const { result, events } = await run({
    model: main,
    question: 'What is the code on page 5?',
    tools: [page],
    ...windowed({ compaction: summaryCompaction({ model: summarizer, keepLatestSteps: 1 }) }),
  });
  assert.equal(result.status, 'answered');
  main.assertAllUsed();
  summarizer.assertAllUsed();

  // The first summary (before call 4) is of steps 1-2, the second (before call 6) of the first summary and steps 3-4.
  const [first, second] = summarizer.requests.map((r) => r.messages.at(-1)!.content);
  assert.match(first!, /PAGE-1 says/);
  assert.match(first!, /PAGE-2 says/);
  assert.doesNotMatch(first!, /PAGE-3/);
  assert.match(second!, /Summary of steps 1-2:\nPages 1 and 2 give the codes 142 and 242\./);
  assert.match(second!, /PAGE-3 says/);
  assert.match(second!, /PAGE-4 says/);
  assert.doesNotMatch(second!, /PAGE-1 says/);
  assert.equal(summarizer.requests[0]!.maxOutputTokens, 512);

  // What the main model was sent: calls 1-3 whole; call 4 and 5 with the first summary; call 6 with the second.
  const sent = main.requests.map((r) => r.messages.map((m) => m.content).join('\n'));
  assert.match(sent[2]!, /PAGE-1 says/);
  for (const i of [3, 4]) {
    assert.doesNotMatch(sent[i]!, /PAGE-1 says|PAGE-2 says/);
    assert.match(sent[i]!, /\[summary of the observations of steps 1-2\]\nPages 1 and 2 give the codes/);
    assert.match(sent[i]!, /\[observation summarised in the observation of step 2\]/);
    assert.match(sent[i]!, /PAGE-3 says/);
  }
  assert.match(sent[5]!, /\[summary of the observations of steps 1-4\]\nPages 1-4 give/);
  assert.doesNotMatch(sent[5]!, /PAGE-[1-4] says/);
  assert.match(sent[5]!, /PAGE-5 says/);
  // The model's own turns stay: every action is still in the transcript.
  for (const n of [1, 2, 3, 4, 5]) assert.match(sent[5]!, new RegExp(`Action: page\\[${n}\\]`));

  // The trace keeps every observation whole; the summary calls are events and count in the usage.
  assert.ok(
    result.steps[0]!.observation!.text.includes('x'.repeat(8000)),
    'the trace keeps the observation whole',
  );
  const hookCalls = events.filter((e) => e.type === 'hook-model-end');
  assert.deepEqual(
    hookCalls.map((e) => e.type === 'hook-model-end' && [e.step, e.modelId, e.purpose]),
    [
      [4, 'cheap-model', 'summary'],
      [6, 'cheap-model', 'summary'],
    ],
  );
  assert.equal(result.usage.inputTokens, 6 * 10 + 2 * 1000);
  assert.equal(result.usage.outputTokens, 6 * 5 + 2 * 50);
});

test('summaryCompaction does nothing while the transcript fits', async () => {
  const summarizer = scriptedModel([]);
  const result = await runAgent({
    model: scriptedModel([read(1), ANSWER]),
    question: 'Code?',
    tools: [page],
    ...windowed({ compaction: summaryCompaction({ model: summarizer }) }),
  });
  assert.equal(result.status, 'answered');
  assert.equal(summarizer.requests.length, 0);
});

test('a summary model that fails ends the run with error saying compaction failed', async () => {
  const result = await runAgent({
    model: scriptedModel([read(1), read(2), read(3)]),
    question: 'Code?',
    tools: [page],
    ...windowed({
      compaction: summaryCompaction({
        model: scriptedModel([new Error('summary server down')]),
        keepLatestSteps: 1,
      }),
    }),
  });
  assert.equal(result.status, 'error');
  assert.equal(result.error, 'compaction failed: summary server down');
  assert.equal(result.steps.length, 3, 'the steps so far are kept');
});

test('the marker strategy is the default; compaction: false sends every step whole', async () => {
  const script = [read(1), read(2), read(3), ANSWER];
  const byDefault = scriptedModel(script);
  await runAgent({ model: byDefault, question: 'Code?', tools: [page], ...windowed() });
  const explicit = scriptedModel(script);
  await runAgent({
    model: explicit,
    question: 'Code?',
    tools: [page],
    ...windowed({ compaction: markerCompaction() }),
  });
  const whole = scriptedModel(script);
  await runAgent({
    model: whole,
    question: 'Code?',
    tools: [page],
    ...windowed({ compaction: false }),
  });
  const last = (m: typeof whole) =>
    m.requests
      .at(-1)!
      .messages.map((x) => x.content)
      .join('\n');
  assert.match(last(byDefault), /\[observation shortened to fit the context window: \d+ characters\]/);
  assert.equal(last(explicit), last(byDefault));
  assert.doesNotMatch(last(whole), /shortened/);
  for (const n of [1, 2, 3]) assert.match(last(whole), new RegExp(`PAGE-${n} says`));
});

test('summaryCompaction refuses a negative keepLatestSteps', () => {
  assert.throws(
    () => summaryCompaction({ model: scriptedModel([]), keepLatestSteps: -1 }),
    /keepLatestSteps/,
  );
});

test('a summary the token budget has no room for is not asked for: markers shorten the transcript and the run goes on', async () => {
  // A long summary prompt (about 5,000 tokens of instructions) makes the summary call larger than the
  // marker-shortened step, so only the step fits in what is left of the budget.
  const summarizer = scriptedModel([]);
  const main = scriptedModel([read(1), read(2), read(3), ANSWER], {
    usage: { inputTokens: 10, outputTokens: 5 },
  });
  const { result, events } = await run({
    model: main,
    question: 'What is the code on page 3?',
    tools: [page],
    limits: { maxTokens: 7600 },
    ...windowed({
      compaction: summaryCompaction({
        model: summarizer,
        keepLatestSteps: 1,
        instructions: `Summarise. ${'Keep every number. '.repeat(1000)}`,
      }),
    }),
  });
  assert.equal(result.status, 'answered', result.error);
  main.assertAllUsed();
  assert.equal(summarizer.requests.length, 0, 'the summary call was not made');
  assert.equal(events.filter((e) => e.type === 'hook-model-end').length, 0);
  const fourth = main.requests[3]!.messages.map((m) => m.content).join('\n');
  assert.match(fourth, /\[observation shortened to fit the context window: \d+ characters\]/);
  assert.doesNotMatch(fourth, /\[summary of the observations/);
  assert.match(fourth, /PAGE-3 says/);
  assert.deepEqual(result.usage, { inputTokens: 40, outputTokens: 20, cachedInputTokens: undefined });
});
