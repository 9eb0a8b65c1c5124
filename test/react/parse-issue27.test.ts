/**
 * Model turns of 2025-2026 models read right (issue 27, item 12): a finish or a tool call written as a
 * keyword call (`finish(answer="Paris")`), an action written as a fenced JSON blob (LangChain's
 * `{"action": ..., "action_input": ...}` and its kin), and an `Action Input:` followed by lines that restate
 * the call (`Tool Name:`, `Tool Arguments:`). Each fixture is a whole turn as such models write it.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseTurn, readTurn } from '../../src/react/parse.js';
import { assertLinear } from '../helpers/linear.js';

const tools = ['search', 'lookup', 'calculator'];

describe('a finish or a tool call written as a keyword call', () => {
  test('finish(answer="...") gives the value, not the keyword wrapper', () => {
    const turn = parseTurn(
      'Thought: The search results say the capital of France is Paris, so I can answer now.\nAction: finish(answer="Paris")',
      { tools },
    );
    assert.deepEqual(turn, {
      type: 'answer',
      text: 'Paris',
      thought: 'The search results say the capital of France is Paris, so I can answer now.',
    });
  });

  test('single quotes, no Action label, escaped quotes and commas inside the value', () => {
    const single = parseTurn(
      "Thought: I have it.\nfinish(answer='The tower is 330 m tall, including antennas.')",
      {
        tools,
      },
    );
    assert.deepEqual(single, {
      type: 'answer',
      text: 'The tower is 330 m tall, including antennas.',
      thought: 'I have it.',
    });
    const escaped = parseTurn('Thought: Quote him.\nAction: finish(answer="He said \\"yes\\", then left.")');
    assert.equal(escaped.type === 'answer' && escaped.text, 'He said "yes", then left.');
    const square = parseTurn('Thought: done\nAction: finish[answer="42"]');
    assert.equal(square.type === 'answer' && square.text, '42');
    const spaced = parseTurn('Thought: done\nAction: finish( answer = "Lisbon" )');
    assert.equal(spaced.type === 'answer' && spaced.text, 'Lisbon');
    const number = parseTurn('Thought: done\nAction: finish(answer=1680)');
    assert.equal(number.type === 'answer' && number.text, '1680');
  });

  test('Final Answer(answer="...") is the answer, with or without the Action label', () => {
    const text =
      'Thought: I now know the final answer.\nAction: Final Answer(answer="Brightgrid Pro costs $1,680 per year for 7 developers.")';
    assert.deepEqual(parseTurn(text, { tools }), {
      type: 'answer',
      text: 'Brightgrid Pro costs $1,680 per year for 7 developers.',
      thought: 'I now know the final answer.',
    });
    const bare = parseTurn('Thought: I now know the final answer.\nFinal Answer(answer="Paris")', { tools });
    assert.deepEqual(bare, { type: 'answer', text: 'Paris', thought: 'I now know the final answer.' });
    const snake = parseTurn('Thought: done\nfinal_answer(answer="Paris")', { tools });
    assert.equal(snake.type === 'answer' && snake.text, 'Paris');
  });

  test('a multi-line answer inside the quotes keeps its lines', () => {
    const turn = parseTurn('Thought: Two facts.\nAction: finish(answer="1. Paris\n2. Berlin")');
    assert.equal(turn.type === 'answer' && turn.text, '1. Paris\n2. Berlin');
  });

  test('a tool called with one keyword argument gets its value, as tool(value) does', () => {
    const turn = parseTurn(
      'Thought: I should look up the height of the Eiffel Tower.\nAction: search(query="Eiffel Tower height in metres")',
      { tools },
    );
    assert.deepEqual(turn, {
      type: 'action',
      tool: 'search',
      input: 'Eiffel Tower height in metres',
      thought: 'I should look up the height of the Eiffel Tower.',
    });
    const single = parseTurn("Thought: t\nAction: search(query='Paris \\'old town\\'')", { tools });
    assert.equal(single.type === 'action' && single.input, "Paris 'old town'");
  });

  test('several keyword arguments are a JSON object; anything else is left as written', () => {
    const many = parseTurn('Thought: t\nAction: lookup(city="Paris", year=2024, exact=true)', { tools });
    assert.equal(many.type === 'action' && many.input, '{"city":"Paris","year":2024,"exact":true}');
    for (const [call, input] of [
      ['search(E=mc^2)', 'E=mc^2'],
      ['calculator(x = 2 + 2)', 'x = 2 + 2'],
      ['search[query="Paris"]', 'query="Paris"'],
      ['search("Paris")', 'Paris'],
      ['search(query="a" + "b")', 'query="a" + "b"'],
    ] as const) {
      const turn = parseTurn(`Thought: t\nAction: ${call}`, { tools });
      assert.equal(turn.type === 'action' && turn.input, input, call);
    }
  });
});

describe('an action written as a JSON blob', () => {
  test("LangChain's fenced action / action_input blob is the action", () => {
    const text = [
      'Thought: I need to search for the current population of Paris.',
      'Action:',
      '```json',
      '{',
      '  "action": "search",',
      '  "action_input": "population of Paris 2024"',
      '}',
      '```',
    ].join('\n');
    const read = readTurn(text, { tools });
    assert.deepEqual(read.turn, {
      type: 'action',
      tool: 'search',
      input: 'population of Paris 2024',
      thought: 'I need to search for the current population of Paris.',
    });
    assert.equal(read.source.slice(0, read.end), text);
  });

  test('"Final Answer" in the blob is the answer', () => {
    const text =
      'Thought: I know what to respond.\nAction:\n```json\n{\n  "action": "Final Answer",\n  "action_input": "About 2.1 million people live in Paris."\n}\n```';
    assert.deepEqual(parseTurn(text, { tools }), {
      type: 'answer',
      text: 'About 2.1 million people live in Paris.',
      thought: 'I know what to respond.',
    });
  });

  test('name / arguments and tool / tool_input blobs, fenced or not; an object input is JSON', () => {
    const named = parseTurn(
      'Thought: Use the lookup tool.\nAction:\n```\n{"name": "lookup", "arguments": {"city": "Paris", "year": 2024}}\n```',
      { tools },
    );
    assert.deepEqual(named, {
      type: 'action',
      tool: 'lookup',
      input: '{"city":"Paris","year":2024}',
      thought: 'Use the lookup tool.',
    });
    const inline = parseTurn('Thought: search it\nAction: {"tool": "Search", "tool_input": "Paris"}', {
      tools,
    });
    assert.deepEqual(inline, { type: 'action', tool: 'search', input: 'Paris', thought: 'search it' });
    const encoded = parseTurn(
      'Thought: t\nAction: {"name": "lookup", "arguments": "{\\"city\\": \\"Paris\\"}"}',
      {
        tools,
      },
    );
    assert.equal(encoded.type === 'action' && encoded.input, '{"city": "Paris"}');
  });

  test('text after the blob is reported as ignored, as after a bracket', () => {
    const read = readTurn(
      'Thought: t\nAction:\n```json\n{"action": "search", "action_input": "Paris"}\n```\nI will wait for the result.',
      { tools },
    );
    assert.equal(read.turn.type === 'action' && read.turn.input, 'Paris');
    assert.equal(read.turn.type === 'action' && read.turn.ignoredText, 'I will wait for the result.');
  });

  test('a blob that cannot be read says the format is tool[input], with the tool it named', () => {
    const broken = parseTurn(
      'Thought: I need to search.\nAction:\n```json\n{"action": "search", "action_input": "Paris"\n```',
      { tools },
    );
    assert.equal(broken.type, 'none');
    assert.equal(broken.type === 'none' && broken.kind, 'unknown-syntax');
    assert.match(broken.type === 'none' ? broken.problem : '', /JSON/);
    assert.match(broken.type === 'none' ? broken.problem : '', /`Action: search\[input\]`/);
    assert.doesNotMatch(broken.type === 'none' ? broken.problem : '', /names no tool/);
    const nameless = parseTurn('Thought: t\nAction:\n```json\n{"query": "Paris"}\n```', { tools });
    assert.equal(nameless.type, 'none');
    assert.match(nameless.type === 'none' ? nameless.problem : '', /`Action: tool\[input\]`/);
  });
});

describe('an Action Input followed by lines that restate the call', () => {
  test('Tool Name / Tool Arguments / Tool Input lines end the input', () => {
    const text = [
      'Thought: I should search for the height of the Eiffel Tower.',
      'Action: search',
      'Action Input: Eiffel Tower height',
      'Tool Name: search',
      'Tool Arguments: {"query": "Eiffel Tower height"}',
    ].join('\n');
    const read = readTurn(text, { tools });
    assert.equal(read.turn.type === 'action' && read.turn.input, 'Eiffel Tower height');
    assert.equal(read.turn.type === 'action' && read.turn.tool, 'search');
    for (const restated of [
      'Tool Input: Eiffel Tower height',
      '**Tool Name:** search',
      'tool_name: search',
    ]) {
      const turn = parseTurn(`Thought: t\nAction: search\nAction Input: Eiffel Tower height\n${restated}`, {
        tools,
      });
      assert.equal(turn.type === 'action' && turn.input, 'Eiffel Tower height', restated);
    }
  });

  test('an input of several lines is kept up to the restating line; inside a fence nothing is cut', () => {
    const turn = parseTurn('Action: lookup\nAction Input: {\n  "city": "Paris"\n}\nTool Name: lookup', {
      tools,
    });
    assert.equal(turn.type === 'action' && turn.input, '{\n  "city": "Paris"\n}');
    const fenced = parseTurn('Action: search\nAction Input:\n```\nTool Name: literal text\n```', { tools });
    assert.equal(fenced.type === 'action' && fenced.input, 'Tool Name: literal text');
  });
});

test('hostile inputs of these kinds parse in linear time', () => {
  const make: Record<string, (n: number) => string> = {
    'unclosed JSON blob': (n) => `Action:\n\`\`\`json\n${'{"action": "a", "x": ['.repeat(n / 22)}`,
    'open braces': (n) => `Action: ${'{'.repeat(n)}`,
    'keyword call that never closes': (n) => `Action: finish(answer="${'\\"'.repeat(n / 2)}`,
    'many keyword arguments': (n) => `Action: a(${'k="v", '.repeat(n / 7)}k=1)`,
    'restating lines': (n) => `Action: a\nAction Input: x\n${'Tool Name: a\n'.repeat(n / 13)}`,
    'fenced blobs': (n) => 'Action:\n```json\n{"action": "a"}\n```\n'.repeat(n / 33),
  };
  for (const [name, build] of Object.entries(make))
    assertLinear(name, build, (t) => parseTurn(t, { tools }), 10_000);
});

test('a finish call cut off before its end keeps neither the key nor the quote in the answer', () => {
  const cases: [string, string][] = [
    ['Thought: done\nAction: finish(answer="42', '42'],
    ['Action: finish(answer="Paris is \\"big\\"', 'Paris is "big"'],
    ["Action: finish(result = 'ok", 'ok'],
    ['Action: finish(answer=42', '42'],
  ];
  for (const [text, answer] of cases) {
    const turn = parseTurn(text);
    assert.equal(turn.type === 'answer' && turn.text, answer, text);
  }
});
