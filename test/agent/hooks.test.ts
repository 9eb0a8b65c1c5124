import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BudgetExceededError } from '../../src/agent/errors.js';
import { runAgent, streamAgent } from '../../src/agent/loop.js';
import type { AgentEvent } from '../../src/agent/types.js';
import type { Model, ModelRequest, ModelResponse } from '../../src/models/types.js';
import { scriptedModel } from '../../src/testing/scripted-model.js';
import { calculator } from '../../src/tools/calculator.js';
import type { Tool } from '../../src/tools/types.js';

const ACTION = 'Thought: add.\nAction: calculator[1 + 1]';
const ANSWER = 'Thought: done.\nAnswer: 2';

const search: Tool = {
  name: 'search',
  description: 'Searches the web.',
  run: () => 'nothing found',
};

async function collect(events: AsyncGenerator<AgentEvent, unknown>): Promise<AgentEvent[]> {
  const seen: AgentEvent[] = [];
  for await (const event of events) seen.push(event);
  return seen;
}

test('prepareStep can switch the model, add instructions and set temperature for one step', async () => {
  const main = scriptedModel([ACTION]);
  const other = scriptedModel([ANSWER], { id: 'other-model' });
  const seen: { step: number; steps: number; messages: number }[] = [];
  const result = await runAgent({
    model: main,
    question: '1 + 1?',
    tools: [calculator],
    hooks: {
      prepareStep: ({ step, steps, messages }) => {
        seen.push({ step, steps: steps.length, messages: messages.length });
        if (step === 2) return { model: other, instructions: 'Be brief.', temperature: 0.7 };
        return undefined;
      },
    },
  });
  assert.equal(result.status, 'answered');
  assert.equal(result.answer, '2');
  main.assertAllUsed();
  other.assertAllUsed();
  assert.deepEqual(seen, [
    { step: 1, steps: 0, messages: 2 },
    { step: 2, steps: 1, messages: 4 },
  ]);
  const request = other.requests[0]!;
  assert.equal(request.temperature, 0.7);
  assert.match(request.messages[0]!.content, /Be brief\.$/);
  assert.doesNotMatch(main.requests[0]!.messages[0]!.content, /Be brief/);
  assert.equal(result.steps[1]!.modelId, 'other-model', 'the step records the model that answered');
});

test('prepareStep activeTools (text mode): the prompt lists only those tools, another tool is unknown', async () => {
  let searchRan = false;
  const tracked: Tool = {
    ...search,
    run: () => {
      searchRan = true;
      return 'found';
    },
  };
  const model = scriptedModel(['Thought: look.\nAction: search[x]', ANSWER]);
  const result = await runAgent({
    model,
    question: '1 + 1?',
    tools: [calculator, tracked],
    hooks: { prepareStep: () => ({ activeTools: ['calculator'] }) },
  });
  assert.equal(result.status, 'answered');
  assert.equal(searchRan, false, 'a tool not offered in the step does not run');
  const system = model.requests[0]!.messages[0]!.content;
  assert.match(system, /calculator/);
  assert.doesNotMatch(system, /search/);
  assert.deepEqual(model.requests[0]!.turnFormat?.tools, ['calculator']);
  assert.equal(result.steps[0]!.observation?.ok, false);
});

test('prepareStep activeTools (native mode): only those functions are sent', async () => {
  const requests: ModelRequest[] = [];
  const replies: ModelResponse[] = [
    {
      text: '',
      toolCalls: [{ id: 'c1', name: 'calculator', input: '{"input":"1 + 1"}' }],
      usage: {},
      finishReason: 'tool-calls',
    },
    { text: 'Answer: 2', usage: {}, finishReason: 'stop' },
  ];
  const model: Model = {
    id: 'native',
    supportsToolCalls: true,
    async generate(request) {
      requests.push(request);
      return replies[requests.length - 1]!;
    },
  };
  const result = await runAgent({
    model,
    question: '1 + 1?',
    tools: [calculator, search],
    modelSettings: { mode: 'native' },
    hooks: { prepareStep: ({ step }) => (step === 1 ? { activeTools: ['calculator'] } : undefined) },
  });
  assert.equal(result.status, 'answered');
  assert.deepEqual(
    requests.map((r) => r.tools?.map((t) => t.name)),
    [['calculator'], ['calculator', 'search']],
  );
  assert.equal(result.steps[0]!.observation?.text, '2');
});

test('prepareStep can replace the messages the model is sent', async () => {
  const model = scriptedModel([ANSWER]);
  await runAgent({
    model,
    question: '1 + 1?',
    tools: [calculator],
    hooks: {
      prepareStep: ({ messages }) => ({
        messages: [...messages, { role: 'user', content: 'Remember: answer in one word.' }],
      }),
    },
  });
  assert.equal(model.requests[0]!.messages.at(-1)!.content, 'Remember: answer in one word.');
});

test('a prepareStep that throws ends the run with error before the model is called', async () => {
  const model = scriptedModel([]);
  const result = await runAgent({
    model,
    question: '1 + 1?',
    tools: [calculator],
    hooks: {
      prepareStep: () => {
        throw new Error('no route for this step');
      },
    },
  });
  assert.equal(result.status, 'error');
  assert.equal(result.error, 'prepareStep failed: no route for this step');
  assert.equal(model.requests.length, 0);
});

