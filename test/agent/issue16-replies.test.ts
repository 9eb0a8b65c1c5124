/**
 * Issue 16 over real HTTP: a local OpenAI-compatible server streams `<think>` blocks with label lines inside,
 * `reasoning_content` deltas, several actions in one turn and several native tool calls in one step.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { streamAgent } from '../../src/agent/loop.js';
import type { AgentConfig, ModelSettings } from '../../src/agent/options.js';
import type { AgentEvent, RunResult } from '../../src/agent/types.js';
import { resolveModelSpec } from '../../src/models/spec.js';
import { calculator } from '../../src/tools/calculator.js';
import type { Tool } from '../../src/tools/types.js';
import { startFakeAnthropic } from '../helpers/fake-anthropic-server.js';
import { type FakeOpenAIOptions, startFakeOpenAI } from '../helpers/fake-openai-server.js';

const QWEN_TURN = [
  '<think>',
  'The user wants 6 * 7. Let me plan the step.',
  'Thought: I could multiply.',
  'Action: calculator[6 * 7]',
  'Answer: maybe 42',
  '</think>',
  '',
  'Thought: I need the product.',
  'Action: calculator[6 * 7]',
].join('\n');

async function run(
  server: FakeOpenAIOptions,
  options: Partial<AgentConfig> & { modelSettings: ModelSettings & { streaming: boolean } },
): Promise<{ result: RunResult; events: AgentEvent[]; requests: Record<string, unknown>[] }> {
  const fake = await startFakeOpenAI(server);
  try {
    const model = await resolveModelSpec(`openai-compatible:${fake.baseURL}#reasoner`, {});
    const events: AgentEvent[] = [];
    let result: RunResult | undefined;
    for await (const event of streamAgent({
      model,
      question: 'What is 6 * 7?',
      tools: [calculator],
      ...options,
    })) {
      events.push(event);
      if (event.type === 'run-end') result = event.result;
    }
    return { result: result!, events, requests: fake.requests };
  } finally {
    await fake.close();
  }
}

for (const streaming of [true, false]) {
  const mode = streaming ? 'streamed' : 'not streamed';
  describe(`reasoning models (${mode})`, () => {
    test('a <think> block with label lines inside is read to its closing tag; its content is the reasoning', async () => {
      const { result, requests } = await run(
        { replies: [QWEN_TURN, 'Thought: done\nAnswer: 42'], chunkSize: 3 },
        { modelSettings: { streaming } },
      );
      assert.equal(result.status, 'answered', JSON.stringify(result.steps.map((s) => s.observation)));
      assert.equal(result.answer, '42');
      const first = result.steps[0]!;
      assert.deepEqual(first.turn, {
        type: 'action',
        tool: 'calculator',
        input: '6 * 7',
        thought: 'I need the product.',
      });
      assert.match(
        first.reasoning ?? '',
        /^The user wants 6 \* 7\. Let me plan the step\.\nThought: I could multiply\./,
      );
      assert.equal(first.observation?.text, '42');
      // The reasoning is never sent back: the next prompt has the step, not the block.
      const next = JSON.stringify(requests[1]);
      assert.ok(!next.includes('Let me plan'), next);
      assert.ok(next.includes('Action: calculator[6 * 7]'));
    });

    test('a stop sequence applied inside the block says the reasoning was cut off, not that it was empty', async () => {
      // The server cuts at `\nObservation:` as real servers do, here inside the block.
      const cutInside =
        '<think>\nThought: multiply\nAction: calculator[6 * 7]\nObservation: 42\n</think>\nThought: t\nAction: calculator[6 * 7]';
      const { result } = await run(
        { replies: [cutInside, 'Thought: done\nAnswer: 42'] },
        { modelSettings: { streaming } },
      );
      assert.equal(result.status, 'answered');
      const observation = result.steps[0]!.observation;
      assert.equal(observation?.source, 'format-error');
      assert.match(
        observation?.text ?? '',
        /^Format error: Your reasoning was cut off before the step: write the step after `<\/think>`\./,
      );
      assert.doesNotMatch(observation?.text ?? '', /empty/);
    });

    test('reasoning_content from the server is the step reasoning, and is not sent back', async () => {
      const reply = {
        reasoning: 'Six sevens are forty-two; check with the tool.',
        text: 'Thought: check\nAction: calculator[6 * 7]',
      };
      const { result, events, requests } = await run(
        { replies: [reply, 'Thought: done\nAnswer: 42'] },
        { modelSettings: { streaming } },
      );
      assert.equal(result.status, 'answered');
      assert.equal(result.steps[0]!.reasoning, 'Six sevens are forty-two; check with the tool.');
      const deltas = events
        .filter((e) => e.type === 'reasoning-delta')
        .map((e) => (e as { text: string }).text);
      assert.equal(deltas.join(''), streaming ? reply.reasoning : '');
      const end = events.find((e) => e.type === 'model-end');
      assert.equal(end?.type === 'model-end' && end.reasoning, reply.reasoning);
      assert.ok(!JSON.stringify(requests[1]).includes('forty-two'));
    });
  });

  describe(`several actions in one turn (${mode})`, () => {
    test('only the first runs, the transcript ends at it, and the observation says what was not run', async () => {
      const reply = 'Thought: both\nAction: calculator[1 + 1]\nAction: calculator[2 + 2] calculator[3 + 3]';
      let calls = 0;
      const counted: Tool = {
        ...calculator,
        run: (input, context) => {
          calls += 1;
          return calculator.run(input, context);
        },
      };
      const { result, requests } = await run(
        { replies: [reply, 'Thought: done\nAnswer: 2'] },
        { modelSettings: { streaming }, tools: [counted] },
      );
      assert.equal(result.status, 'answered');
      assert.equal(calls, 1);
      const step = result.steps[0]!;
      assert.equal(step.transcriptText, 'Thought: both\nAction: calculator[1 + 1]');
      assert.equal(
        step.observation?.text,
        '2\n(Only the first action runs each step; `calculator[2 + 2]`, `calculator[3 + 3]` were not run.)',
      );
      const next = JSON.stringify(requests[1]);
      assert.ok(!next.includes('Action: calculator[2 + 2]'), 'the ignored action is not in the transcript');
    });
  });
}

describe('native mode answers every call', () => {
  test('several tool calls in one step: each runs and gets its own result, reads at most toolConcurrency at a time', async () => {
    let inFlight = 0;
    let most = 0;
    const slow: Tool = {
      name: 'slow_read',
      description: 'Reads slowly.',
      effects: 'read',
      run: async (input) => {
        inFlight += 1;
        most = Math.max(most, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 40));
        inFlight -= 1;
        return `read ${input}`;
      },
    };
    const writes: string[] = [];
    const write: Tool = {
      name: 'write_note',
      description: 'Writes a note.',
      effects: 'external',
      run: (input) => {
        writes.push(input);
        return `wrote ${input}`;
      },
    };
    const call = (name: string, input: string) => ({ name, arguments: JSON.stringify({ input }) });
    const reply = {
      text: 'Reading four pages, then writing.',
      toolCalls: [
        call('slow_read', 'a'),
        call('slow_read', 'b'),
        call('slow_read', 'c'),
        call('slow_read', 'd'),
        call('write_note', 'x'),
        call('write_note', 'y'),
        call('nope', 'z'),
      ],
    };
    const asked: string[] = [];
    for (const streaming of [true, false]) {
      most = 0;
      writes.length = 0;
      asked.length = 0;
      const { result, events, requests } = await run(
        { replies: [reply, 'Answer: done'] },
        {
          tools: [slow, write],
          approve: (request) => {
            asked.push(request.input);
            return request.input === 'y' ? { type: 'reject', reason: 'not that one' } : { type: 'approve' };
          },
          modelSettings: { streaming, mode: 'native' },
          limits: { toolConcurrency: 2 },
        },
      );
      assert.equal(result.status, 'answered');
      assert.equal(most, 2, 'reads ran two at a time');
      assert.deepEqual(writes, ['x'], 'each side effect has its own approval; the rejected one did not run');
      assert.equal(asked.length, 2);
      const step = result.steps[0]!;
      assert.equal(step.observation?.text, 'read a');
      assert.deepEqual(
        step.otherCalls?.map((c) => [c.tool, c.observation.text.split('\n')[0]]),
        [
          ['slow_read', 'read b'],
          ['slow_read', 'read c'],
          ['slow_read', 'read d'],
          ['write_note', 'wrote x'],
          [
            'write_note',
            'The user rejected this action (not that one). It did not run. Choose another action, or give the Answer.',
          ],
          ['nope', 'Error: unknown tool "nope". Use: slow_read, write_note'],
        ],
      );
      assert.equal(
        events.filter((e) => e.type === 'tool-end').length,
        6,
        'the trace shows each call that ran',
      );
      // The next request answers every call id, each with its own result.
      const messages = requests[1]!.messages as { role: string; tool_call_id?: string; content: string }[];
      const results = messages.filter((m) => m.role === 'tool');
      assert.deepEqual(
        results.map((m) => m.tool_call_id),
        ['call_1_0', 'call_1_1', 'call_1_2', 'call_1_3', 'call_1_4', 'call_1_5', 'call_1_6'],
      );
    }
  });
});

describe('several native calls: every call gets the notes a single action gets', () => {
  const call = (name: string, input: string) => ({ name, arguments: JSON.stringify({ input }) });
  const lookup: Tool = { name: 'lookup', description: 'Looks a word up.', run: (input) => `${input}: found` };

  test('an unknown tool among several calls gets the hint on how to answer, not only the first call', async () => {
    for (const streaming of [true, false]) {
      const reply = { toolCalls: [call('lookup', 'a'), call('nope', 'b'), call('lookup', 'c')] };
      const { result } = await run(
        { replies: [reply, 'done'] },
        { tools: [lookup], modelSettings: { streaming, mode: 'native' } },
      );
      assert.equal(result.status, 'answered');
      const step = result.steps[0]!;
      assert.equal(step.observation?.text, 'a: found');
      const [nope, c] = step.otherCalls ?? [];
      assert.match(
        nope!.observation.text,
        /unknown tool "nope"[\s\S]*\nTo give the final answer instead, reply without calling a tool\./,
      );
      assert.equal(c!.observation.text, 'c: found');
    }
  });

  test('a call that repeats an earlier one gets the repeat note, and repeats stop the run, whichever call it is', async () => {
    // Each step calls lookup[a] first (new each time: the input changes) and lookup[same] second.
    const step = (i: number) => ({ toolCalls: [call('lookup', `a${i}`), call('lookup', 'same')] });
    const { result } = await run(
      { replies: [step(1), step(2), step(3), step(4), 'never asked'] },
      {
        tools: [lookup],
        maxSteps: 10,
        modelSettings: { streaming: true, mode: 'native' },
        limits: { maxRepeatedActions: 2 },
      },
    );
    const second = (i: number) => result.steps[i]!.otherCalls?.[0]?.observation.text;
    assert.equal(second(0), 'same: found');
    assert.equal(
      second(1),
      'same: found\n(You already ran lookup[same] and got this same result. Do something different, or give the Answer.)',
    );
    assert.equal(result.status, 'repeated_action', 'the third lookup[same] used up the repeats');
    assert.equal(result.steps.length, 3);
    // The first calls never repeated: no note on them.
    for (const s of result.steps) assert.doesNotMatch(s.observation!.text, /already ran/);
  });
});

describe('an unknown tool in text mode', () => {
  test('the observation lists the tools and says how to give the answer instead', async () => {
    const { result } = await run(
      { replies: ['Thought: look it up\nAction: wikipedia[Paris]', 'Thought: fine\nAnswer: 42'] },
      { modelSettings: { streaming: true } },
    );
    assert.equal(result.status, 'answered');
    const text = result.steps[0]!.observation?.text ?? '';
    assert.match(text, /unknown tool "wikipedia"\. Use: calculator/);
    assert.match(
      text,
      /\nTo give the final answer instead, write `Answer: <the answer>` in place of the action\.$/,
    );
  });
});

describe('parallelToolCalls: false (one call per step)', () => {
  const call = (name: string, input: string) => ({ name, arguments: JSON.stringify({ input }) });

  test('an OpenAI-compatible server is asked for one call (parallel_tool_calls: false); extra calls are answered as not run', async () => {
    let ran = 0;
    const lookup: Tool = {
      name: 'lookup',
      description: 'Looks a word up.',
      run: (input) => {
        ran += 1;
        return `${input}: found`;
      },
    };
    for (const streaming of [true, false]) {
      ran = 0;
      // The server ignores the setting and still sends two calls: the second is answered, not run, not dropped.
      const reply = { toolCalls: [call('lookup', 'a'), call('lookup', 'b')] };
      const { result, events, requests } = await run(
        { replies: [reply, 'done'] },
        { tools: [lookup], modelSettings: { streaming, mode: 'native', parallelToolCalls: false } },
      );
      assert.equal(result.status, 'answered');
      for (const request of requests)
        assert.equal(request.parallel_tool_calls, false, JSON.stringify(request));
      assert.equal(ran, 1, 'only the first call ran');
      assert.equal(events.filter((e) => e.type === 'tool-end').length, 1);
      const step = result.steps[0]!;
      assert.equal(step.observation?.text, 'a: found');
      assert.deepEqual(
        step.otherCalls?.map((c) => [c.tool, c.input, c.observation.ok, c.observation.text]),
        [
          [
            'lookup',
            'b',
            false,
            'Not run: only one tool call runs each step (parallel tool calls are off); call lookup again in a later step if you still need it.',
          ],
        ],
      );
      // The next request answers both call ids.
      const messages = requests[1]!.messages as { role: string; tool_call_id?: string; content: string }[];
      assert.deepEqual(
        messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id),
        ['call_1_0', 'call_1_1'],
      );
    }
  });

  test('left at its default, the request does not mention parallel calls and every call runs', async () => {
    const lookup: Tool = {
      name: 'lookup',
      description: 'Looks a word up.',
      run: (input) => `${input}: found`,
    };
    const reply = { toolCalls: [call('lookup', 'a'), call('lookup', 'b')] };
    const { result, requests } = await run(
      { replies: [reply, 'done'] },
      { tools: [lookup], modelSettings: { streaming: true, mode: 'native' } },
    );
    assert.equal(requests[0]!.parallel_tool_calls, undefined);
    assert.equal(result.steps[0]!.otherCalls?.[0]?.observation.text, 'b: found');
  });

  test('OpenAI gets parallel_tool_calls: false and Anthropic tool_choice.disable_parallel_tool_use: true', async () => {
    const openai = await startFakeOpenAI({ replies: [{ toolCalls: [call('calculator', '6 * 7')] }, 'done'] });
    try {
      const model = await resolveModelSpec('openai:gpt-4o-mini', {
        OPENAI_API_KEY: 'sk-test',
        OPENAI_BASE_URL: openai.baseURL,
      });
      const base = {
        model,
        question: 'What is 6 * 7?',
        tools: [calculator],
        modelSettings: { mode: 'native' as const },
      };
      for await (const _ of streamAgent({
        ...base,
        modelSettings: { ...base.modelSettings, parallelToolCalls: false },
      })) {
        // drained
      }
      assert.equal(openai.requests[0]!.parallel_tool_calls, false);
    } finally {
      await openai.close();
    }
    const anthropic = await startFakeAnthropic({
      replies: [
        { toolCalls: [{ name: 'calculator', arguments: JSON.stringify({ input: '6 * 7' }) }] },
        'done',
      ],
    });
    try {
      const model = await resolveModelSpec('anthropic:claude-test', {
        ANTHROPIC_API_KEY: 'sk-test',
        ANTHROPIC_BASE_URL: anthropic.baseURL,
      });
      const base = {
        model,
        question: 'What is 6 * 7?',
        tools: [calculator],
        modelSettings: { mode: 'native' as const },
      };
      for await (const _ of streamAgent({
        ...base,
        modelSettings: { ...base.modelSettings, parallelToolCalls: false },
      })) {
        // drained
      }
      assert.deepEqual(anthropic.requests[0]!.tool_choice, { type: 'auto', disable_parallel_tool_use: true });
    } finally {
      await anthropic.close();
    }
  });
});
