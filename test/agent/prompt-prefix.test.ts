import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runAgent } from '../../src/agent/loop.js';
import type { Model, ModelRequest } from '../../src/models/types.js';
import type { Tool } from '../../src/tools/types.js';

const OBSERVATION = 'Brightgrid Pro costs $20 per month per developer. '.repeat(32);
const search: Tool = {
  name: 'search',
  description: 'Searches the documents.',
  run: (q) => `${q}: ${OBSERVATION}`,
};
const STEPS = 16;

/** Searches until step 16, then answers, as text or as native tool calls; keeps every request. */
function model(native: boolean, requests: ModelRequest[]): Model {
  return {
    id: 'test',
    supportsToolCalls: native,
    async generate(request) {
      requests.push(request);
      const n = requests.length;
      if (n >= STEPS)
        return { text: native ? '42' : 'Thought: Done.\nAnswer: 42', usage: {}, finishReason: 'stop' };
      if (!native)
        return { text: `Thought: part ${n}.\nAction: search[part ${n}]`, usage: {}, finishReason: 'stop' };
      const call = { id: `c${n}`, name: 'search', input: JSON.stringify({ input: `part ${n}` }) };
      return { text: `part ${n}.`, toolCalls: [call], usage: {}, finishReason: 'tool-calls' };
    },
  };
}

async function requestsOf(native: boolean, contextWindowTokens?: number): Promise<ModelRequest[]> {
  const requests: ModelRequest[] = [];
  const result = await runAgent({
    model: model(native, requests),
    question: 'What are the parts?',
    tools: [search],
    maxSteps: STEPS,
    ...(contextWindowTokens !== undefined && { prompt: { contextWindowTokens } }),
    modelSettings: { mode: native ? 'native' : 'text', maxOutputTokens: 256 },
  });
  assert.equal(result.status, 'answered');
  assert.equal(requests.length, STEPS);
  return requests;
}

/** True when `next` starts with every message of `previous`, unchanged. */
function extendsRequest(previous: ModelRequest, next: ModelRequest): boolean {
  return (
    next.messages.length > previous.messages.length &&
    previous.messages.every((message, i) => JSON.stringify(message) === JSON.stringify(next.messages[i]))
  );
}

for (const native of [false, true]) {
  const mode = native ? 'native' : 'text';

  test(`${mode} mode: the request for step n+1 starts with the exact messages of step n's`, async () => {
    const requests = await requestsOf(native);
    for (let i = 1; i < requests.length; i++) {
      assert.ok(
        extendsRequest(requests[i - 1]!, requests[i]!),
        `request ${i + 1} does not extend request ${i}`,
      );
      assert.deepEqual(requests[i]!.stopSequences, requests[0]!.stopSequences);
    }
  });

  test(`${mode} mode: a full window is shortened in chunks; the next two requests extend each other again`, async () => {
    // Room for about 8 of the 15 tool steps after the system prompt, question and reply.
    const requests = await requestsOf(native, 256 + 300 + 8 * 430);
    const shortenedAt = requests.flatMap((r, i) =>
      i > 0 && !extendsRequest(requests[i - 1]!, r) ? [i] : [],
    );
    assert.ok(shortenedAt.length >= 1, 'the transcript was shortened at least once');
    assert.ok(shortenedAt.length <= 4, `shortened in chunks, not at every step: ${shortenedAt}`);
    for (const i of shortenedAt) {
      for (const j of [i + 1, i + 2].filter((k) => k < requests.length)) {
        if (shortenedAt.includes(j))
          assert.fail(`request ${j + 1} right after a shortening at ${i + 1} changed the prefix again`);
        assert.ok(extendsRequest(requests[j - 1]!, requests[j]!));
      }
    }
    const last = requests
      .at(-1)!
      .messages.map((m) => m.content)
      .join('\n');
    assert.match(last, /observation shortened to fit the context window/);
    assert.match(last, /part 1: Brightgrid/, 'the first findings are kept');
  });
}

for (const native of [false, true]) {
  const mode = native ? 'native' : 'text';
  test(`${mode} mode: once a window is shortened, each request says how many first messages stay the same, and they do`, async () => {
    const requests = await requestsOf(native, 256 + 300 + 8 * 430);
    const stable = requests.flatMap((r, i) => (r.stablePrefixMessages === undefined ? [] : [i]));
    assert.ok(stable.length > 0, 'the compacted requests carry a stable prefix');
    const first = stable[0]!;
    assert.ok(
      requests.slice(0, first).every((r) => r.stablePrefixMessages === undefined),
      'not before the first shortening',
    );
    for (const i of stable) {
      const request = requests[i]!;
      const n = request.stablePrefixMessages!;
      assert.ok(n >= 2 && n < request.messages.length, `${n} of ${request.messages.length}`);
      // What it calls stable is what every later request starts with, however often it is shortened again.
      for (const later of requests.slice(i + 1)) {
        assert.deepEqual(
          later.messages.slice(0, n),
          request.messages.slice(0, n),
          `request ${i + 1}'s prefix`,
        );
      }
    }
  });
}