test('prepareStep naming an unknown tool in activeTools ends the run with error saying so', async () => {
  const result = await runAgent({
    model: scriptedModel([]),
    question: '1 + 1?',
    tools: [calculator],
    hooks: { prepareStep: async () => ({ activeTools: ['calculater'] }) },
  });
  assert.equal(result.status, 'error');
  assert.match(
    result.error ?? '',
    /^prepareStep failed: activeTools names calculater, not a tool of this run/,
  );
});

test('onStepEnd sees every finished step before the next model call', async () => {
  const order: string[] = [];
  const model = scriptedModel([
    (request) => {
      order.push(`model ${request.messages.length}`);
      return ACTION;
    },
    (request) => {
      order.push(`model ${request.messages.length}`);
      return ANSWER;
    },
  ]);
  const result = await runAgent({
    model,
    question: '1 + 1?',
    tools: [calculator],
    hooks: {
      onStepEnd: async (step) => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        order.push(`step ${step.index} ${step.turn.type}`);
      },
    },
  });
  assert.equal(result.status, 'answered');
  assert.deepEqual(order, ['model 2', 'step 1 action', 'model 4', 'step 2 answer']);
});

test('an onStepEnd that throws does not break the run: a hook-error event says so', async () => {
  const events = await collect(
    streamAgent({
      model: scriptedModel([ACTION, ANSWER]),
      question: '1 + 1?',
      tools: [calculator],
      hooks: {
        onStepEnd: (step) => {
          if (step.index === 1) throw new Error('metrics store down');
        },
      },
    }),
  );
  const errors = events.filter((e) => e.type === 'hook-error');
  assert.deepEqual(errors, [{ type: 'hook-error', step: 1, hook: 'onStepEnd', error: 'metrics store down' }]);
  const end = events.at(-1);
  assert.equal(end?.type === 'run-end' && end.result.status, 'answered');
  // The hook error comes right after the step it concerns.
  const at = events.findIndex((e) => e.type === 'hook-error');
  assert.equal(events[at - 1]?.type, 'step-end');
});

test("a hook's model call the budget has no room for is not made: the run ends with budget, not error", async () => {
  for (const forceFinalAnswer of [false, true]) {
    const helper = scriptedModel(['a note']);
    const main = scriptedModel([ACTION, ANSWER], { usage: { inputTokens: 100, outputTokens: 10 } });
    let refusal: unknown;
    const result = await runAgent({
      model: main,
      question: '1 + 1?',
      tools: [calculator],
      limits: { maxTokens: 1000, forceFinalAnswer },
      hooks: {
        prepareStep: async ({ step, generate }) => {
          if (step === 1) return undefined;
          // About 2,500 tokens: more than the 890 left.
          const ask = { messages: [{ role: 'user' as const, content: 'x'.repeat(10_000) }] };
          try {
            await generate(helper, ask, 'notes');
          } catch (error) {
            refusal = error;
            throw error;
          }
          return undefined;
        },
      },
    });
    assert.equal(helper.requests.length, 0, 'the helper model was not called');
    assert.equal(main.requests.length, 1, 'nor the run model again (a forced call included)');
    assert.ok(refusal instanceof BudgetExceededError, 'generate threw BudgetExceededError');
    assert.equal(result.status, 'budget');
    assert.match(
      result.error ?? '',
      /^token budget: 110 of 1000 tokens used, and the next call needs about 25\d\d more\.$/,
    );
    assert.equal(result.steps.length, 1);
  }
});

test('a hook that catches its failed model call pauses and resumes: the failure is replayed, not made again', async () => {
  const { resumeAgent } = await import('../../src/agent/resume.js');
  const written: string[] = [];
  const write: Tool = {
    name: 'write',
    description: 'Writes a note.',
    effects: 'write',
    run: (input: string) => {
      written.push(input);
      return 'written';
    },
  };
  let hookCalls = 0;
  const hookModel: Model = {
    id: 'hook-model',
    async generate(): Promise<ModelResponse> {
      hookCalls += 1;
      if (hookCalls === 1) throw new Error('network down');
      return { text: 'summary', usage: { inputTokens: 7, outputTokens: 1 }, finishReason: 'stop' };
    },
  };
  const failures: string[] = [];
  const options = {
    tools: [write],
    durable: { pauseForApproval: true, secret: 'a test secret of at least 32 characters!!' },
    hooks: {
      prepareStep: async ({
        generate,
      }: {
        generate: (m: Model, r: ModelRequest) => Promise<ModelResponse>;
      }) => {
        try {
          await generate(hookModel, { messages: [{ role: 'user', content: 'summarise' }] });
        } catch (error) {
          failures.push((error as Error).message);
        }
        return undefined;
      },
    },
  } as const;
  const paused = await runAgent({
    ...options,
    model: scriptedModel(['Thought: note it.\nAction: write[a]']),
    question: 'Note a.',
  });
  assert.equal(paused.status, 'paused');
  // The failed hook call is in the state, so the model call after it is too.
  assert.deepEqual(
    paused.state?.journal.map((e) => e.name),
    ['step-1-hook-1', 'step-1-model'],
  );
  const resumed = await resumeAgent({
    ...options,
    model: scriptedModel(['Thought: done.\nAnswer: noted']),
    state: JSON.parse(JSON.stringify(paused.state)),
    decisions: { [paused.pending?.[0]?.id ?? '']: { type: 'approve' } },
  });
  assert.equal(resumed.status, 'answered', resumed.error);
  assert.deepEqual(written, ['a']);
  // Step 1's hook call was replayed (its failure given to the hook again), step 2's made live: 2 calls in all.
  assert.equal(hookCalls, 2);
  assert.deepEqual(failures, ['network down', 'network down']);
});
