/**
 * A deterministic test model for whole evaluations: it answers each question from a table (right for some
 * items, wrong for others), searching once first when it runs inside the ReAct loop. Optional delay per
 * call, so a test can kill a run mid-way.
 */
import { readFileSync } from 'node:fs';
import type { Model, ModelRequest } from '../../../src/models/types.js';

/** The answers the model gives: the gold answer for q1, q3, q5, q7, `Paris` otherwise. */
export function oracleAnswers(datasetFile: string): Map<string, string> {
  const answers = new Map<string, string>();
  for (const line of readFileSync(datasetFile, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const { id, question, answer } = JSON.parse(line) as { id: string; question: string; answer: string };
    answers.set(question, Number(id.slice(1)) % 2 === 1 ? answer : 'Paris');
  }
  return answers;
}

/** The oracle model; `calls` counts generate calls. */
export function oracleModel(answers: Map<string, string>, delayMs = 0): Model & { calls: number } {
  const model = {
    id: 'oracle',
    calls: 0,
    async generate(request: ModelRequest) {
      model.calls += 1;
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      request.signal?.throwIfAborted();
      const question = (request.messages[1]?.content ?? '').replace(/^(Question|Claim): /, '');
      const answer = answers.get(question) ?? 'unknown';
      const inLoop = request.messages[0]?.content.includes('Tools:') === true;
      const searched = request.messages.some((m) => m.role === 'assistant');
      const text = !inLoop
        ? `Thought: Let's think step by step. So the answer is ${answer}.\nAnswer: ${answer}`
        : searched
          ? `Thought: I know it now.\nAction: finish[${answer}]`
          : 'Thought: I need to search Ada Lovelace.\nAction: search[Ada Lovelace]';
      return { text, usage: { inputTokens: 10, outputTokens: 2 }, finishReason: 'stop' as const };
    },
  };
  return model;
}
