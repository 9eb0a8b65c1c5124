/**
 * Each run sends the system prompt rendered from its own options (tools, instructions, examples, language),
 * never another run's.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runAgent } from '../../src/agent/loop.js';
import type { AgentConfig } from '../../src/agent/options.js';
import type { FewShotExample } from '../../src/react/examples.js';
import { renderSystemPrompt } from '../../src/react/prompt.js';
import { scriptedModel } from '../../src/testing/scripted-model.js';
import type { Tool } from '../../src/tools/types.js';

const tool = (description: string, inputHint?: string): Tool => ({
  name: 'echo',
  description,
  ...(inputHint === undefined ? {} : { inputHint }),
  run: (input: string) => input,
});

/** The system prompt a run sends. */
async function sentPrompt(options: Omit<AgentConfig, 'model'>): Promise<string> {
  const model = scriptedModel(['Thought: t\nAnswer: a']);
  await runAgent({ ...options, model, question: 'q' });
  return model.requests[0]?.messages[0]?.content ?? '';
}

function expected(options: Omit<AgentConfig, 'model'>): string {
  return renderSystemPrompt({
    tools: options.tools,
    instructions: options.instructions,
    examples: options.prompt?.examples,
    contentLanguage: options.prompt?.contentLanguage,
  });
}

test('runs whose options differ only where separators could hide each send their own prompt', async () => {
  const examples: FewShotExample[] = [{ question: 'Q?', steps: [{ thought: 'easy', answer: 'A' }] }];
  const sets: Omit<AgentConfig, 'model'>[] = [
    { tools: [tool('d')], prompt: { examples } },
    { tools: [tool('d')], prompt: { examples: '#1' } },
    { tools: [tool('d')], prompt: { examples: 'a1' } },
    { tools: [tool('d')], instructions: 'i\u0000de' },
    { tools: [tool('d')], instructions: 'i', prompt: { contentLanguage: 'de\u0000' } },
    { tools: [tool('x\u0000y')] },
    { tools: [tool('x', 'y\u0000')] },
    { tools: [tool('d\u0001h')] },
    { tools: [tool('d', 'h')] },
  ];
  for (let round = 0; round < 2; round++) {
    for (const options of sets) assert.equal(await sentPrompt(options), expected(options));
  }
});

test('a new examples array is a new prompt', async () => {
  const first: FewShotExample[] = [{ question: 'Q1?', steps: [{ thought: 't', answer: 'one' }] }];
  const second: FewShotExample[] = [{ question: 'Q2?', steps: [{ thought: 't', answer: 'two' }] }];
  assert.match(await sentPrompt({ tools: [], prompt: { examples: first } }), /Q1\?/);
  assert.match(await sentPrompt({ tools: [], prompt: { examples: second } }), /Q2\?/);
  assert.match(await sentPrompt({ tools: [], prompt: { examples: first } }), /Q1\?/);
});

test('an examples array changed between runs is sent as it is now', async () => {
  const examples: FewShotExample[] = [{ question: 'Q1?', steps: [{ thought: 't', answer: 'one' }] }];
  assert.match(await sentPrompt({ tools: [], prompt: { examples } }), /Q1\?/);
  examples.push({ question: 'Q3?', steps: [{ thought: 't', answer: 'three' }] });
  assert.match(await sentPrompt({ tools: [], prompt: { examples } }), /Q3\?/);
});
